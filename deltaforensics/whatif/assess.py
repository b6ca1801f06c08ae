"""How far to trust one comparison: its confidence and the diagnostics that say why.

Codes (``W6xx``, what-if): W601 partition-layout (partition count / small files of a new
layout), W602 footprint-unknown, W603 change-not-applicable (engine or table makes the change a
no-op or impossible as stated), W604 baseline-not-reproduced (evidence the model does not
reproduce is excluded), W605 change-is-a-metadata-commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deltaforensics.model.diagnostic_codes import (
    BASELINE_NOT_REPRODUCED,
    CHANGE_IS_A_METADATA_COMMIT,
    CHANGE_NOT_APPLICABLE,
    FOOTPRINT_UNKNOWN,
    PARTITION_LAYOUT,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, parse_isolation
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.layout import Layout, Relabeler
from deltaforensics.whatif.scenario import (
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    SeparateSchedules,
)
from deltaforensics.whatif.spans import certain_values
from deltaforensics.whatif.statistics import StatRanges
from deltaforensics.whatif.transaction_edits import is_pure_append
from deltaforensics.whatif.transform import Rewriter
from deltaforensics.whatif.writers import transactions_by_writer

HIGH_PARTITIONS = 1000  # Databricks/OSS guidance: fewer, larger partitions (≥ 1 GB each)
SMALL_PARTITION_BYTES = 1 << 30
FILE_MULTIPLIER = 10
MAX_LISTED = 10
SAMPLE_FILES = 16_384  # live files read to find a layout surely has too many partitions
_LEVELS = ("low", "medium", "high")


def lower(confidence: str, to: str) -> str:
    return to if _LEVELS.index(to) < _LEVELS.index(confidence) else confidence


def rlc_engines(transactions: Sequence[Transaction]) -> bool:
    """Whether the table's data-changing writers all run where row-level concurrency exists."""
    writers = [t for t in transactions if t.version != 0 and not t.read.reads.blind]
    return bool(writers) and all(t.provenance.profile.row_level_concurrency for t in writers)


def assess(
    comparison: Comparison,
    rewriter: Rewriter,
    transactions: Sequence[Transaction],
    by_writer: Mapping[str, Sequence[Transaction]] | None = None,
) -> tuple[str, tuple[Diagnostic, ...]]:
    """``by_writer``: ``transactions`` grouped by ``writer_of``, when the caller has them."""
    diags: list[Diagnostic] = []
    confidence = "high"
    scenario = comparison.scenario
    if scenario.find(Liquid) and scenario.find(PartitionBy):
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                "liquid clustering replaces partitioning: partition-by is ignored",
            )
        )
    for change in scenario.changes:
        if isinstance(change, PartitionBy) and not scenario.find(Liquid):
            confidence = lower(confidence, _partition_by(change, rewriter, transactions, diags))
        elif isinstance(change, Liquid | DeletionVectors):
            rep = rewriter.replay
            partitioned = bool(rep.metadata_at(rep.end_version).partition_columns)
            confidence = lower(confidence, _row_level(change, transactions, partitioned, diags))
        elif isinstance(change, IsolationChange):
            _isolation(change, transactions, diags)
        elif isinstance(change, ExplicitMergePredicates):
            _explicit(change, rewriter, transactions, diags)
        elif isinstance(change, SeparateSchedules | MarkBlindAppends):
            _writers_exist(change, transactions, diags, by_writer)
    evaluated = len(comparison.pairs) + len(comparison.matrix)
    if evaluated == 0:
        confidence = "low"
        diags.append(
            warning(
                FOOTPRINT_UNKNOWN, "nothing to evaluate: no race, error, attempt or writer pair"
            )
        )
    unknown = comparison.unknown + comparison.hypothetical["unknown"]
    if unknown:
        confidence = lower(confidence, "low" if 2 * unknown >= evaluated else "medium")
        diags.append(
            warning(
                FOOTPRINT_UNKNOWN,
                f"{unknown} of {evaluated} evaluated pairs have an unknown outcome under the "
                "change (missing statistics or too wide a footprint); they are not counted",
            )
        )
    excluded = [p for p in comparison.pairs if not p.trusted]
    for p in excluded[:MAX_LISTED]:
        diags.append(
            warning(BASELINE_NOT_REPRODUCED, f"{p.source} {p.label}: {p.reason}", p.loser.version)
        )
    if excluded:
        confidence = lower(confidence, "medium")
    changed = [p for p in comparison.pairs if p.after is not None and p.after != p.before]
    weak = [p for p in changed if p.loser.read.reads.confidence == "low"]
    if weak:
        confidence = lower(confidence, "low" if len(weak) == len(changed) else "medium")
    return confidence, tuple(diags)


