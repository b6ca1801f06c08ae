"""
## What it detects
A winning commit removed a file that the current transaction read.

## Why Delta raises it
What the current transaction computed from that file may no longer be true. Any winner remove
counts when the current transaction read the whole table. Delta-Spark compares paths only and
ignores `dataChange`; delta-rs (≥ python-v1.3.0) ignores `dataChange=false` removes and counts
every file of its snapshot as read when it has no predicate (plain appends, OPTIMIZE).

Databricks (page "Isolation levels and write conflicts on Azure Databricks"): with row-level
concurrency two DML commits that share a file fail only when the log shows them touching the
same row (cells "UPDATE, DELETE, MERGE INTO" × "UPDATE, DELETE, MERGE INTO"); on a
deletion-vector table OPTIMIZE without ZORDER BY on either side does not fail against DML or
OPTIMIZE (cells OPTIMIZE × "UPDATE, DELETE, MERGE INTO" and OPTIMIZE × OPTIMIZE).

## Example
    v8  DELETE WHERE date = '2024-01-02'          removes date=2024-01-02/a.parquet
    v9  MERGE ON t.id = s.id (no literal), read at v7 -> DC011 ConcurrentDeleteReadException

## How to avoid it
- Tighter predicates with literal partition conjuncts; schedule OPTIMIZE apart from DML.

## Delta source
`ConflictChecker.checkForDeletedFilesAgainstCurrentTxnReadFiles`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext, paths
from deltaforensics.conflicts.rules._shared import (
    compared_removes,
    removed_again,
)
from deltaforensics.model.words import plural
from deltaforensics.profiles import Check
from deltaforensics.transactions.operations import COMPACTIONS


def check(ctx: RuleContext) -> Hit | None:
    w, lo = ctx.winner, ctx.loser
    if not ctx.profile.checks_read_files or lo.read.reads.blind:
        return None
    removes = compared_removes(
        ctx, skip_compaction=ctx.profile.delete_read_skips_compaction_removes
    )
    if removes is None:
        return None
    if ctx.read_whole_table:
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) removed {plural(removes.height, 'file')} (for example "
            f"{removes['path'][0]}) and this transaction read the whole table",
            files=paths(removes),
        )
    read = ctx.read_files_among(removes["path"])
    confidence = lo.read.reads.confidence
    if read is None:
        read = lo.written.removed
        confidence = "low"
    if read.is_empty():
        return None
    hits = removed_again(ctx, removes, read)
    if hits is None:
        return None
    return Hit(
        reason=f"v{w.version} ({w.provenance.operation}) removed {plural(hits.files.height, 'file')} this transaction "
        f"read (for example {hits.example})",
        files=paths(hits.files),
        partitions=hits.partitions,
        confidence="medium"
        if confidence == "high" and lo.provenance.operation not in COMPACTIONS
        else confidence,
    )


RULE = Rule(
    delta_check=Check.CONCURRENT_DELETE_READ,
    name="concurrent-delete-read",
    exception="ConcurrentDeleteReadException",
    error_class="DELTA_CONCURRENT_DELETE_READ",
    partition_hint=True,
    check=check,
    doc=__doc__ or "",
    suggests=("partition-by", "explicit-merge-predicates", "schedule"),
)
