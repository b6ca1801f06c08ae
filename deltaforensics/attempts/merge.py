"""MERGE: the files its matched clauses rewrite and the partitions its inserts land in."""

from __future__ import annotations

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import (
    check_partition_columns,
    matching_files,
    partition_text,
    removed_frame,
    rewritten_partitions,
)
from deltaforensics.predicates.ir import Column, Compare, Literal, conjuncts
from deltaforensics.predicates.parse import parse_predicate


def plan_merge(ctx: AttemptContext) -> WritePlan:
    stmt = ctx.stmt
    rewrites = stmt.has_matched or stmt.has_not_matched_by_source
    params = ctx.writer.merge_parameters(stmt)
    removal = None if stmt.has_not_matched_by_source else stmt.target_only_on
    removed = matching_files(ctx, removal) if rewrites else ctx.live.clear()
    plan = WritePlan("MERGE", params, recorded_blind=ctx.writer.recorded_blind(False))
    plan.removed = removed_frame(ctx, removed, True)
    plan.added = rewritten_partitions(ctx, removed)
    if stmt.has_not_matched:
        inserted = _merge_insert_partitions(ctx)
        if inserted not in [p for p, _ in plan.added]:
            plan.added.append((inserted, None))
    return plan


def _merge_insert_partitions(ctx: AttemptContext) -> dict[str, str | None]:
    """Where a MERGE's inserts land: ``writes``, or literal partition equalities in ON."""
    if ctx.writes is not None:
        check_partition_columns(ctx, list(ctx.writes), "writes")
        return {
            c: next((str(v) for k, v in ctx.writes.items() if k.lower() == c.lower()), None)
            for c in ctx.cols
        }
    found: dict[str, str | None] = {}
    if ctx.stmt.target_only_on and ctx.cols:
        keys = {c.lower(): c for c in ctx.cols}
        for c in conjuncts(parse_predicate(ctx.stmt.target_only_on)):
            if isinstance(c, Compare) and c.op == "=":
                col, lit = (c.left, c.right) if isinstance(c.left, Column) else (c.right, c.left)
                if isinstance(col, Column) and isinstance(lit, Literal) and col.key in keys:
                    found[keys[col.key]] = partition_text(lit.value)
    return {c: found.get(c) for c in ctx.cols}
