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
from deltaforensics.statements import UNKNOWN


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
    """Where a MERGE's inserts land: ``writes``, literal partition equalities in ON, or for
    ``INSERT *`` from an inline VALUES source the one value its rows give the column."""
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
    if all(clause.star for clause in ctx.stmt.clauses if clause.kind == "not_matched"):
        for name, values in _source_partition_values(ctx).items():
            if len(values) == 1:
                found.setdefault(name, next(iter(values)))
    return {c: found.get(c) for c in ctx.cols}


def _source_partition_values(ctx: AttemptContext) -> dict[str, set[str | None]]:
    """Each partition column's values over an inline VALUES source's rows (a column any row
    leaves unknown is left out)."""
    keys = {c.lower(): c for c in ctx.cols}
    found: dict[str, set[str | None]] = {}
    for name, values in ctx.stmt.source_values:
        if name in keys and UNKNOWN not in values:
            found[keys[name]] = {None if v is None else partition_text(v) for v in values}
    return found


def _in_source_partitions(ctx: AttemptContext, files: pl.DataFrame) -> pl.DataFrame:
    """The files a matched clause can rewrite when ON equates a target partition column with
    the source's column of the same name (``t.date = s.date``) and ``writes`` or the inline
    VALUES source says which partitions the source covers: a target row matches only inside
    them. Delta still *reads* the whole table (no literal conjunct); only the rewrite is
    narrower."""
    if not ctx.stmt.merge_on or not ctx.cols:
        return files
    keys = {c.lower(): c for c in ctx.cols}
    given: dict[str, set[str | None]] = {
        k.lower(): v for k, v in _source_partition_values(ctx).items()
    }
    if ctx.writes is not None:
        given = {k.lower(): {v} for k, v in ctx.writes.items()}
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
    keep = [all(row.get(c) in v for c, v in pinned.items()) for row in rows]
    return files.filter(pl.Series(keep, dtype=pl.Boolean))
