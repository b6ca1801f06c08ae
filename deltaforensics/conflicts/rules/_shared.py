"""Helpers shared by the file-level rules (Databricks tolerances, delta-rs remove filter)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from deltaforensics.conflicts.rule import RuleContext, hint, partitions_of
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


def compared_removes(ctx: RuleContext, *, skip_compaction: bool) -> pl.DataFrame | None:
    """The winner's removes a file-level check compares; ``None`` when there are none or
    Databricks tolerates the pair. ``skip_compaction``: the profile's check ignores
    ``dataChange=false`` removes (compaction)."""
    removes = ctx.winner.removed
    if skip_compaction and removes.height:
        removes = removes.filter(pl.col("data_change").fill_null(True))
    if removes.is_empty() or databricks_tolerates(ctx):
        return None
    return removes


@dataclass(frozen=True, slots=True, kw_only=True)
class RemovedAgain:
    """The winner's removes the loser also read (DC011) or also removed (DC012): both checks
    compare paths only and name the files the same way."""

    files: pl.DataFrame
    partitions: tuple[dict[str, str | None], ...]

    @property
    def example(self) -> str:
        """The first file, and its partition when the table has any."""
        where = f" in partition {hint(self.partitions)}" if self.partitions else ""
        return f"{self.files['path'][0]}{where}"


def removed_again(
    ctx: RuleContext, removes: pl.DataFrame, touched: pl.DataFrame
) -> RemovedAgain | None:
    """The ``removes`` whose path the loser's ``touched`` files also have; ``None`` when none."""
    hits = removes.filter(pl.col("path").is_in(touched["path"].implode()))
    if hits.is_empty():
        return None
    return RemovedAgain(files=hits, partitions=partitions_of(hits, ctx.loser))
