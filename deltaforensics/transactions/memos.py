"""Speed memos of transaction building, apart from its semantics: each is a pure function of
its (hashable) inputs, remembered because a long history repeats the same writers,
``operationParameters`` texts and statements thousands of times, or an answer that holds for
a span of versions. None changes what is built; ``tests/transactions/test_transactions.py`` checks that."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import Generic, TypeVar

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.operations import ReadPredicateInfo, parse_operation_predicates
from deltaforensics.profiles import Profile, profile_for
from deltaforensics.transactions.decode import json_or_none, parameters_of
from deltaforensics.transactions.isolation import effective_isolation
from deltaforensics.transactions.parts import Reads
from deltaforensics.transactions.reads import reads_for

_V = TypeVar("_V")

cached_profile_for = lru_cache(maxsize=256)(profile_for)


@lru_cache(maxsize=1 << 16)
def operation_predicates(operation: str, params_text: str | None) -> ReadPredicateInfo:
    """:func:`parse_operation_predicates` of a recorded ``operationParameters`` text."""
    return parse_operation_predicates(operation, parameters_of(json_or_none(params_text)))


@lru_cache(maxsize=1024)
def recorded_isolation(
    recorded: str | None, prop: str | None, profile: Profile
) -> tuple[IsolationLevel, str]:
    """:func:`effective_isolation` by the only table property it reads (a history repeats the
    same few combinations; iterating the level enum per commit showed in profiles)."""
    config = {} if prop is None else {"delta.isolationLevel": prop}
    return effective_isolation(recorded, config, profile)


@lru_cache(maxsize=1 << 14)
def recurring_reads(
    operation: str,
    params_text: str | None,
    recorded_blind: bool | None,
    profile: Profile,
    cols: tuple[str, ...],
    has_adds: bool,
    has_removes: bool,
) -> Reads:
    """:func:`reads_for` of a commit that is not a dynamic partition overwrite: a pure function
    of these values, which a long history repeats (the same statements, run again and again)."""
    return reads_for(
        operation,
        parameters_of(json_or_none(params_text)),
        recorded_blind,
        profile,
        cols,
        has_adds,
        has_removes,
        info=operation_predicates(operation, params_text),
    )


class AsOf(Generic[_V]):
    """``lookup(v)`` (a replay's ``metadata_at`` or ``protocol_at``), remembered for the span of
    versions that share its answer (up to the next action of its kind): commits are asked
    about in version order, and a table changes its metadata and protocol rarely."""

    def __init__(self, versions: list[int], lookup: Callable[[int], _V]) -> None:
        self._versions, self._lookup = versions, lookup
        self._span: tuple[int, float, _V] | None = None

    def at(self, version: int) -> _V:
        span = self._span
        if span is not None and span[0] <= version < span[1]:
            return span[2]
        found = self._lookup(version)  # checks the version and raises as the replay does
        i = bisect_right(self._versions, version)  # >= 1: the lookup found an action
        end = self._versions[i] if i < len(self._versions) else math.inf
        self._span = (self._versions[i - 1], end, found)
        return found
