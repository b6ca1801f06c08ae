"""What a statement read: its read predicates, whether it read the whole table or registered
read files, and how sure we are (semantics doc §A.2; delta-rs §A.9).

Read predicates are never logged (semantics doc, key finding 3): they are reconstructed from
``operationParameters`` and the table the statement read; every approximation is said in the
reason and weighed in the confidence.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from deltaforensics.model.actions import Metadata
from deltaforensics.predicates.ir import TRUE, Predicate, TrueExpr
from deltaforensics.predicates.operations import ReadPredicateInfo, parse_operation_predicates
from deltaforensics.predicates.partition import (
    partition_read_predicate,
    partition_read_predicate_for,
    written_partitions_predicate,
)
from deltaforensics.profiles import Profile
from deltaforensics.transactions.operations import READS_WHOLE_TABLE_UNLESS_BLIND
from deltaforensics.transactions.parts import Reads


def reads_of(
    operation: str,
    params: dict[str, Any],
    recorded_blind: bool | None,
    profile: Profile,
    md: Metadata,
    added: pl.DataFrame,
    removed: pl.DataFrame,
    *,
    info: ReadPredicateInfo | None = None,
    shown_alias: str | None = None,
) -> Reads:
    """What a statement with these parameters and file actions read; ``info``: its parsed
    ``operationParameters`` when the caller has them; ``shown_alias``: the target's alias as
    an attempted statement wrote it, for the reason's words only."""
    if info is None:
        info = parse_operation_predicates(operation, params)
    written = logical_partitions(added, md) if info.source == "written-partitions" else None
    return reads_for(
        operation,
        params,
        recorded_blind,
        profile,
        md.partition_columns,
        added.height > 0,
        removed.height > 0,
        info=info,
        written=written,
        shown_alias=shown_alias,
    )


def reads_for(
    operation: str,
    params: dict[str, Any],
    recorded_blind: bool | None,
    profile: Profile,
    cols: tuple[str, ...],
    has_adds: bool,
    has_removes: bool,
    *,
    info: ReadPredicateInfo,
    written: list[dict[str, str | None]] | None = None,
    shown_alias: str | None = None,
) -> Reads:
    """What the transaction read, per operation (semantics doc §A.2; delta-rs §A.9).

    ``written``: the partitions a dynamic partition overwrite wrote (logical names)."""
    unknown = any("not understood" in d for d in info.diagnostics)
    if profile.appends_read_all_files:
        return _delta_rs_reads(operation, params, info, cols, unknown, profile)
    if recorded_blind is True:
        reason = "blind append: reads nothing" if has_adds else "no file actions: reads nothing"
        return reads_nothing(reason, "high")
    if not info.reads:
        if recorded_blind is False and not (has_adds or has_removes):
            told = _read_without_file_actions(operation, profile)
            if told is not None:
                return told
        if recorded_blind is False and (has_adds or has_removes):
            return reads_matching(
                TRUE,
                TRUE,
                f"{operation} was not a blind append (isBlindAppend=false) but records no predicate: "
                "it read the table (e.g. a self-join or subquery); assumed to read everything",
                "low",
            )
        reason = (
            "no file actions: reads nothing"
            if not (has_adds or has_removes)
            else f"{operation} reads nothing"
        )
        return reads_nothing(reason, "medium" if recorded_blind is None else "high")
    if info.source == "written-partitions":
        written = written or []
        pred = written_partitions_predicate(written) if written and cols else TRUE
        return reads_matching(
            pred,
            pred,
            "dynamic partition overwrite: reads the partitions it writes and registers no read files",
            "high" if written else "medium",
            registers_files=False,
        )
    if info.whole_table:
        return reads_whole_table(f"{operation} reads the whole table")
    part = partition_read_predicate_for(info, cols, shown_alias=shown_alias)
    reason = "; ".join(part.reasons) or (
        f"partition predicate {part.predicate.to_sql()}"
        if cols
        else "unpartitioned table: no partition precision"
    )
    confidence = "low" if unknown else "medium" if part.reasons and cols else "high"
    # a MERGE with WHEN NOT MATCHED BY SOURCE reads every file: Delta-Spark's data skipping
    # then gets no filter (ClassicMergeExecutor: filterFiles(TRUE))
    full = TRUE if info.has_not_matched_by_source else info.predicate
    return reads_matching(part.predicate, full, reason, confidence)


