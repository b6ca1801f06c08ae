"""OPTIMIZE (bin-packing or ZORDER BY) and REORG … APPLY (PURGE): the files each would rewrite,
with ``dataChange`` false."""

from __future__ import annotations

import polars as pl

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import (
    matching_files,
    partition_only,
    partition_rows,
    removed_frame,
    rewritten_partitions,
)
from deltaforensics.model.ids import IsolationLevel


def plan_optimize(ctx: AttemptContext) -> WritePlan:
    stmt = ctx.stmt
    cond = stmt.condition
    if cond and ctx.cols and not partition_only(ctx, cond):
        raise ValueError("OPTIMIZE WHERE may only filter on partition columns")
    candidates = matching_files(ctx, cond)
    if not stmt.zorder and not candidates.is_empty():
        # bin-packing leaves partitions that already hold a single file alone
        rows = partition_rows(ctx, candidates)
        keys = [tuple(sorted(r.items())) for r in rows]
        counts: dict[tuple[tuple[str, str | None], ...], int] = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        keep = [i for i, k in enumerate(keys) if counts[k] > 1]
        candidates = candidates[keep] if keep else candidates.clear()
    plan = WritePlan(
        "OPTIMIZE",
        ctx.writer.optimize_parameters(cond, stmt.zorder),
        recorded_blind=ctx.writer.recorded_blind(False),
        recorded_isolation=IsolationLevel.SNAPSHOT_ISOLATION.value,
        data_change=False,
    )
    plan.removed = removed_frame(ctx, candidates, False)
    plan.added = rewritten_partitions(ctx, candidates)
    plan.z_order = stmt.zorder
    if candidates.is_empty():
        ctx.notes.append("nothing to compact: every matching partition holds at most one file")
    return plan


def plan_reorg(ctx: AttemptContext) -> WritePlan:
    """REORG … APPLY (PURGE) rewrites the files that carry a deletion vector (Delta's
    DeltaPurgeOperation.filterFilesToReorg), one by one, through OPTIMIZE's executor."""
    cond = ctx.stmt.condition
    if cond and ctx.cols and not partition_only(ctx, cond):
        raise ValueError("REORG WHERE may only filter on partition columns")
    candidates = matching_files(ctx, cond)
    candidates = candidates.filter(pl.col("dv_id") != "")
    params = {**ctx.writer.optimize_parameters(cond, ()), "applyPurge": "true"}
    params.pop("zOrderBy", None)
    plan = WritePlan(
        "REORG",
        params,
        recorded_blind=ctx.writer.recorded_blind(False),
        recorded_isolation=IsolationLevel.SNAPSHOT_ISOLATION.value,
        data_change=False,
    )
    plan.removed = removed_frame(ctx, candidates, False)
    plan.added = rewritten_partitions(ctx, candidates)
    if candidates.is_empty():
        ctx.notes.append("nothing to purge: no matching file carries a deletion vector")
    return plan
