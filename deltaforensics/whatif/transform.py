"""Applying a scenario is pure: a (loser, winners) pair in, the same pair as it would have been
under the changes out — then the *same* checker runs on both.

Each change rewrites :class:`~deltaforensics.transactions.Transaction` fields, never the
checker: ``PartitionBy`` re-labels files (:mod:`deltaforensics.whatif.layout`) and recomputes
the partition read predicate from the recorded condition for the new columns; ``Liquid``
unpartitions and marks the table clustered; ``ExplicitMergePredicates`` narrows the read
predicate to the partitions the commit actually touched; ``IsolationChange`` sets the level
each engine would parse from the property value; ``DeletionVectors`` sets the table flag (the
Databricks profile then applies row-level concurrency); ``MarkBlindAppends`` sets
``isBlindAppend``; ``SeparateSchedules`` drops the winners that would no longer overlap.
Rewriting fields (not checker overrides) keeps :func:`~deltaforensics.conflicts.checker.fragility`
usable on the rewritten pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from deltaforensics.conflicts.checker import COMMITS, Verdict, check
from deltaforensics.conflicts.rule import FileHistory, has_row_level_concurrency
from deltaforensics.model.frames import partition_value_exprs
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.ir import TrueExpr, all_of
from deltaforensics.predicates.operations import parse_operation_predicates
from deltaforensics.predicates.partition import (
    written_partitions_predicate,
)
from deltaforensics.profiles import parse_isolation
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.layout import UNKNOWN, Layout, Relabeler
from deltaforensics.whatif.repartition import repartitioned, unpartitioned
from deltaforensics.whatif.scenario import (
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    Scenario,
    SeparateSchedules,
)
from deltaforensics.whatif.statistics import StatRanges
from deltaforensics.whatif.writers import writer_of

APPEND_OPERATIONS = frozenset({"WRITE", "STREAMING UPDATE"})
MAX_EVIDENCE = 3  # footprints named in a pair's reason: the loser's and its first winners'


@dataclass(frozen=True, slots=True, kw_only=True)
class RewrittenPair:
    loser: Transaction
    winners: tuple[Transaction, ...]
    history: FileHistory
    overrides: dict[str, Any] = field(default_factory=dict)
    unknown: str | None = None  # why the loser's outcome under the scenario is unknown
    # winners whose footprint under the scenario is unknown, and why: a known winner that
    # fails the loser still decides the pair; otherwise they leave it unknown
    doubtful: tuple[tuple[int | None, str], ...] = ()
    evidence: str = ""  # which evidence decided the footprints, for the pair's reason
    scheduled_apart: tuple[int, ...] = ()  # winners that no longer overlap the loser
    unchanged: bool = False  # the scenario changes nothing here: the baseline verdict stands

    @property
    def note(self) -> str:
        if not self.scheduled_apart:
            return ""
        shown = ", ".join(f"v{v}" for v in self.scheduled_apart)
        return f"{shown} scheduled apart from the loser"


class Rewriter:
    """Rewrites transactions of one table under one scenario; caches per transaction."""

    def __init__(
        self,
        scenario: Scenario,
        replay: Replay,
        statistics: StatRanges | None = None,
        named: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """``statistics``: the table's column statistics, shared by the scenarios evaluated
        on one history (each new partition column is then read from the JSON once);
        ``named``: the values the statements' conditions name per column
        (:func:`~deltaforensics.whatif.footprint.named_values`)."""
        self.scenario, self.replay = scenario, replay
        partition = scenario.find(PartitionBy)
        self.liquid: Liquid | None = (scenario.find(Liquid) or [None])[-1]
        self.partition_by: PartitionBy | None = partition[-1] if partition else None
        self.relabeler: Relabeler | None = None
        self.history: FileHistory = replay
        if self.partition_by is not None and self.partition_by.columns and self.liquid is None:
            self.relabeler = Relabeler.for_table(
                self.partition_by.columns, replay, statistics, named
            )
            self.history = self.relabeler.history()
        self._cache: dict[int, tuple[Transaction, Transaction, str | None, str]] = {}
        self._relabeled: dict[int, tuple[Transaction, pl.DataFrame, pl.DataFrame]] = {}

    def prepare(self, transactions: Iterable[Transaction]) -> None:
        """Re-label the files of all of ``transactions`` in one pass, before they are
        rewritten one by one (a partition layout is otherwise a pass per transaction)."""
        if self.relabeler is None:
            return
        todo = list({id(t): t for t in transactions if id(t) not in self._relabeled}.values())
        frames = self.relabeler.frames(
            [f for t in todo for f in (t.written.added, t.written.removed)]
        )
        for i, t in enumerate(todo):
            self._relabeled[id(t)] = (t, frames[2 * i], frames[2 * i + 1])

    def _files(self, t: Transaction, relabeler: Relabeler) -> tuple[pl.DataFrame, pl.DataFrame]:
        """``t``'s adds and removes re-labelled, from :meth:`prepare` when it saw ``t``."""
        hit = self._relabeled.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1], hit[2]
        added, removed = relabeler.frames([t.written.added, t.written.removed])
        return added, removed

    @property
    def layout(self) -> Layout | None:
        return self.relabeler.layout if self.relabeler else None

    def transaction(self, t: Transaction) -> tuple[Transaction, str | None]:
        """``t`` under the scenario, and why its footprint is unknown (or None)."""
        rewritten, unknown, _ = self.rewritten(t)
        return rewritten, unknown

    def rewritten(self, t: Transaction) -> tuple[Transaction, str | None, str]:
        """``t`` under the scenario, why its footprint is unknown (or None), and which
        evidence decided its footprint ("" when the scenario keeps it)."""
        hit = self._cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1], hit[2], hit[3]
        rewritten, unknown, evidence = self._rewrite(t)
        self._cache[id(t)] = (t, rewritten, unknown, evidence)
        return rewritten, unknown, evidence

    def _rewrite(self, t: Transaction) -> tuple[Transaction, str | None, str]:
        unknown, evidence = None, ""
        if self.liquid is not None:
            # a liquid table has deletion vectors unless they are turned off (the Databricks
            # page's "Tables with liquid clustering, unless you have disabled deletion vectors")
            t = with_deletion_vectors(unpartitioned(t, clustered=True))
        elif self.partition_by is not None:
            if self.relabeler is None:
                t = unpartitioned(t, clustered=False)
            else:
                t, unknown, evidence = repartitioned(
                    t, self.relabeler.layout, *self._files(t, self.relabeler)
                )
        for change in self.scenario.changes:
            if isinstance(change, ExplicitMergePredicates):
                if (
                    t.provenance.operation in change.operations
                    and (
                        t.read.reads.whole_table
                        or isinstance(t.read.reads.partition_predicate, TrueExpr)
                    )
                    and simulated(t)
                    and self._touches_every_partition(t)
                ):
                    unknown = unknown or (
                        f"{t.name} is an attempted {t.provenance.operation} whose condition names no "
                        "partition: which partitions its source covers is not in the statement"
                    )
                narrowed = explicit_predicates(t, change.operations)
                if narrowed is not t:
                    evidence = evidence or (
                        f"{t.name}'s literal from the partitions its files touched"
                    )
                t = narrowed
            elif isinstance(change, IsolationChange):
                t = with_isolation(t, change.level)
            elif isinstance(change, DeletionVectors) and not t.table.has_deletion_vectors:
                t = with_deletion_vectors(t)
            elif isinstance(change, MarkBlindAppends) and writer_of(t) == change.writer:
                t = marked_blind(t)
        return t, unknown, evidence

    def _touches_every_partition(self, t: Transaction) -> bool:
        """Whether ``t``'s files touch every partition live at its read version (more than
        one): for a statement simulated from SQL, its source's partitions were not known."""
        if t.read.version is None or not self.replay.retains(t.read.version):
            return True
        live = self.replay.live_files(t.read.version)
        if live.is_empty() or PARTITION_VALUES not in live.columns:
            return False
        partitions = live.select(PARTITION_VALUES).unique().height
        return partitions > 1 and len(touched_partitions(t)) >= partitions

    def pair(self, loser: Transaction, winners: Sequence[Transaction]) -> RewrittenPair:
        apart = _scheduled_apart(self.scenario, loser, winners)
        kept = [w for w in winners if w.version not in apart]
        new_loser, unknown, evidence = self.rewritten(loser)
        new_winners = []
        doubtful: list[tuple[int | None, str]] = []
        said = [evidence] if evidence else []
        for w in kept:
            nw, why, seen = self.rewritten(w)
            if why:
                doubtful.append((w.version, why))
            if seen and len(said) < MAX_EVIDENCE:
                said.append(seen)
            new_winners.append(nw)
        return RewrittenPair(
            loser=new_loser,
            winners=tuple(new_winners),
            history=self.history,
            unknown=unknown,
            doubtful=tuple(doubtful),
            evidence="; ".join(dict.fromkeys(said)),
            scheduled_apart=tuple(sorted(v for v in apart if v is not None)),
            unchanged=self.history is self.replay
            and not apart
            and new_loser is loser
            and all(a is b for a, b in zip(new_winners, winners, strict=True)),
        )


