"""``operationMetrics`` as each engine writes them: delta-rs' snake_case numbers, Spark's
camelCase strings, nothing from Kernel-Java.

Part of the writer model (``writers.commit_info`` is the only caller); a module of its own
because the per-operation tables are long and say nothing about the rest of commitInfo. The
counts come from the commit's file actions; durations are seeded random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.support.files import dumps, stats_rows

if TYPE_CHECKING:  # writers imports this module; the types are only annotations here
    from tests.support.writers import CommitDraft, TableView, Writer


@dataclass(frozen=True, slots=True, kw_only=True)
class _Totals:
    """What a commit's file actions add up to; ``ms`` is a made-up duration."""

    n_add: int
    n_rm: int
    add_rows: int
    rm_rows: int
    add_bytes: int
    rm_bytes: int
    changed: int  # rows a DELETE/UPDATE/MERGE is said to have touched
    ms: int


def _totals(draft: CommitDraft, table: TableView) -> _Totals:
    adds, removes = draft.adds, draft.removes
    add_rows = sum(stats_rows(a) for a in adds)
    rm_rows = sum(stats_rows(r) for r in removes) or sum(
        stats_rows(f) for f in table.sources_of(removes)
    )
    changed = (
        (rm_rows - add_rows if rm_rows > add_rows else max(1, rm_rows // 20)) if removes else 0
    )
    return _Totals(
        n_add=len(adds),
        n_rm=len(removes),
        add_rows=add_rows,
        rm_rows=rm_rows,
        add_bytes=sum(a["size"] or 0 for a in adds),
        rm_bytes=sum(r.get("size") or 0 for r in removes),
        changed=changed,
        ms=200 + table.random_below(20_000),
    )


def operation_metrics(
    draft: CommitDraft, writer: Writer, table: TableView
) -> dict[str, Any] | None:
    """The ``operationMetrics`` ``writer`` records for ``draft`` (one seeded random draw);
    ``None`` for Kernel-Java, which records none even when the caller passes some."""
    t = _totals(draft, table)
    if writer.family == "delta-rs":
        return _delta_rs_metrics(draft, t)
    if writer.family == "kernel-java":
        return None
    return _spark_metrics(draft, t)


def _delta_rs_metrics(draft: CommitDraft, t: _Totals) -> dict[str, Any]:
    op, scan, rm_sizes = draft.operation, t.ms // 2, [r.get("size") or 0 for r in draft.removes]
    if op == "OPTIMIZE":
        sizes = [a["size"] for a in draft.adds] or [0]
        return {
            "numFilesAdded": t.n_add, "numFilesRemoved": t.n_rm,
            "filesAdded": dumps({"avg": sum(sizes) / len(sizes), "max": max(sizes), "min": min(sizes), "totalFiles": t.n_add, "totalSize": t.add_bytes}),
            "filesRemoved": dumps({"avg": t.rm_bytes / max(1, t.n_rm), "max": max(rm_sizes or [0]), "min": min(rm_sizes or [0]), "totalFiles": t.n_rm, "totalSize": t.rm_bytes}),
            "partitionsOptimized": len({dumps(a["partitionValues"]) for a in draft.adds}), "numBatches": 1,
            "totalConsideredFiles": t.n_rm, "totalFilesSkipped": 0, "preserveInsertionOrder": True,
            "plannerStrategy": "preserveLocality",
        }  # fmt: skip
    if op in ("WRITE", "STREAMING UPDATE", "CREATE TABLE"):
        rv, v = draft.read_version, draft.version
        retries = v - 1 - rv if rv is not None and v > 0 else 0
        return {
            "num_added_files": t.n_add, "num_removed_files": t.n_rm, "num_partitions": 0,
            "num_added_rows": t.add_rows, "execution_time_ms": t.ms % 50, "num_retries": max(0, retries),
        }  # fmt: skip
    if op in ("DELETE", "UPDATE"):
        key = "num_deleted_rows" if op == "DELETE" else "num_updated_rows"
        return {
            "num_added_files": t.n_add, "num_removed_files": t.n_rm, key: t.changed,
            "num_copied_rows": max(0, t.add_rows - (t.changed if op == "UPDATE" else 0)),
            "execution_time_ms": t.ms % 50, "scan_time_ms": scan % 20, "rewrite_time_ms": 0,
        }  # fmt: skip
    if op == "MERGE":
        return {
            "num_source_rows": t.changed + 10, "num_target_rows_inserted": 10, "num_target_rows_updated": t.changed,
            "num_target_rows_deleted": 0, "num_target_rows_copied": max(0, t.add_rows - t.changed - 10),
            "num_output_rows": t.add_rows, "num_target_files_scanned": t.n_rm, "num_target_files_skipped_during_scan": 0,
            "num_target_files_added": t.n_add, "num_target_files_removed": t.n_rm,
            "execution_time_ms": t.ms % 50, "scan_time_ms": scan % 20, "rewrite_time_ms": 0,
        }  # fmt: skip
    return {}


def _spark_metrics(draft: CommitDraft, t: _Totals) -> dict[str, Any]:
    op, s, scan = draft.operation, str, t.ms // 2
    dvs = sum(1 for a in draft.adds if a.get("deletionVector"))
    if op in ("WRITE", "CREATE TABLE AS SELECT"):
        return {
            "numFiles": s(t.n_add),
            "numOutputRows": s(t.add_rows),
            "numOutputBytes": s(t.add_bytes),
        }
    if op == "STREAMING UPDATE":
        return {"numRemovedFiles": s(t.n_rm), "numOutputRows": s(t.add_rows),
                "numOutputBytes": s(t.add_bytes), "numAddedFiles": s(t.n_add)}  # fmt: skip
    if op in ("DELETE", "UPDATE"):
        out = {
            "numRemovedFiles": s(t.n_rm - dvs), "numRemovedBytes": s(t.rm_bytes), "numCopiedRows": s(max(0, t.add_rows - t.changed)),
            "numDeletionVectorsAdded": s(dvs), "numDeletionVectorsRemoved": "0", "numAddedChangeFiles": "0",
            "executionTimeMs": s(t.ms), "numDeletionVectorsUpdated": "0", "scanTimeMs": s(scan),
            "numAddedFiles": s(t.n_add - dvs), "numAddedBytes": s(t.add_bytes), "rewriteTimeMs": s(t.ms - scan),
        }  # fmt: skip
        out["numDeletedRows" if op == "DELETE" else "numUpdatedRows"] = s(t.changed)
        return out
    if op == "MERGE":
        return {
            "numTargetRowsCopied": s(max(0, t.add_rows - t.changed)), "numTargetRowsDeleted": "0",
            "numTargetFilesAdded": s(t.n_add), "numTargetBytesAdded": s(t.add_bytes), "numTargetBytesRemoved": s(t.rm_bytes),
            "numTargetRowsMatchedUpdated": s(t.changed), "executionTimeMs": s(t.ms), "numTargetRowsInserted": "10",
            "numTargetRowsMatchedDeleted": "0", "scanTimeMs": s(scan), "numTargetRowsUpdated": s(t.changed),
            "numOutputRows": s(t.add_rows), "numTargetRowsNotMatchedBySourceUpdated": "0", "numTargetChangeFilesAdded": "0",
            "numSourceRows": s(t.changed + 10), "numTargetFilesRemoved": s(t.n_rm), "numTargetRowsNotMatchedBySourceDeleted": "0",
            "rewriteTimeMs": s(t.ms - scan),
        }  # fmt: skip
    if op == "OPTIMIZE":
        sizes = sorted(a["size"] for a in draft.adds) or [0]
        pct = [sizes[min(len(sizes) - 1, len(sizes) * q // 4)] for q in (1, 2, 3)]
        return {
            "numRemovedFiles": s(t.n_rm), "numRemovedBytes": s(t.rm_bytes), "p25FileSize": s(pct[0]),
            "numDeletionVectorsRemoved": s(sum(1 for r in draft.removes if r.get("deletionVector"))),
            "minFileSize": s(sizes[0]), "numAddedFiles": s(t.n_add), "maxFileSize": s(sizes[-1]),
            "p75FileSize": s(pct[2]), "p50FileSize": s(pct[1]), "numAddedBytes": s(t.add_bytes),
        }  # fmt: skip
    return {}
