"""Harvested failures whose statement is known, as ``--attempt`` specs: the failed statement is
re-checked against the table's log as a pasted ``--attempt`` would be, and its fix measured.

The statement is the source's own SQL text (the query history's ``query_text``, an OpenLineage
``sql`` job facet, an event log's SQL description); a call site or a plan operator is no
statement and gives no attempt. The read version is bounded from the start time by Delta's
time-travel rule (``VERSION AS OF`` a timestamp: the latest commit at or before it, by
``inCommitTimestamp`` when the commit has one, else ``commitInfo.timestamp`` —
``deltaforensics.attempts.read_version`` applies the same rule to a replay), and is always
below the winner's version (the loser read before the winner committed).
"""

from __future__ import annotations

from collections.abc import Iterable

from deltaforensics.attempts.specs import AttemptSpec
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.failures.records import HarvestedConflict, TableCommits
from deltaforensics.statements.parse import parse_statement


def read_version_bound(table: TableCommits, started_at: int, winner: int | None) -> int | None:
    """The version a statement started at ``started_at`` (ms) read: the latest commit at or
    before it, kept below ``winner``; None when no commit of ``table`` is that old."""
    at_or_before = [
        c.version
        for c in table.commits
        if (ts := c.in_commit_timestamp or c.timestamp) is not None and ts <= started_at
    ]
    if not at_or_before:
        return None
    version = max(at_or_before)
    return min(version, winner - 1) if winner is not None and winner > 0 else version


def harvested_attempts(
    conflicts: Iterable[HarvestedConflict], table: TableCommits
) -> list[AttemptSpec]:
    """One attempt per conflict of ``table`` whose statement parses as SQL the attempt
    evidence reads, read version bounded from its start time (omitted when it cannot be)."""
    specs: list[AttemptSpec] = []
    seen: set[tuple[str, int | None]] = set()
    for conflict in conflicts:
        sql = conflict.statement
        if conflict.table != table.name or not sql:
            continue
        try:
            parse_statement(sql)
        except (DeltaForensicsError, ValueError):
            continue  # a call site, an operator's name, SQL the attempts do not read
        started = conflict.started_at
        version = (
            read_version_bound(table, started, conflict.winner_version)
            if started is not None
            else None
        )
        if (sql, started) in seen:
            continue
        seen.add((sql, started))
        specs.append(AttemptSpec(sql=sql, read_version=version, started_at_ms=None))
    return specs
