"""Transactions as columns: the facts about every commit that questions asked of the whole
history need (which commits raced, who wrote what, which isolation levels were recorded), one
row per commit, computed as frame operations over the commit table (issue #23).

A history of 100,000 commits races in about 1% of them; building a full
:class:`~deltaforensics.transactions.record.Transaction` for every commit (decoding its
``commitInfo``, reconstructing its reads) was a third of ``explain``'s time and half its
memory per commit. Each column here is worked out by the very function that fills the matching
transaction field, applied once per distinct input (a history repeats the same few writers,
operations and isolation levels), so a fact and the transaction it stands for cannot disagree;
``tests/transactions/test_facts.py`` checks them against each other on real logs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from deltaforensics.profiles import Profile
from deltaforensics.transactions.commit_history import CommitHistory
from deltaforensics.transactions.commits import (
    CommitRow,
    late_create_operations,
    operation_of,
)
from deltaforensics.transactions.isolation import recorded_level

# The commit table's columns the facts carry through unchanged (``is_blind_append`` as
# recorded; ``commit_info`` and ``operation_parameters`` as their texts, shared with the table,
# for the few questions that must decode them).
_CARRIED = (
    "version",
    "is_blind_append",
    "num_added_files",
    "num_removed_files",
    "commit_info",
    "operation_parameters",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitFacts:
    """One row per commit (in version order) of ``frame``: ``version``, ``read_version`` (as the
    transaction has it), ``operation`` (upper-cased, as the transaction names it),
    ``recorded_isolation`` (the level commitInfo's ``isolationLevel`` names, when it names
    one), ``profile`` (an index into :attr:`profiles`), ``changes_metadata``, ``has_app_ids``
    and the carried columns above."""

    frame: pl.DataFrame
    profiles: tuple[Profile, ...]

    def profile_of(self, index: int) -> Profile:
        return self.profiles[index]

    def profiles_seen(self) -> tuple[Profile, ...]:
        """The profiles that wrote at least one commit, in order of their first commit."""
        seen = self.frame.get_column("profile").unique(maintain_order=True).to_list()
        return tuple(self.profiles[i] for i in seen)

    def raced(self) -> pl.DataFrame:
        """The commits rebased over at least one commit they did not read: a known read
        version more than one before their own (``-1``: a create that lost the version-0
        race)."""
        rv, v = pl.col("read_version"), pl.col("version")
        return self.frame.filter(rv.is_not_null() & (rv >= -1) & (rv < v - 1))


def commit_facts(history: CommitHistory) -> CommitFacts:
    """The facts of every commit of ``history``'s replay."""
    commits = history.rep.core_commits
    profiles: list[Profile] = []
    index: dict[int, int] = {}  # id(profile) -> its place in ``profiles``

    def profile_index(engine_info: str | None, client_version: str | None) -> int:
        profile = history.profile(_row(engine_info=engine_info, client_version=client_version))
        if id(profile) not in index:
            index[id(profile)] = len(profiles)
            profiles.append(profile)
        return index[id(profile)]

    def operation(op: str | None, has_commit_info: bool) -> str:
        return operation_of(_row(operation=op, has_commit_info=has_commit_info))

    def isolation(text: str | None) -> str | None:
        level = recorded_level(text)
        return level.value if level is not None else None

    frame = commits.select(
        *_CARRIED,
        pl.col("version").is_in(sorted(history.app_ids)).alias("has_app_ids"),
        _changes(history.md_versions, history.base).alias("changes_metadata"),
        _read_version(history).alias("read_version"),
    ).with_columns(
        by_distinct(
            commits, ("engine_info", "client_version"), profile_index, pl.UInt32(), "profile"
        ),
        by_distinct(commits, ("operation", "has_commit_info"), operation, pl.String(), "operation"),
        by_distinct(commits, ("isolation_level",), isolation, pl.String(), "recorded_isolation"),
    )
    return CommitFacts(frame=frame, profiles=tuple(profiles))


def by_distinct(
    frame: pl.DataFrame,
    columns: Sequence[str],
    fn: Callable[..., Any],
    dtype: pl.DataType,
    name: str,
) -> pl.Series:
    """``fn`` of each row's ``columns``, called once per distinct combination, as the column
    ``name`` (one row per row of ``frame``, in its order)."""
    keys = frame.select(columns).unique(maintain_order=True)
    values = pl.Series("__value", [fn(*row) for row in keys.iter_rows()], dtype=dtype)
    joined = frame.select(columns).join(
        keys.with_columns(values),
        on=list(columns),
        how="left",
        nulls_equal=True,
        maintain_order="left",
    )
    return joined.get_column("__value").alias(name)


def _changes(versions: set[int], base: int) -> pl.Expr:
    """Whether the commit wrote an action of a kind (as ``committed_transaction`` judges it:
    an action at a version after the replay's base)."""
    return pl.col("version").is_in(sorted(versions)) & (pl.col("version") > base)


def _read_version(history: CommitHistory) -> pl.Expr:
    """:func:`~deltaforensics.transactions.commits.read_version_of`'s version, as a column:
    the recorded ``readVersion`` when not negative; ``-1`` for version 0 and for a plain
    create at a later version that writes protocol and metaData; else unknown."""
    v, recorded = pl.col("version"), pl.col("read_version")
    creates = _changes(history.md_versions, history.base) & _changes(
        history.proto_versions, history.base
    )
    late_create = (
        pl.col("operation").fill_null("").str.to_uppercase().is_in(late_create_operations())
        & creates
    )
    return (
        pl.when(recorded.is_not_null() & (recorded >= 0))
        .then(recorded)
        .when((v == 0) | late_create)
        .then(pl.lit(-1, pl.Int64))
        .otherwise(pl.lit(None, pl.Int64))
    )


def _row(**values: Any) -> CommitRow:
    """A commit row holding only ``values`` (the functions given one read no other field)."""
    blank: dict[str, Any] = dict.fromkeys(CommitRow._fields)
    blank.update(has_commit_info=False, version=0)
    blank.update(values)
    return CommitRow(**blank)