def _partition_by(
    change: PartitionBy,
    rewriter: Rewriter,
    transactions: Sequence[Transaction],
    diags: list[Diagnostic],
) -> str:
    rep = rewriter.replay
    current = rep.metadata_at(rep.end_version).partition_columns
    cols = change.columns
    diags.append(
        info(
            CHANGE_IS_A_METADATA_COMMIT,
            "changing the partitioning rewrites the table (REPLACE TABLE / overwrite with a new "
            "schema): that commit fails every concurrent writer; run it in a quiet window",
        )
    )
    if [c.lower() for c in cols] == [c.lower() for c in current]:
        diags.append(
            info(CHANGE_NOT_APPLICABLE, f"the table is already partitioned by {', '.join(current)}")
        )
        return "high"
    relabeler = rewriter.relabeler
    if relabeler is None:
        rlc = " (Databricks row-level concurrency needs deletion vectors or liquid clustering)"
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                "an unpartitioned table has no partition precision: every non-blind add conflicts "
                f"with every reader{rlc if rlc_engines(transactions) else ''}",
            )
        )
        return "high"
    layout = relabeler.layout
    for col in layout.unknown_columns:
        diags.append(warning(FOOTPRINT_UNKNOWN, f"no file has min/max statistics for {col}"))
    diags.append(layout_diagnostic(relabeler, rep.end_version))
    return "medium" if layout.existing.keys() != set(layout.columns) else "high"


def surely_too_many_partitions(layout: Layout, statistics: StatRanges) -> bool:
    """Whether :func:`layout_diagnostic` surely warns that a layout of one new column has
    more than :data:`HIGH_PARTITIONS` partitions, decided from the statistics of the first
    :data:`SAMPLE_FILES` live files alone: the values they surely span
    (:func:`~deltaforensics.whatif.spans.certain_values`) are partitions of the new layout,
    whatever the other files add. An id column is decided so without reading its statistics
    from the whole history. False: not decided here."""
    new = layout.new_column_kinds()
    if len(layout.columns) != 1 or len(new) != 1:
        return False
    ((key, kind),) = new.items()
    sample = statistics.live_sample(key, kind, SAMPLE_FILES)
    return certain_values(sample, kind) > HIGH_PARTITIONS


def statistics_to_read(
    columns: Sequence[str], replay: Replay, statistics: StatRanges
) -> dict[str, str]:
    """Stats key -> kind of what partitioning by each of ``columns`` alone will read from the
    history's statistics: nothing for a column :func:`surely_too_many_partitions` already
    decides (its layout is never counted or compared)."""
    wanted = [
        c
        for c in columns
        if not surely_too_many_partitions(Layout.for_table([c], replay, {}), statistics)
    ]
    return Layout.statistics_needed(wanted, replay)


def layout_diagnostic(relabeler: Relabeler, version: int) -> Diagnostic:
    """W601: how many partitions and files the new layout would have at ``version`` (the
    latest); a warning when that is the many-small-files layout partitioning folklore leads to."""
    cols = relabeler.layout.columns
    stats = relabeler.layout_stats()
    avg = stats.bytes // stats.partitions if stats.partitions else 0
    facts = (
        f"{stats.partitions} partition(s) and {stats.files_after} file(s) (from "
        f"{stats.files_before}) at v{version}, about {avg:,} bytes per partition"
    )
    if stats.partitions > HIGH_PARTITIONS or (
        stats.files_after >= FILE_MULTIPLIER * max(stats.files_before, 1)
        and stats.files_after > 100
    ):
        return warning(
            PARTITION_LAYOUT,
            f"partitioning by {', '.join(cols)} gives {facts}: high cardinality means many "
            "small files; partition by a low-cardinality column the writers filter on",
        )
    if stats.partitions and avg < SMALL_PARTITION_BYTES:
        return info(
            PARTITION_LAYOUT,
            f"partitioning by {', '.join(cols)} gives {facts} (guidance: ≥ 1 GB each)",
        )
    return info(PARTITION_LAYOUT, f"partitioning by {', '.join(cols)} gives {facts}")