def decide(pair: RewrittenPair) -> tuple[Verdict | None, str]:
    """:func:`judge` where the footprints allow it: None (with why) when the loser's footprint
    is unknown, or when no winner of known footprint fails it and some winner's is unknown."""
    if pair.unknown:
        return None, f"unknown: {pair.unknown}"
    if not pair.doubtful:
        return judge(pair)
    doubtful = {v for v, _ in pair.doubtful}
    known = tuple(w for w in pair.winners if w.version not in doubtful)
    verdict, reason = judge(replace(pair, winners=known, doubtful=()))
    if verdict.raised:
        return verdict, reason
    return None, f"unknown: {pair.doubtful[0][1]}"


def with_evidence(reason: str, pair: RewrittenPair) -> str:
    """``reason`` followed by which evidence decided the footprints."""
    return f"{reason} (footprints: {pair.evidence})" if pair.evidence else reason


def judge(pair: RewrittenPair) -> tuple[Verdict, str]:
    """The same checker on a rewritten pair, and why it fails or commits."""
    lo = pair.loser
    if not pair.winners:
        return Verdict(
            loser=lo, profile=lo.provenance.profile, winners=(), outcome=COMMITS
        ), pair.note
    verdict = check(lo, pair.winners, profile=lo.provenance.profile, history=pair.history)
    reason = verdict.reason if verdict.raised else quiet_reason(lo, verdict)
    return verdict, f"{pair.note}; {reason}" if pair.note else reason


