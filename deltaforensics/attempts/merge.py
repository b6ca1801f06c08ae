"""MERGE: the files its matched clauses rewrite and the partitions its inserts land in."""

from __future__ import annotations

import polars as pl

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import (
    check_partition_columns,
    matching_files,
    partition_rows,
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
    if rewrites and not stmt.has_not_matched_by_source:
        removed = _in_source_partitions(ctx, removed)
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


def _in_source_partitions(ctx: AttemptContext, files: pl.DataFrame) -> pl.DataFrame:
    """The files a matched clause can rewrite when ON equates a target partition column with
    the source's column of the same name (``t.date = s.date``) and ``writes`` says which
    partition the source covers: a target row matches only inside the source's partitions.
    Delta still *reads* the whole table (no literal conjunct); only the rewrite is narrower."""
    if ctx.writes is None or not ctx.stmt.merge_on or not ctx.cols:
        return files
    keys = {c.lower(): c for c in ctx.cols}
    given = {k.lower(): v for k, v in ctx.writes.items()}
    equated = set()
    for c in conjuncts(parse_predicate(ctx.stmt.merge_on)):
        if isinstance(c, Compare) and c.op == "=":
            left, right = c.left, c.right
            if (
                isinstance(left, Column)
                and isinstance(right, Column)
                and left.key == right.key
                and left.qualifier != right.qualifier
                and left.key in keys
            ):
                equated.add(left.key)
    pinned = {keys[k]: given[k] for k in equated if k in given}
    if not pinned:
        return files
    rows = partition_rows(ctx, files)
    keep = [all(row.get(c) == v for c, v in pinned.items()) for row in rows]
    return files.filter(pl.Series(keep, dtype=pl.Boolean))
