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
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.ir import TrueExpr
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.layout import Layout, Relabeler
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
from deltaforensics.whatif.transaction_edits import (
    explicit_predicates,
    marked_blind,
    simulated,
    touched_partitions,
    with_deletion_vectors,
    with_isolation,
)
from deltaforensics.whatif.writers import writer_of

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
