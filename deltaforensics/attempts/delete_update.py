"""DELETE and UPDATE: remove the live files the condition may match, rewrite their partitions."""

from __future__ import annotations

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import (
    matching_files,
    partition_only,
    removed_frame,
    rewritten_partitions,
)


def plan_delete_or_update(ctx: AttemptContext) -> WritePlan:
    stmt = ctx.stmt
    cond = stmt.condition
    removed = matching_files(ctx, cond)
    params = ctx.writer.condition_parameters(cond)
    plan = WritePlan(stmt.kind, params, recorded_blind=ctx.writer.recorded_blind(False))
    plan.removed = removed_frame(ctx, removed, True)
    metadata_only = stmt.kind == "DELETE" and partition_only(ctx, cond)
    plan.added = [] if metadata_only else rewritten_partitions(ctx, removed)
    if stmt.kind == "UPDATE" and any(
        c.lower() in {p.lower() for p in ctx.cols} for c in stmt.set_columns
    ):
        ctx.lower(
            "medium", "the UPDATE sets a partition column, so it also writes into other partitions"
        )
    return plan
