"""
## What it detects
Both commits removed the same file.

## Why Delta raises it
Two transactions rewrote or deleted the same data; committing both would resurrect or
duplicate rows. Delta-Spark compares paths only, regardless of `dataChange`. deltalake 1.6.6
skips `dataChange=false` removes here (measured: two concurrent `optimize.compact()` both
commit and duplicate data; field notes §3.3 O5), which is why anomaly AN001 exists; 0.25.5
to 1.6.3 refuse the pair (measured, docs/fidelity.md) and delta-rs main's suite expects the
refusal again (`test_concurrent_compaction_double_delete_still_conflicts`). In Delta-Spark
it mostly appears for writers that register no read files (dynamic partition overwrite),
because the delete-read check runs first.

Databricks (page "Isolation levels and write conflicts on Azure Databricks"): with row-level
concurrency two DML commits that share a file fail only when the log shows them touching the
same row (cells "UPDATE, DELETE, MERGE INTO" × "UPDATE, DELETE, MERGE INTO"); on a
deletion-vector table OPTIMIZE without ZORDER BY on either side does not fail against DML or
OPTIMIZE (cells OPTIMIZE × "UPDATE, DELETE, MERGE INTO" and OPTIMIZE × OPTIMIZE).

## Example
    v5  DELETE WHERE date = 'A'                     removes date=A/f.parquet
    v6  INSERT OVERWRITE (dynamic) date=A, read at v4 -> DC012 ConcurrentDeleteDeleteException

## How to avoid it
- Serialise the writers that rewrite or overwrite the same partitions.

## Delta source
`ConflictChecker.checkForDeletedFilesAgainstCurrentTxnDeletedFiles`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext, paths
from deltaforensics.conflicts.rules._shared import (
    compared_removes,
    removed_again,
)
from deltaforensics.model.words import plural
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    w, lo = ctx.winner, ctx.loser
    if lo.written.removed.is_empty():
        return None
    removes = compared_removes(
        ctx, skip_compaction=ctx.profile.delete_delete_skips_compaction_removes
    )
    if removes is None:
        return None
    hits = removed_again(ctx, removes, lo.written.removed)
    if hits is None:
        return None
    return Hit(
        reason=f"v{w.version} ({w.provenance.operation}) and this transaction both removed "
        f"{plural(hits.files.height, 'file')} (for example {hits.example})",
        files=paths(hits.files),
        partitions=hits.partitions,
    )


RULE = Rule(
    delta_check=Check.CONCURRENT_DELETE_DELETE,
    name="concurrent-delete-delete",
    exception="ConcurrentDeleteDeleteException",
    error_class="DELTA_CONCURRENT_DELETE_DELETE",
    partition_hint=True,
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
