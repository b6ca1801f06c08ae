"""Helpers shared by the file-level rules (Databricks tolerances, delta-rs remove filter)."""

from __future__ import annotations

import polars as pl

from deltaforensics.conflicts.rule import RuleContext
from deltaforensics.predicates.ir import TRUE

DML = frozenset({"UPDATE", "DELETE", "MERGE"})


def databricks_tolerates(ctx: RuleContext) -> str | None:
    """Why Databricks would not raise a file-level conflict here, or ``None``."""
    if not (ctx.profile.dv_optimize_tolerance or ctx.profile.row_level_concurrency):
        return None
    w, lo = ctx.winner, ctx.loser
    if ctx.profile.dv_optimize_tolerance and lo.has_deletion_vectors:
        if w.operation == "OPTIMIZE" and not w.z_order and lo.operation in DML | {"OPTIMIZE"}:
            return "Databricks: OPTIMIZE without ZORDER BY does not conflict with DML on deletion-vector tables"
        if lo.operation == "OPTIMIZE" and not lo.z_order and w.operation in DML:
            return "Databricks: OPTIMIZE without ZORDER BY does not conflict with DML on deletion-vector tables"
    if (
        ctx.row_level_concurrency
        and w.operation in DML
        and lo.operation in DML
        and not same_rows(ctx)
    ):
        return "Databricks row-level concurrency: the two DML commits modified different rows"
    return None


def same_rows(ctx: RuleContext) -> bool:
    """Whether two DML commits surely touched the same rows: the log names no rows, so only
    identical DELETE/UPDATE conditions say so (a MERGE ON condition joins a source, so equal
    text says nothing). Two deletion vectors on one file are the case row-level concurrency
    exists for, so sharing files is not enough."""
    w, lo = ctx.winner, ctx.loser
    if {w.operation, lo.operation} - {"DELETE", "UPDATE"}:
        return False
    a, b = w.full_predicate, lo.full_predicate
    return a is not None and a == b and a != TRUE


def winner_removes(ctx: RuleContext, *, skip_compaction: bool) -> pl.DataFrame:
    """The winner's removes a file-level check compares; ``skip_compaction``: the profile's
    check ignores ``dataChange=false`` removes (compaction)."""
    removes = ctx.winner.removed
    if skip_compaction and removes.height:
        removes = removes.filter(pl.col("data_change").fill_null(True))
    return removes
