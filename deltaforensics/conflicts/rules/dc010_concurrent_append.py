"""
## What it detects
A winning commit added files that match what the current transaction read.

## Why Delta raises it
The current result may depend on rows it never saw. Under Serializable every winner add counts;
under WriteSerializable only adds of winners not marked `isBlindAppend=true` — unless the current
transaction changes metadata. OPTIMIZE output counts (its commit is not a blind append). On an
unpartitioned or liquid table any such add matches any reader (no partition precision). delta-rs
matches with partition values and min/max stats; a delta-rs transaction without a predicate
never gets this conflict.

Databricks, per its page "Isolation levels and write conflicts on Azure Databricks": with
row-level concurrency (DBR ≥ 14.2, deletion vectors, no partitions) a DELETE/UPDATE/MERGE fails
only on rows the winner wrote that its condition may match, or on the same condition (cells
"UPDATE, DELETE, MERGE INTO" × INSERT, "Can conflict in Serializable when modifying the same
row", and × "UPDATE, DELETE, MERGE INTO", "Can conflict when modifying the same row"); on a
deletion-vector table OPTIMIZE without ZORDER BY on either side never counts (cells OPTIMIZE ×
"UPDATE, DELETE, MERGE INTO" and OPTIMIZE × OPTIMIZE of both matrices).

## Example
    v11  WRITE  blind append  add date=2024-01-02/part-0.parquet
    v12  MERGE  read_version=10, reads date = '2024-01-02', Serializable   -> DC010
    (the same pair under WriteSerializable commits cleanly)

## How to avoid it
- Partition so the read predicate prunes the winner's files; put literal partition conjuncts
  in MERGE ON / DELETE WHERE (`whatif --partition-by`, `--explicit-merge-predicates`).
- Keep concurrent writers blind appends and use WriteSerializable (`whatif --isolation`).

## Delta source
`ConflictChecker.checkForAddedFilesThatShouldHaveBeenReadByCurrentTxn`.
"""

from __future__ import annotations

import polars as pl

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext, hint, partitions_of, paths
from deltaforensics.conflicts.rules._shared import databricks_tolerates
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.model.words import plural
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    w, lo, profile = ctx.winner, ctx.loser, ctx.profile
    adds = w.written.added
    if (
        not profile.checks_added_files
        or adds.is_empty()
        or (lo.read.reads.blind and profile.blind_loser_shortcut)
    ):
        return None
    iso = ctx.isolation
    if iso is IsolationLevel.SNAPSHOT_ISOLATION:
        return None
    if (
        iso is IsolationLevel.WRITE_SERIALIZABLE
        and ctx.winner_blind
        and not lo.written.changes_metadata
    ):
        return None
    if databricks_tolerates(ctx):
        return None
    confidence = lo.read.reads.confidence
    if profile.stats_matching:
        if ctx.read_whole_table:
            hits = adds
        elif lo.read.reads.full_predicate is None:
            return None
        else:
            hits = ctx.stats_match(adds, lo.read.reads.full_predicate)
    else:
        pred = ctx.read_predicate
        if pred is None:
            return None
        if lo.written.dynamic_partition_overwrite and lo.table.partition_columns:
            written = lo.written.added.select(PARTITION_VALUES).unique()
            hits = adds.join(written, on=PARTITION_VALUES, how="semi")
        elif ctx.read_whole_table or not lo.table.partition_columns:
            hits = adds
        else:
            hits = ctx.partition_match(adds, pred)
    if hits.is_empty():
        return None
    parts = partitions_of(hits, lo)
    where = f"partition {hint(parts)}" if parts else "the root of the table"
    blind_note = (
        ""
        if w.provenance.is_blind_append is not None
        else " (winner recorded no isBlindAppend, so its adds count as changed data)"
    )
    return Hit(
        reason=f"v{w.version} ({w.provenance.operation}) added {plural(hits.height, 'file')} to {where} that this "
        f"transaction read under {iso.value}{blind_note}",
        files=paths(hits),
        partitions=parts,
        confidence=confidence,
    )


RULE = Rule(
    delta_check=Check.CONCURRENT_APPEND,
    name="concurrent-append",
    exception="ConcurrentAppendException",
    error_class="DELTA_CONCURRENT_APPEND",
    partition_hint=True,
    check=check,
    doc=__doc__ or "",
    suggests=("partition-by", "isolation", "explicit-merge-predicates"),
)

__all__ = ["RULE", "pl"]
