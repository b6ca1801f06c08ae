"""A transaction under a new partition layout (``PartitionBy``) or none (``Liquid``).

Its files are re-labelled (:mod:`deltaforensics.whatif.layout`); what it reads there is the
partition part of its recorded condition for the new columns, extracted the way its engine
does it (§A.2, §A.9); what it writes is what it reads intersected with its files' pieces. The
statement's own condition decides first (:mod:`deltaforensics.whatif.footprint`): a file whose
span the statistics cannot tell becomes one piece per partition the condition pins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.ir import TRUE, Predicate, TrueExpr
from deltaforensics.predicates.operations import parse_operation_predicates
from deltaforensics.predicates.partition import (
    partition_read_predicate,
    partition_read_predicate_for,
    written_partitions_predicate,
)
from deltaforensics.predicates.to_polars import to_polars
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.footprint import describe, moves_rows, pinned_values
from deltaforensics.whatif.layout import HIVE_NULL, UNKNOWN, Layout


def unpartitioned(t: Transaction, *, clustered: bool) -> Transaction:
    """No partition columns: Delta-Spark has no partition precision (A.6.2)."""
    read = None if t.read.reads.partition_predicate is None else TRUE
    table = replace(t.table, partition_columns=(), physical_names={}, clustered=clustered)
    return replace(t, table=table).with_reads(replace(t.read.reads, partition_predicate=read))


def new_read_predicate(t: Transaction, columns: Sequence[str]) -> Predicate | None:
    """What ``t`` would read on a table partitioned by ``columns``: the partition part of its
    recorded condition for those columns, the way its engine extracts it (§A.2, §A.9)."""
    if t.read.reads.partition_predicate is None:
        return None
    if t.read.reads.whole_table:
        return TRUE
    if t.provenance.profile.stats_matching:
        if t.read.reads.full_predicate is None:
            return t.read.reads.partition_predicate
        return partition_read_predicate(t.read.reads.full_predicate, columns).predicate
    info = parse_operation_predicates(t.provenance.operation, t.provenance.parameters)
    if not info.reads or info.source == "written-partitions":
        return t.read.reads.partition_predicate
    return partition_read_predicate_for(info, columns).predicate


def _write_filter(t: Transaction, columns: Sequence[str], read: Predicate | None) -> Predicate:
    """The partitions ``t`` writes are those it reads (intersected with its files' ranges)."""
    if t.read.reads.blind or read is None:
        return TRUE
    if t.provenance.profile.stats_matching:
        if t.read.reads.full_predicate is None or t.read.reads.whole_table:
            return TRUE
        op = t.provenance.operation
        return partition_read_predicate(
            t.read.reads.full_predicate, columns, extract_disjunctions=op in ("DELETE", "UPDATE")
        ).predicate
    return read


def repartitioned(
    t: Transaction, layout: Layout, added: pl.DataFrame, removed: pl.DataFrame
) -> tuple[Transaction, str | None, str]:
    """``t`` in ``layout``, given its adds and removes re-labelled; why its footprint is
    unknown (or None), and which evidence decided it.

    The statement's own condition decides first: where it pins every new column to literal
    values (:func:`~deltaforensics.whatif.footprint.pinned_values`), the pieces of a file whose
    span the statistics cannot tell are those pinned partitions. Statistics decide the rest."""
    cols = layout.columns
    read = new_read_predicate(t, cols)
    if t.written.dynamic_partition_overwrite:
        values = added.filter(~pl.col(UNKNOWN)).select(PARTITION_VALUES).unique()
        rows = [row[PARTITION_VALUES] for row in values.iter_rows(named=True)]
        read = written_partitions_predicate(rows) if rows else TRUE
    pinned = None if t.read.reads.blind else pinned_values(read, cols)
    keep = _write_filter(t, cols, read)
    if not isinstance(keep, TrueExpr):
        expr = to_polars(
            keep, name_map={c: c for c in cols}, types=t.table.column_types, fields=cols
        )
        added = added.filter(expr | pl.col(UNKNOWN))
        removed = removed.filter(expr | pl.col(UNKNOWN))
    unknown_before = int(added[UNKNOWN].sum()) + int(removed[UNKNOWN].sum())
    if pinned is not None and unknown_before:
        removed = pinned_pieces(removed, pinned, cols)
        if not moves_rows(t, cols):
            added = pinned_pieces(added, pinned, cols)
    unknown_rows = int(added[UNKNOWN].sum()) + int(removed[UNKNOWN].sum())
    rewritten = replace(
        t,
        written=replace(t.written, added=added, removed=removed),
        table=replace(
            t.table, partition_columns=cols, physical_names={c: c for c in cols}, clustered=False
        ),
    ).with_reads(replace(t.read.reads, partition_predicate=read))
    evidence = _evidence(t, layout, pinned, unknown_before)
    why = None
    if unknown_rows:
        missing = ", ".join(layout.unknown_columns) or ", ".join(cols)
        why = (
            f"{t.name} touched file(s) without min/max statistics for {missing} (or spanning "
            "too many values) and its condition does not pin "
            f"{'them' if len(cols) > 1 else 'it'}, so its footprint in the new layout is unknown"
        )
    return rewritten, why, evidence


def _evidence(
    t: Transaction, layout: Layout, pinned: list[dict[str, str | None]] | None, unknown: int
) -> str:
    """Which evidence decided ``t``'s footprint in ``layout``, in words."""
    if t.read.reads.blind:
        return f"{t.name} is a blind append: its file statistics"
    if pinned is not None:
        source = "statement" if t.version is None else "recorded predicate"
        return f"{t.name}'s {source} ({describe(pinned)})"
    if set(layout.existing) == set(layout.columns):
        return f"{t.name}'s partition values"
    return f"{t.name}'s file statistics" + (" (some unknown)" if unknown else "")


def pinned_pieces(
    files: pl.DataFrame, pinned: Sequence[dict[str, str | None]], columns: Sequence[str]
) -> pl.DataFrame:
    """``files`` with each piece of unknown footprint replaced by one piece per pinned
    partition, shaped as :meth:`Relabeler.frame` shapes pieces."""
    lost = files.filter(pl.col(UNKNOWN))
    if lost.is_empty():
        return files
    originals = lost.with_columns(pl.col("path").str.replace(r"#[^#]*$", "").alias("path")).unique(
        subset="path", maintain_order=True
    )
    pieces = []
    for values in pinned:
        suffix = "/".join(f"{c}={HIVE_NULL if values[c] is None else values[c]}" for c in columns)
        pieces.append(
            originals.with_columns(
                pl.struct([pl.lit(values[c], pl.String).alias(c) for c in columns]).alias(
                    PARTITION_VALUES
                ),
                (pl.col("path") + pl.lit(f"#{suffix}")).alias("path"),
                pl.lit(False).alias(UNKNOWN),
            )
        )
    known = files.filter(~pl.col(UNKNOWN))
    return pl.concat([known, *pieces], how="vertical_relaxed")
