"""Rules, findings and the context a rule sees (one loser checked against one winner)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import polars as pl

from deltaforensics.model.frames import partition_value_exprs
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.ir import And, Predicate, column_refs, negation_normal_form
from deltaforensics.predicates.stats import may_match_stats
from deltaforensics.predicates.to_polars import to_polars
from deltaforensics.profiles import Check, Profile
from deltaforensics.transactions import Transaction
from deltaforensics.transactions.operations import COMPACTIONS

MAX_LISTED = 20


class FileHistory(Protocol):
    """What a rule looks up in a history: which files were live at the loser's read version.

    A :class:`~deltaforensics.replay.Replay` is one; a what-if layout supplies another that
    answers in its re-labelled files (:mod:`deltaforensics.whatif.layout`)."""

    def retains(self, version: int) -> bool:
        """Whether the snapshot at ``version`` can be reconstructed."""
        ...

    def live_files_among(self, version: int, paths: pl.Series) -> pl.DataFrame:
        """The files live at ``version`` whose path is one of ``paths``."""
        ...

    def with_file_stats(self, rows: pl.DataFrame) -> pl.DataFrame:
        """``rows`` (file rows of this history) with the statistics the log holds for them."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """What one rule's check found against one winner. The rule does not say which rule it is:
    the checker stamps the rule's code and exception on it (:meth:`Rule.finding`)."""

    reason: str
    files: tuple[str, ...] = ()
    partitions: tuple[dict[str, str | None], ...] = ()
    confidence: str = "high"
    # what the engine raises instead of the rule's exception (see Finding.engine_error)
    engine_error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """A rule's hit with the rule's code and the exception Delta raises for it."""

    code: str
    exception: str
    reason: str
    files: tuple[str, ...] = ()
    partitions: tuple[dict[str, str | None], ...] = ()
    confidence: str = "high"
    # what the engine raises instead of ``exception`` when the winner committed before the
    # statement's transaction began (after its analysis): DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS
    engine_error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """The model of one of Delta's checks: ``delta_check`` names which, the profile its order."""

    delta_check: Check
    name: str
    exception: str
    # The error class Databricks and Delta >= 3.2 print before the exception's message
    # (``[DELTA_CONCURRENT_APPEND] ...``); the file-level ones gain a ``.WITH_PARTITION_HINT`` or
    # ``.WITHOUT_HINT`` sub-class from Delta 4.1 and on Databricks (``partition_hint``).
    error_class: str
    check: Callable[[RuleContext], Hit | None]
    doc: str
    status: str = "stable"
    since: str = "0.1.0"
    suggests: tuple[str, ...] = ()
    partition_hint: bool = False

    @property
    def code(self) -> str:
        return self.delta_check.value

    def finding(self, hit: Hit) -> Finding:
        """``hit`` stamped with this rule's code and exception."""
        return Finding(
            code=self.code,
            exception=self.exception,
            reason=hit.reason,
            files=hit.files,
            partitions=hit.partitions,
            confidence=hit.confidence,
            engine_error=hit.engine_error,
        )