def _row_level(
    change: Liquid | DeletionVectors,
    transactions: Sequence[Transaction],
    partitioned: bool,
    diags: list[Diagnostic],
) -> str:
    engines = sorted(
        {
            t.provenance.profile.engine
            for t in transactions
            if t.version != 0 and not t.read.reads.blind
        }
    )
    if not rlc_engines(transactions):
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                "row-level concurrency exists only on Databricks (DBR ≥ 14.2, unpartitioned "
                "deletion-vector or liquid tables); the data-changing writers here run "
                f"{', '.join(engines) or 'nothing'}, where "
                + (
                    "a liquid table conflicts like an unpartitioned one"
                    if isinstance(change, Liquid)
                    else "deletion vectors change no conflict outcome"
                ),
            )
        )
        return "high"
    if isinstance(change, DeletionVectors):
        if partitioned:
            diags.append(
                info(
                    CHANGE_NOT_APPLICABLE,
                    "on a partitioned table deletion vectors bring no row-level concurrency; on "
                    "Databricks they only stop OPTIMIZE without ZORDER BY conflicting with DML",
                )
            )
        diags.append(
            info(
                CHANGE_IS_A_METADATA_COMMIT,
                "enabling deletion vectors upgrades the protocol (reader 3 / writer 7)",
            )
        )
    return "medium"  # which rows two DML commits touched is not in the log


def committing_profiles(transactions: Sequence[Transaction]) -> list[Profile]:
    """The distinct engine profiles of the transactions after table creation, found by
    identity (a history's transactions share a handful; hashing a profile per transaction
    showed in profiles)."""
    seen = {id(t.provenance.profile): t.provenance.profile for t in transactions if t.version != 0}
    return list(seen.values())


def _isolation(
    change: IsolationChange, transactions: Sequence[Transaction], diags: list[Diagnostic]
) -> None:
    value = change.level
    parsed = {p: parse_isolation(value, p) for p in committing_profiles(transactions)}
    unparsed = {p.engine: p for p, level in parsed.items() if level is None}
    for engine in sorted(unparsed):
        hint = (
            " (delta-rs parses camelCase only: use 'writeSerializable', which Spark also accepts)"
            if unparsed[engine].camel_case_isolation_only
            else ""
        )
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                f"{engine} does not parse delta.isolationLevel={value!r}: its commits keep the "
                f"engine default{hint}",
            )
        )
    levels = set(parsed.values())
    if IsolationLevel.SERIALIZABLE in levels:
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                "Serializable never avoids a conflict: it only adds conflicts with blind appends",
            )
        )
    if IsolationLevel.WRITE_SERIALIZABLE in levels and any(
        t.provenance.profile.refuses_to_set_write_serializable for t in transactions
    ):
        diags.append(
            info(
                CHANGE_NOT_APPLICABLE,
                "open-source Delta (≥ 2.1) refuses to *set* delta.isolationLevel to anything but "
                "Serializable; it honours WriteSerializable only when the property is already in "
                "the table metadata (e.g. set on Databricks)",
            )
        )
    diags.append(
        info(CHANGE_IS_A_METADATA_COMMIT, "changing delta.isolationLevel is a metadata commit")
    )


def _explicit(
    change: ExplicitMergePredicates,
    rewriter: Rewriter,
    transactions: Sequence[Transaction],
    diags: list[Diagnostic],
) -> None:
    ops = set(change.operations)
    hits = [t for t in transactions if t.provenance.operation in ops]
    if not hits:
        diags.append(
            info(
                CHANGE_NOT_APPLICABLE, f"no {'/'.join(sorted(ops))} commit in the analysed history"
            )
        )
        return
    rewritten = [rewriter.transaction(t)[0] for t in hits[-1:]]
    if not any(t.table.partition_columns for t in rewritten):
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE,
                "explicit partition predicates need a partitioned table: without partition "
                "columns Delta-Spark has no partition precision",
            )
        )


def _writers_exist(
    change: SeparateSchedules | MarkBlindAppends,
    transactions: Sequence[Transaction],
    diags: list[Diagnostic],
    by_writer: Mapping[str, Sequence[Transaction]] | None = None,
) -> None:
    if by_writer is None:
        by_writer = transactions_by_writer(transactions)
    wanted = (
        {change.writer_a, change.writer_b}
        if isinstance(change, SeparateSchedules)
        else {change.writer}
    )
    for name in sorted(wanted - set(by_writer)):
        diags.append(
            warning(
                CHANGE_NOT_APPLICABLE, f"no commit in the analysed history is by writer {name!r}"
            )
        )
    if isinstance(change, MarkBlindAppends):
        mine = by_writer.get(change.writer, ())
        if mine and not any(is_pure_append(t) for t in mine):
            diags.append(
                warning(
                    CHANGE_NOT_APPLICABLE, f"{change.writer} made no pure append to mark as blind"
                )
            )
        if any(not t.provenance.profile.can_mark_blind_appends for t in mine):
            diags.append(
                warning(
                    CHANGE_NOT_APPLICABLE,
                    "Kernel-Java always records isBlindAppend=false; it cannot be marked",
                )
            )