def quiet_reason(loser: Transaction, verdict: Verdict) -> str:
    """Why a pair commits, in the terms a scenario changes (the read set, the level, RLC)."""
    if verdict.notes:
        return verdict.reason
    if loser.read.reads.blind:
        return loser.blind_reason
    against = ", ".join(f"v{v}" for v in verdict.winners) or "any winner"
    if has_row_level_concurrency(loser.provenance.profile, loser):
        return (
            f"no rule fires against {against}: Databricks row-level concurrency (modelled as: two "
            "commits touch different rows unless the log shows the same row)"
        )
    pred = loser.read.reads.partition_predicate
    reads = (
        "nothing"
        if pred is None
        else "the whole table"
        if loser.read.reads.whole_table or isinstance(pred, TrueExpr)
        else pred.to_sql()
    )
    return f"no rule fires against {against} under {loser.read.isolation.value} (reads {reads})"


def apply(
    scenario: Scenario, loser: Transaction, winners: Sequence[Transaction], history: Replay
) -> RewrittenPair:
    """One pair under ``scenario`` (use :class:`Rewriter` to rewrite many pairs of a table)."""
    return Rewriter(scenario, history).pair(loser, winners)


def _scheduled_apart(
    scenario: Scenario, loser: Transaction, winners: Sequence[Transaction]
) -> set[int | None]:
    separated = [c for c in scenario.changes if isinstance(c, SeparateSchedules)]
    if not separated:
        return set()
    mine = writer_of(loser)
    out: set[int | None] = set()
    for w in winners:
        theirs = writer_of(w)
        if any({mine, theirs} == {c.writer_a, c.writer_b} for c in separated):
            out.add(w.version)
    return out


