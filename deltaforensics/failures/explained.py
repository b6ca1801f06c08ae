"""Harvested failures as one analysed table's conflicts (issue #33): kept when they are this
table's, explained against its history like a pasted ``--error`` text, and one finding per
failure however many records (and pasted texts) show it.

Pure: the failed statements were read by :mod:`deltaforensics.sources` (the CLI's
``--failures-from``, or the audit's ``[[failures]]`` sources with their cursors).

A failure is this table's only when :func:`~deltaforensics.failures.harvest_conflicts` matches
it to the table's analysed commits (the winner's commitInfo: timestamp and operation, plus
readVersion, userMetadata, txnId where present; or the table named in the message or the
plan), and its winner is one of those commits: a failure of another table, or of this table
outside the analysed range, is never counted. Only failures inside the window count: the
failure's time (else its start) within ``[since_ms, until_ms]``; an undated one is kept when
its winner matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deltaforensics.evidence.winners import ErrorConflict, explain_error, match_winner
from deltaforensics.failures.matching import SAME_MOMENT_MS, harvest_conflicts, normalize_location
from deltaforensics.failures.records import (
    FailedStatement,
    Harvest,
    HarvestedConflict,
    TableCommits,
)

_DELTA_LOCATION = re.compile(r"delta\.`([^`]+)`")


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFailures:
    """What the harvest gave one table: its conflicts explained (pasted ones merged in), and
    the harvest itself (its unmatched conflicts and other failures, for counting)."""

    conflicts: tuple[ErrorConflict, ...]
    harvest: Harvest


def analysed_table(
    name: str, location: str, commit_infos: Iterable[tuple[int, Mapping[str, object]]]
) -> TableCommits:
    """The table as the matching sees it: its analysed commits' commitInfo."""
    return TableCommits.from_commit_infos(name, location, commit_infos)


def window_of(
    table: TableCommits, since_ms: int | None, until_ms: int | None
) -> tuple[int | None, int | None]:
    """``--since``/``--until`` when given, else the analysed commits' time span: from the first
    analysed commit on (a loser fails after its winner committed), open at the end (a loser
    fails when it tries to commit, which may be long after its winner)."""
    if since_ms is not None or until_ms is not None:
        return since_ms, until_ms
    times = [c.timestamp for c in table.commits if c.timestamp is not None]
    return (min(times) if times else None), None


def table_failures(
    failures: Iterable[FailedStatement],
    table: TableCommits,
    txns: Sequence[Any],
    first_version: int,
    *,
    pasted: Sequence[ErrorConflict] = (),
    since_ms: int | None = None,
    until_ms: int | None = None,
) -> TableFailures:
    """This table's harvested conflicts, each explained as a pasted error is, followed by the
    pasted ones no harvested record already shows (``pasted`` keep their order first)."""
    since, until = window_of(table, since_ms, until_ms)
    found = harvest_conflicts((f for f in failures if _in_window(f, since, until)), [table])
    versions = {c.version for c in table.commits}
    harvested = [
        _explained(c, txns, first_version)
        for c in found.conflicts
        if (c.winner_version is None or c.winner_version in versions)
        and not _names_another(c.evidence.table_name, table.location)
    ]
    harvested.sort(key=lambda c: (c.failed_at or c.started_at or 0, c.winner_version or -1))
    kept_pasted: list[ErrorConflict] = []
    for p in pasted:
        for i, h in enumerate(harvested):
            if _same_failure(p, h):
                harvested[i] = replace(h, records=tuple(dict.fromkeys((*h.records, *p.records))))
                break
        else:
            kept_pasted.append(p)
    return TableFailures(conflicts=(*kept_pasted, *harvested), harvest=found)


def _names_another(table_name: str | None, location: str) -> bool:
    """Whether the message names another table's location (``delta.`<location>```) in the same
    kind of address as this one's: then it is that table's, whatever its commitInfo matches
    here. Addresses of different kinds (a ``dbfs:/mnt`` mount, the ``abfss://`` it mounts)
    cannot be compared and decide nothing."""
    quoted = _DELTA_LOCATION.fullmatch((table_name or "").strip())
    if quoted is None:
        return False
    named, ours = normalize_location(quoted.group(1)), normalize_location(location)
    return _scheme(named) == _scheme(ours) and named != ours


def _scheme(location: str) -> str:
    return location.partition("://")[0] if "://" in location else ""


def _in_window(f: FailedStatement, since: int | None, until: int | None) -> bool:
    moment = f.failed_at if f.failed_at is not None else f.started_at
    if moment is None:
        return True
    return (since is None or moment >= since) and (until is None or moment <= until)


def _explained(c: HarvestedConflict, txns: Sequence[Any], first_version: int) -> ErrorConflict:
    evidence = c.evidence
    if c.winner_version is not None and evidence.winner_version != c.winner_version:
        evidence = replace(evidence, winner_version=c.winner_version)  # matched by commitInfo
    found = explain_error(evidence, match_winner(evidence, txns, first_version), txns)
    f = c.failure
    return replace(
        found,
        source=f.source_kind,
        app_id=f.app_id,
        started_at=f.started_at,
        failed_at=f.failed_at,
        statement=f.statement,
        records=c.sources or (f.source,),
    )


def _same_failure(pasted: ErrorConflict, harvested: ErrorConflict) -> bool:
    """A pasted text showing a harvested failure: same winner version and exception, and the
    pasted text's time (when it has one) within a second of the failure's or its start."""
    if (pasted.winner_version, pasted.exception) != (
        harvested.winner_version,
        harvested.exception,
    ):
        return False
    if pasted.winner_version is None or pasted.observed_at is None:
        return pasted.winner_version is not None
    return any(
        t is not None and abs(t - pasted.observed_at) <= SAME_MOMENT_MS
        for t in (harvested.failed_at, harvested.started_at)
    )
