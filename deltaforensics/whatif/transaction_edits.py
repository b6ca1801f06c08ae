"""The edits a what-if change makes to one transaction: its read predicate narrowed to the
partitions it touched, the isolation level a table property would give, ``isBlindAppend`` set
on a pure append, deletion vectors on the table (:mod:`.transform` applies them to pairs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from deltaforensics.model.frames import partition_value_exprs
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.ir import all_of
from deltaforensics.predicates.operations import parse_operation_predicates
from deltaforensics.predicates.partition import written_partitions_predicate
from deltaforensics.profiles import parse_isolation
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.layout import UNKNOWN

APPEND_OPERATIONS = frozenset({"WRITE", "STREAMING UPDATE"})


def touched_partitions(t: Transaction) -> list[dict[str, str | None]]:
    """Distinct partition values (logical names) of the files ``t`` added or removed."""
    if not t.table.partition_columns:
        return []
    frames = [
        f
        for f in (t.written.added, t.written.removed)
        if f.height and PARTITION_VALUES in f.columns
    ]
    if not frames:
        return []
    if UNKNOWN in frames[0].columns:
        frames = [f.filter(~pl.col(UNKNOWN)) for f in frames]
    pv = pl.concat([f.select(PARTITION_VALUES) for f in frames], how="vertical")
    exprs = partition_value_exprs(
        pv.schema[PARTITION_VALUES], t.table.partition_columns, t.table.physical_names
    )
    return pv.select(exprs).unique(maintain_order=True).to_dicts()


def explicit_predicates(t: Transaction, operations: Sequence[str]) -> Transaction:
    """``t`` with literal conjuncts for the partitions it touched in its condition."""
    reads = t.read.reads
    if (
        t.provenance.operation not in operations
        or not t.table.partition_columns
        or reads.partition_predicate is None
    ):
        return t
    touched = touched_partitions(t)
    if not touched:
        return t
    literal = written_partitions_predicate(touched)
    if t.provenance.profile.stats_matching:
        full = (
            literal
            if reads.whole_table or reads.full_predicate is None
            else all_of(reads.full_predicate, literal)
        )
        return t.with_reads(
            replace(reads, partition_predicate=literal, full_predicate=full, whole_table=False)
        )
    info = parse_operation_predicates(t.provenance.operation, t.provenance.parameters)
    if info.has_not_matched_by_source or reads.whole_table:
        return t  # Delta reads the whole table whatever the ON condition says
    full = literal if reads.full_predicate is None else all_of(reads.full_predicate, literal)
    narrowed = all_of(reads.partition_predicate, literal)
    return t.with_reads(replace(reads, partition_predicate=narrowed, full_predicate=full))


def with_isolation(t: Transaction, value: str) -> Transaction:
    """The level ``t``'s engine would use with ``delta.isolationLevel = value``: commits the
    engine downgraded (SnapshotIsolation) or ran through commitLarge keep theirs."""
    if t.read.isolation is IsolationLevel.SNAPSHOT_ISOLATION or t.provenance.is_commit_large:
        return t
    level = parse_isolation(value, t.provenance.profile)
    if level is None:
        level = t.provenance.profile.default_isolation
        source = f"what-if: {t.provenance.profile.engine} does not parse delta.isolationLevel={value}; its default"
    else:
        source = f"what-if: table property delta.isolationLevel={value}"
    if level is t.read.isolation:
        return t
    return replace(t, read=replace(t.read, isolation=level, isolation_source=source))


def is_pure_append(t: Transaction) -> bool:
    if t.provenance.operation not in APPEND_OPERATIONS:
        return False
    adds, removes = t.written.file_counts
    return (
        adds > 0
        and removes == 0
        and not t.written.changes_metadata
        and (
            t.read.reads.partition_predicate is None
            or (t.provenance.profile.appends_read_all_files and t.read.reads.full_predicate is None)
        )
        and str(
            t.provenance.parameters.get("mode")
            or t.provenance.parameters.get("outputMode")
            or "Append"
        ).lower()
        == "append"
    )


def marked_blind(t: Transaction) -> Transaction:
    if t.provenance.is_blind_append is True or not is_pure_append(t):
        return t
    return replace(t, provenance=replace(t.provenance, is_blind_append=True))


def with_deletion_vectors(t: Transaction) -> Transaction:
    return replace(t, table=replace(t.table, has_deletion_vectors=True))


SIMULATED_SOURCE = "attempt"  # ``source`` of the file rows the attempt simulator makes up


def simulated(t: Transaction) -> bool:
    """Whether ``t``'s files were made up from its SQL (an ``--attempt``), not recorded."""
    return any(
        f.height and "source" in f.columns and (f["source"] == SIMULATED_SOURCE).any()
        for f in (t.written.added, t.written.removed)
    )