# ---------------------------------------------------------------------------------------------
# predicate, isolation and commitInfo changes


def touched_partitions(t: Transaction) -> list[dict[str, str | None]]:
    """Distinct partition values (logical names) of the files ``t`` added or removed."""
    if not t.table.partition_columns:
        return []
    frames = [
        f
        for f in (t.written.added, t.written.removed)
        if f.height and PARTITION_VALUES in f.columns
    ]
    if not frames:
        return []
    if UNKNOWN in frames[0].columns:
        frames = [f.filter(~pl.col(UNKNOWN)) for f in frames]
    pv = pl.concat([f.select(PARTITION_VALUES) for f in frames], how="vertical")
    exprs = partition_value_exprs(
        pv.schema[PARTITION_VALUES], t.table.partition_columns, t.table.physical_names
    )
    return pv.select(exprs).unique(maintain_order=True).to_dicts()


def explicit_predicates(t: Transaction, operations: Sequence[str]) -> Transaction:
    """``t`` with literal conjuncts for the partitions it touched in its condition."""
    reads = t.read.reads
    if (
        t.provenance.operation not in operations
        or not t.table.partition_columns
        or reads.partition_predicate is None
    ):
        return t
    touched = touched_partitions(t)
    if not touched:
        return t
    literal = written_partitions_predicate(touched)
    if t.provenance.profile.stats_matching:
        full = (
            literal
            if reads.whole_table or reads.full_predicate is None
            else all_of(reads.full_predicate, literal)
        )
        return t.with_reads(
            replace(reads, partition_predicate=literal, full_predicate=full, whole_table=False)
        )
    info = parse_operation_predicates(t.provenance.operation, t.provenance.parameters)
    if info.has_not_matched_by_source or reads.whole_table:
        return t  # Delta reads the whole table whatever the ON condition says
    full = literal if reads.full_predicate is None else all_of(reads.full_predicate, literal)
    narrowed = all_of(reads.partition_predicate, literal)
    return t.with_reads(replace(reads, partition_predicate=narrowed, full_predicate=full))


def with_isolation(t: Transaction, value: str) -> Transaction:
    """The level ``t``'s engine would use with ``delta.isolationLevel = value``: commits the
    engine downgraded (SnapshotIsolation) or ran through commitLarge keep theirs."""
    if t.read.isolation is IsolationLevel.SNAPSHOT_ISOLATION or t.provenance.is_commit_large:
        return t
    level = parse_isolation(value, t.provenance.profile)
    if level is None:
        level = t.provenance.profile.default_isolation
        source = f"what-if: {t.provenance.profile.engine} does not parse delta.isolationLevel={value}; its default"
    else:
        source = f"what-if: table property delta.isolationLevel={value}"
    if level is t.read.isolation:
        return t
    return replace(t, read=replace(t.read, isolation=level, isolation_source=source))


def is_pure_append(t: Transaction) -> bool:
    if t.provenance.operation not in APPEND_OPERATIONS:
        return False
    adds, removes = t.written.file_counts
    return (
        adds > 0
        and removes == 0
        and not t.written.changes_metadata
        and (
            t.read.reads.partition_predicate is None
            or (t.provenance.profile.appends_read_all_files and t.read.reads.full_predicate is None)
        )
        and str(
            t.provenance.parameters.get("mode")
            or t.provenance.parameters.get("outputMode")
            or "Append"
        ).lower()
        == "append"
    )


def marked_blind(t: Transaction) -> Transaction:
    if t.provenance.is_blind_append is True or not is_pure_append(t):
        return t
    return replace(t, provenance=replace(t.provenance, is_blind_append=True))


def with_deletion_vectors(t: Transaction) -> Transaction:
    return replace(t, table=replace(t.table, has_deletion_vectors=True))


SIMULATED_SOURCE = "attempt"  # ``source`` of the file rows the attempt simulator makes up


def simulated(t: Transaction) -> bool:
    """Whether ``t``'s files were made up from its SQL (an ``--attempt``), not recorded."""
    return any(
        f.height and "source" in f.columns and (f["source"] == SIMULATED_SOURCE).any()
        for f in (t.written.added, t.written.removed)
    )