def _read_without_file_actions(operation: str, profile: Profile) -> Reads | None:
    """A column change with no file action that its engine recorded as not a blind append.

    Delta-Spark's ``isBlindAppend`` is "only adds, and nothing read" (semantics doc §A.3): with
    no file action the first half holds, so ``false`` says the command registered a read. For a
    ``CHANGE COLUMN`` that is ``ALTER TABLE … ALTER COLUMN … SYNC IDENTITY``, which calls
    ``txn.readWholeTable()`` to find the high-water mark in the data (delta-io/delta
    ``commands/alterDeltaTableCommands.scala``, ``AlterTableChangeColumnDeltaCommand``). Other
    operations' reads are not known from the flag alone (Kernel-Java records ``false`` on every
    commit, commitLarge whatever it read), so they keep their own reading.
    """
    if not profile.marks_blind_appends or operation.upper() not in READS_WHOLE_TABLE_UNLESS_BLIND:
        return None
    return reads_whole_table(
        f"{operation} recorded as not a blind append: ALTER TABLE … SYNC IDENTITY, which "
        "reads the whole table to find the identity column's high-water mark"
    )


def _delta_rs_reads(
    operation: str,
    params: dict[str, Any],
    info: Any,
    cols: tuple[str, ...],
    unknown: bool,
    profile: Profile,
) -> Reads:
    """delta-rs reads: the ``predicate`` of WRITE/DELETE/UPDATE/MERGE, else every file (before
    deltalake 1.2, none: ``TransactionInfo::read_files`` returned an empty set without a
    predicate, measured on 0.25.5 and 1.1.4 by ``tests/conflicts/test_deltars_versions.py``)."""
    has_predicate = params.get("predicate") not in (None, "", "[]")
    if operation == "MERGE" and not has_predicate:
        return reads_whole_table(
            "delta-rs MERGE without a derived partition predicate reads the whole table"
        )
    if operation in ("WRITE", "DELETE", "UPDATE", "MERGE") and has_predicate:
        pred = info.predicate
        part = partition_read_predicate(pred, cols) if cols else None
        return reads_matching(
            part.predicate if part else TRUE,
            pred,
            f"delta-rs: predicate {pred.to_sql()} matched on partition values and min/max stats",
            "low" if unknown else "high",
        )
    if not profile.predicate_free_reads_all_files:
        return reads_matching(
            None,
            None,
            f"{profile.name}: {operation} has no predicate, and before deltalake 1.2 an "
            "operation without one registers no read files",
            "high",
            registers_files=False,
        )
    return reads_matching(
        None,
        None,
        f"delta-rs: {operation} has no predicate, so every file of its snapshot counts as read "
        "(and no added-files conflict can hit it)",
        "high",
    )


def reads_every_file(reads: Reads, profile: Profile) -> bool:
    """Whether every file of the snapshot counts as read, as the checker matches files: a
    whole-table read, or a partition predicate of ``TRUE`` where the engine matches files by
    partition values only (Delta-Spark's checker filters a winner's files with the partition
    part of the read predicates; a MERGE whose ON condition holds no literal on a partition
    column reads ``TRUE``). An engine that matches by min/max statistics reads every file only
    when its full predicate is ``TRUE`` too."""
    if reads.blind or reads.partition_predicate is None:
        return False
    if reads.whole_table:
        return True
    if not isinstance(reads.partition_predicate, TrueExpr):
        return False
    full = reads.full_predicate
    return not profile.stats_matching or full is None or isinstance(full, TrueExpr)


def reads_nothing(reason: str, confidence: str) -> Reads:
    """A blind statement: it read nothing, so nothing a winner did can invalidate it."""
    return _read_set(True, None, None, False, False, reason, confidence)


def reads_whole_table(reason: str) -> Reads:
    return _read_set(False, TRUE, TRUE, True, True, reason, "high")


def reads_matching(
    partition: Predicate | None,
    full: Predicate | None,
    reason: str,
    confidence: str,
    *,
    registers_files: bool = True,
) -> Reads:
    """A statement that read the files matching ``full`` (``partition``: its partition part;
    None for both: it read every file of its snapshot without a predicate)."""
    return _read_set(False, partition, full, False, registers_files, reason, confidence)


def _read_set(
    blind: bool,
    partition: Predicate | None,
    full: Predicate | None,
    whole_table: bool,
    registers_files: bool,
    reason: str,
    confidence: str,
) -> Reads:
    return Reads(
        blind=blind,
        partition_predicate=partition,
        full_predicate=full,
        whole_table=whole_table,
        registers_files=registers_files,
        reason=reason,
        confidence=confidence,
    )


def logical_partitions(added: pl.DataFrame, md: Metadata) -> list[dict[str, str | None]]:
    if added.is_empty() or not md.partition_columns:
        return []
    pv_type = added.schema["partition_values"]
    names = {f.name for f in pv_type.fields} if isinstance(pv_type, pl.Struct) else set()
    exprs = [
        (
            pl.col("partition_values").struct.field(md.physical_name(c))
            if md.physical_name(c) in names
            else pl.lit(None, pl.String)
        ).alias(c)
        for c in md.partition_columns
    ]
    return added.select(exprs).unique(maintain_order=True).to_dicts()


def is_dynamic_partition_overwrite(params: dict[str, Any]) -> bool:
    return str(params.get("isDynamicPartitionOverwrite", "")).lower() == "true"