@dataclass
class RuleContext:
    """One loser against one winner, with the history to look up files at the read version."""

    loser: Transaction
    winner: Transaction
    profile: Profile
    history: FileHistory | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def isolation(self) -> IsolationLevel:
        level = self.overrides.get("isolation")
        return level if isinstance(level, IsolationLevel) else self.loser.read.isolation

    @property
    def winner_blind(self) -> bool:
        if "winner_blind" in self.overrides:
            return bool(self.overrides["winner_blind"])
        return self.winner.provenance.is_blind_append is True

    @property
    def read_predicate(self) -> Predicate | None:
        if "read_predicate" in self.overrides:
            return cast("Predicate | None", self.overrides["read_predicate"])
        return self.loser.read.reads.partition_predicate

    @property
    def read_whole_table(self) -> bool:
        return bool(self.overrides.get("read_whole_table", self.loser.read.reads.whole_table))

    @property
    def row_level_concurrency(self) -> bool:
        """Whether Databricks resolves this pair row by row (:func:`has_row_level_concurrency`)."""
        if "row_level_concurrency" in self.overrides:
            return bool(self.overrides["row_level_concurrency"])
        return has_row_level_concurrency(self.profile, self.loser)

    def partition_match(self, files: pl.DataFrame, predicate: Predicate) -> pl.DataFrame:
        if files.is_empty():
            return files
        expr = to_polars(
            predicate,
            name_map=self.loser.table.physical_names,
            types=self.loser.table.column_types,
            fields=_struct_fields(files),
        )
        return filter_files(files, expr)

    def stats_match(self, files: pl.DataFrame, predicate: Predicate) -> pl.DataFrame:
        if files.is_empty():
            return files
        # The stats expression is the AND of its conjuncts, so first keeping the rows that pass
        # the partition-only conjuncts (exact, no JSON) keeps exactly the same rows in the end,
        # while the stats JSON is decoded (and read from the log, when the history's frames do
        # not hold it) only for files in the read partitions.
        for part in _partition_conjuncts(predicate, self.loser.table.partition_columns):
            files = filter_files(files, self._stats_expr(files, part))
            if files.is_empty():
                return files
        if self.history is not None:
            files = self.history.with_file_stats(files)
        return filter_files(files, self._stats_expr(files, predicate))

    def _stats_expr(self, files: pl.DataFrame, predicate: Predicate) -> pl.Expr:
        return may_match_stats(
            predicate,
            self.loser.table.partition_columns,
            name_map=self.loser.table.physical_names,
            types=self.loser.table.column_types,
            fields=_struct_fields(files),
        )

    def read_files_among(self, candidates: pl.Series) -> pl.DataFrame | None:
        """The files among ``candidates`` (paths) that the loser read at its read version;
        ``None`` when that snapshot is not retained.

        A rule asks whether some winner's files were read, so only those paths are looked up
        and matched against the read predicate: every filter is per file, so the answer is
        the same as cutting the whole read set down to them, at a fraction of the cost.
        """
        lo = self.loser
        removed = lo.written.removed.filter(pl.col("path").is_in(candidates.implode()))
        if lo.read.reads.blind or not lo.read.reads.registers_files:
            return removed.clear()
        if (
            lo.provenance.operation in COMPACTIONS
            and self.profile.optimize_reads_compacted_files_only
        ):
            return removed  # OPTIMIZE tracks exactly the files it compacts
        history = self.history
        rv = lo.read.version
        if history is None or rv is None or not history.retains(rv):
            return None
        live = history.live_files_among(rv, candidates)
        pred = self.read_predicate
        full = lo.read.reads.full_predicate
        if self.profile.stats_matching:
            if full is not None and not self.read_whole_table:
                live = self.stats_match(live, full)
        else:
            if pred is not None and not self.read_whole_table and lo.table.partition_columns:
                live = self.partition_match(live, pred)
            skipping = (
                self.profile.read_files_by_data_skipping
                and lo.provenance.operation not in COMPACTIONS
            )
            if "read_predicate" in self.overrides:
                full = pred  # a hypothetical read (a wider predicate) skips by it alone
            if skipping and full is not None and not self.read_whole_table:
                # what data skipping kept: the files' statistics at the read version
                live = self.stats_match(live, full)
        cols = [c for c in removed.columns if c in live.columns]
        return pl.concat([live.select(cols), removed.select(cols)], how="vertical").unique(
            "path", keep="first"
        )


def has_row_level_concurrency(profile: Profile, loser: Transaction) -> bool:
    """Whether the loser's table has Databricks row-level concurrency.

    The page "Isolation levels and write conflicts on Azure Databricks", "Write conflicts with
    row-level concurrency": "Tables with deletion vectors enabled and without partitioning" and
    "Tables with liquid clustering, unless you have disabled deletion vectors"; its legacy
    section: "Row-level concurrency always requires deletion vectors". A liquid table cannot be
    partitioned, so both list items are a table with deletion vectors and no partitions.
    """
    return (
        profile.row_level_concurrency
        and loser.table.has_deletion_vectors
        and not loser.table.partition_columns
    )


def filter_files(files: pl.DataFrame, expr: pl.Expr) -> pl.DataFrame:
    """``files.filter(expr)``, also when ``expr`` is a constant.

    polars 2.1 fails on ``DataFrame.filter(lit(True).fill_null(False))`` for larger frames
    ("filter predicate length of 2 doesn't match"), which a TRUE read predicate produces; the
    mask is therefore computed first and a one-row mask applied to all rows.
    """
    mask = files.select(expr.alias("_mask")).to_series()
    if mask.len() == 1 and files.height != 1:
        return files if mask[0] is True else files.clear()
    return files.filter(mask)


def _partition_conjuncts(
    predicate: Predicate, partition_columns: tuple[str, ...]
) -> list[Predicate]:
    nnf = negation_normal_form(predicate)
    if not isinstance(nnf, And) or not partition_columns:
        return []
    keys = {c.lower() for c in partition_columns}
    out: list[Predicate] = []
    for part in nnf.parts:
        refs = column_refs(part)
        if refs and all(c.key in keys for c in refs):
            out.append(part)
    return out


def _struct_fields(files: pl.DataFrame) -> list[str]:
    pv_type = files.schema.get(PARTITION_VALUES)
    return [f.name for f in pv_type.fields] if isinstance(pv_type, pl.Struct) else []


def partitions_of(files: pl.DataFrame, loser: Transaction) -> tuple[dict[str, str | None], ...]:
    """Distinct partition values (logical names) of some files, for hints."""
    if (
        files.is_empty()
        or not loser.table.partition_columns
        or PARTITION_VALUES not in files.columns
    ):
        return ()
    exprs = partition_value_exprs(
        files.schema[PARTITION_VALUES], loser.table.partition_columns, loser.table.physical_names
    )
    rows = files.select(exprs).unique(maintain_order=True).head(MAX_LISTED).to_dicts()
    return tuple(rows)


def hint(partitions: tuple[dict[str, str | None], ...]) -> str:
    if not partitions:
        return ""
    first = partitions[0]
    return (
        "[" + ", ".join(f"{k}={'null' if v in (None, '') else v}" for k, v in first.items()) + "]"
    )


def paths(files: pl.DataFrame) -> tuple[str, ...]:
    return tuple(files["path"].head(MAX_LISTED).to_list()) if files.height else ()
