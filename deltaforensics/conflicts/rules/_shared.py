"""Helpers shared by the file-level rules (Databricks tolerances, delta-rs remove filter)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from deltaforensics.conflicts.rule import RuleContext, hint, partitions_of
from deltaforensics.predicates.ir import (
    TRUE,
    Opaque,
    Predicate,
    Unknown,
    all_of,
    column_refs,
    conjuncts,
    walk,
)
from deltaforensics.transactions import Transaction
from deltaforensics.transactions.operations import COMPACTIONS

DML = frozenset({"UPDATE", "DELETE", "MERGE"})


def databricks_tolerates(ctx: RuleContext) -> str | None:
    """Why Databricks would not raise a file-level conflict here, or ``None``.

    The cells of the page "Isolation levels and write conflicts on Azure Databricks" this
    implements: :func:`optimize_tolerated` and :func:`different_rows`.
    """
    if not (ctx.profile.dv_optimize_tolerance or ctx.profile.row_level_concurrency):
        return None
    return optimize_tolerated(ctx) or different_rows(ctx)


def optimize_tolerated(ctx: RuleContext) -> str | None:
    """OPTIMIZE against DML or OPTIMIZE on a deletion-vector table, without ZORDER BY.

    Page cells: "without row-level concurrency", row OPTIMIZE × columns "UPDATE, DELETE, MERGE
    INTO" and OPTIMIZE: "Cannot conflict with in tables with deletion vectors enabled, unless
    ZORDER BY is used"; "with row-level concurrency", the same cells: "Can conflict when ZORDER
    BY is used. Cannot conflict otherwise." A ZORDER BY on either side is "used", so a ZORDER
    loser is not tolerated against a plain OPTIMIZE winner any more than the reverse.
    """
    w, lo = ctx.winner, ctx.loser
    if not (ctx.profile.dv_optimize_tolerance and lo.table.has_deletion_vectors):
        return None
    if w.written.z_order or lo.written.z_order:
        return None
    if (w.provenance.operation in COMPACTIONS and lo.provenance.operation in DML | COMPACTIONS) or (
        lo.provenance.operation in COMPACTIONS and w.provenance.operation in DML
    ):
        return "Databricks: OPTIMIZE without ZORDER BY does not conflict with DML or OPTIMIZE on deletion-vector tables"
    return None


def different_rows(ctx: RuleContext) -> str | None:
    """Row-level concurrency: a DML loser and a winner that changed rows (DML) or appended
    them did not touch the same row.

    Page cells, "with row-level concurrency": row "UPDATE, DELETE, MERGE INTO" × column
    "UPDATE, DELETE, MERGE INTO": "Can conflict when modifying the same row"; the same row ×
    column INSERT: "Cannot conflict in WriteSerializable. Can conflict in Serializable when
    modifying the same row" (the isolation part is the added-files check's own). "Limitations
    for row-level concurrency": conditions the model cannot read (non-deterministic, subqueries,
    complex types) resolve as without row-level concurrency.
    """
    w, lo = ctx.winner, ctx.loser
    if not (ctx.row_level_concurrency and lo.provenance.operation in DML):
        return None
    if (
        lo.provenance.operation == "MERGE"
        and ctx.profile.merge_row_level_needs_photon
        and not ctx.profile.photon
    ):
        return None  # "MERGE INTO support for row-level concurrency requires Photon" (DBR 14.2)
    if not (
        w.provenance.operation in DML or (w.written.removed.is_empty() and w.written.added.height)
    ):
        return None
    mine, theirs = row_condition(lo), row_condition(w)
    if (
        mine is None
        or not readable(mine)
        or (w.provenance.operation in DML and not readable(theirs))
    ):
        return None
    if same_rows(ctx, mine, theirs):
        return None
    return "Databricks row-level concurrency: the two commits modified different rows"


def row_condition(t: Transaction) -> Predicate | None:
    """The rows a DML statement can have modified, as its recorded condition shows them.

    DELETE and UPDATE: their condition. MERGE: the ON conjuncts that compare one column with
    literals, its "explicit predicate on the target table" (Limitations); conjuncts joining the
    source say nothing about which target rows, and in Spark's resolved ``simpleString`` a
    target and a source attribute look alike, so a literal conjunct is read as the target's.
    """
    pred = t.read.reads.full_predicate
    if pred is None or t.provenance.operation != "MERGE":
        return pred
    return all_of(*(c for c in conjuncts(pred) if len(column_refs(c)) == 1))


def readable(pred: Predicate | None) -> bool:
    return pred is not None and not any(isinstance(n, Unknown | Opaque) for n in walk(pred))


def same_rows(ctx: RuleContext, mine: Predicate, theirs: Predicate | None) -> bool:
    """Whether the log shows the two commits touching a common row.

    The log names no rows, so two things count: rows the winner wrote whose statistics may
    satisfy the loser's condition, so the loser would have modified them had it seen them; and
    the same non-trivial condition on both sides. The rows a winner wrote are the files of an
    append, or the new files beside the deletion-vector re-adds of files it changed in place; a
    copy-on-write rewrite mixes the rows it kept with those it changed, so only its condition
    tells. Two deletion vectors on one file are the case row-level concurrency exists for, so
    sharing files alone is not enough.
    """
    written = rows_written(ctx.winner)
    if written is not None and written.height and ctx.stats_match(written, mine).height:
        return True
    return theirs is not None and mine == theirs and mine != TRUE


def rows_written(w: Transaction) -> pl.DataFrame | None:
    """The winner's adds that hold only rows it wrote; ``None`` when the log cannot tell them
    from rows it copied (a copy-on-write rewrite)."""
    if w.written.removed.is_empty():
        return w.written.added
    in_place = w.written.added["path"].is_in(w.written.removed["path"].implode())
    if not bool(in_place.any()):
        return None
    return w.written.added.filter(~in_place)


def compared_removes(ctx: RuleContext, *, skip_compaction: bool) -> pl.DataFrame | None:
    """The winner's removes a file-level check compares; ``None`` when there are none or
    Databricks tolerates the pair. ``skip_compaction``: the profile's check ignores
    ``dataChange=false`` removes (compaction)."""
    removes = ctx.winner.written.removed
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
