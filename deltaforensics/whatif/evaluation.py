"""Baseline vs scenario over one evaluation set, with the same checker on both sides.

The evaluation set is what the estimate rests on:

- **races**: committed transactions rebased over winners they did not read. They committed, so
  their baseline is "commits"; one that fails under the scenario is a conflict *introduced*. A
  race is *fragile* when one small perturbation (``checker.fragility``) would have failed it;
  a perturbation that merely undoes the scenario's own change does not count.
- **evidence**: pasted errors and attempted statements (:class:`Observed`): what really
  happened, and what the scenario would have done. The model must reproduce the observed
  baseline for a pair to count (otherwise it is listed, excluded, and a W604 says so).
- **the writer matrix** (:mod:`deltaforensics.whatif.matrix`): would writer A fail if a
  commit of writer B landed while A ran — now and under the change? Each ordered writer pair
  counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any

from deltaforensics.conflicts.checker import (
    COMMITS,
    NO_ROW_LEVEL_CONCURRENCY,
    WIDER_PREDICATE,
    Verdict,
    check,
    fragility,
)
from deltaforensics.conflicts.rule import has_row_level_concurrency
from deltaforensics.model.ids import Severity
from deltaforensics.predicates.ir import TrueExpr
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.assess import (
    assess,
    layout_diagnostic,
    statistics_to_read,
    surely_too_many_partitions,
)
from deltaforensics.whatif.comparison import Comparison, Observed, PairResult, as_observed
from deltaforensics.whatif.footprint import named_values
from deltaforensics.whatif.layout import Layout
from deltaforensics.whatif.matrix import (
    evaluate_cell,
    overlaps,
    sample_cells,
    writer_pairs,
)
from deltaforensics.whatif.scenario import PartitionBy, Scenario
from deltaforensics.whatif.statistics import StatRanges
from deltaforensics.whatif.transform import Rewriter, decide, quiet_reason, with_evidence
from deltaforensics.whatif.writers import group_writers, transactions_by_writer

DEFAULT_SAMPLES = 4


class Evaluation:
    """One table's evaluation set with its baseline verdicts, computed once and compared
    against any number of scenarios."""

    def __init__(
        self,
        transactions: Sequence[Transaction],
        races: Sequence[Any],
        replay: Replay,
        *,
        errors: Sequence[Any] = (),
        attempts: Sequence[Any] = (),
        samples: int = DEFAULT_SAMPLES,
        statistics: StatRanges | None = None,
        overlapping_writers_only: bool = False,
        unmeasured_errors: int = 0,
    ) -> None:
        """``statistics``: the history's column statistics when the caller has started
        reading them (:meth:`StatRanges.warm`); ``overlapping_writers_only``: the writer
        matrix keeps only the writer pairs that really overlapped (a budget on long logs)."""
        self.transactions = tuple(transactions)
        self.races = tuple(races)
        self.replay = replay
        self.unmeasured_errors = unmeasured_errors
        self.evidence = tuple(as_observed(e, "error", i) for i, e in enumerate(errors)) + tuple(
            as_observed(a, "attempt", i) for i, a in enumerate(attempts)
        )
        self.by_version = {t.version: t for t in self.transactions if t.version is not None}
        self.evidence_before = tuple(
            check(o.loser, o.winners, profile=o.loser.provenance.profile, history=replay)
            for o in self.evidence
        )
        commits_by_writer = transactions_by_writer(self.transactions)
        self.writers = group_writers(commits_by_writer)
        pairs = writer_pairs(self.writers, self.races, self.by_version)
        self.overlaps = overlaps(self.races, self.by_version)
        if overlapping_writers_only:
            pairs = [p for p in pairs if self.overlaps[p]]
        # every transaction the estimate is about: commits and the losers of the evidence
        self.participants = self.transactions + tuple(o.loser for o in self.evidence)
        self.by_writer = transactions_by_writer(
            (o.loser for o in self.evidence), into=commits_by_writer
        )
        self.cells = sample_cells(self.writers, pairs, replay, samples) if samples > 0 else {}
        # read once for every PartitionBy compared
        self.statistics = statistics if statistics is not None else StatRanges(replay)
        self._rewriters: dict[Scenario, Rewriter] = {}

    def layout_warning(self, change: PartitionBy) -> bool:
        """Whether partitioning by ``change``'s columns gives the many-small-files layout
        (a W601 warning), found before any pair is compared under it."""
        if surely_too_many_partitions(
            Layout.for_table(change.columns, self.replay, {}), self.statistics
        ):
            return True
        scenario = Scenario.of(change)
        rw = self._rewriters.get(scenario)
        if rw is None:  # kept for compare(), which then does not build its layout again
            rw = self._rewriters[scenario] = self._rewriter(scenario)
        if rw.relabeler is None:
            return False
        found = layout_diagnostic(rw.relabeler, self.replay.end_version)
        return found.severity is Severity.WARNING

    @cached_property
    def _involved(self) -> tuple[Transaction, ...]:
        """Every transaction a comparison rewrites: the races', the evidence's and the sampled
        overlaps' losers and winners."""
        out: list[Transaction] = []
        for race in self.races:
            v = race.verdict
            out += [v.loser, *(self.by_version[w] for w in v.winners if w in self.by_version)]
        for o in self.evidence:
            out += [o.loser, *o.winners]
        for samples in self.cells.values():
            for sample in samples:
                out += [sample.loser, sample.winner]
        return tuple(out)

    def prefetch_statistics(self, partition_columns: Sequence[str]) -> None:
        """Read the statistics of every column some PartitionBy will need, in one pass (none
        for a column :meth:`layout_warning` decides from a sample)."""
        if partition_columns:
            self.statistics.prefetch(
                statistics_to_read(partition_columns, self.replay, self.statistics)
            )

    def compare(self, scenario: Scenario) -> Comparison:
        rw = self._rewriters.pop(scenario, None) or self._rewriter(scenario)
        rw.prepare(self._involved)
        pairs = [self._race(rw, r) for r in self.races]
        pairs += [
            self._observed(rw, o, before)
            for o, before in zip(self.evidence, self.evidence_before, strict=True)
        ]
        matrix = [
            evaluate_cell(rw, a, b, samples, self.overlaps[(a, b)])
            for (a, b), samples in self.cells.items()
        ]
        found = Comparison(
            scenario=scenario,
            pairs=tuple(pairs),
            matrix=tuple(matrix),
            unmeasured_errors=self.unmeasured_errors,
        )
        confidence, diagnostics = assess(found, rw, self.participants, self.by_writer)
        if confidence == "high" and any(o.inferred for o in self.evidence):
            confidence = "medium"  # a failed statement stood in for by its job's commit
        return replace(found, confidence=confidence, diagnostics=diagnostics)

    def _rewriter(self, scenario: Scenario) -> Rewriter:
        columns = [c for p in scenario.find(PartitionBy) for c in p.columns]
        named = named_values(self.participants, columns) if columns else None
        return Rewriter(scenario, self.replay, self.statistics, named)

    def _race(self, rw: Rewriter, race: Any) -> PairResult:
        v: Verdict = race.verdict
        loser = v.loser
        winners = [self.by_version[w] for w in v.winners if w in self.by_version]
        trusted = v.outcome == COMMITS
        after, reason, fragile_after = self._after(
            rw, loser, winners, v, fragile_before=bool(race.fragile_under)
        )
        deciding = (
            (after.winner_version if isinstance(after, Verdict) else None)
            or v.winner_version
            or (max(v.winners) if v.winners else None)
        )
        return PairResult(
            source="race",
            loser=loser,
            label=loser.name,
            winner_version=deciding,
            before=COMMITS,
            after=after.outcome if isinstance(after, Verdict) else None,
            reason=reason
            if trusted
            else f"excluded: the model predicts {v.outcome} for this committed race",
            trusted=trusted,
            fragile_before=bool(race.fragile_under),
            fragile_after=fragile_after,
        )

    def _observed(self, rw: Rewriter, o: Observed, before: Verdict) -> PairResult:
        trusted = (before.outcome == COMMITS) == (o.outcome == COMMITS)
        after, reason, _ = self._after(rw, o.loser, o.winners, before)
        winner = (
            (after.winner_version if isinstance(after, Verdict) else None)
            or before.winner_version
            or max((w.version for w in o.winners if w.version is not None), default=None)
        )
        if not trusted:
            reason = f"excluded: observed {o.outcome} but the model predicts {before.outcome}"
        if o.inferred:
            reason = f"{o.inferred}; {reason}"
        return PairResult(
            source=o.source,
            loser=o.loser,
            label=o.label,
            winner_version=winner,
            before=o.outcome,
            after=after.outcome if isinstance(after, Verdict) else None,
            reason=reason,
            trusted=trusted,
        )

    def _after(
        self,
        rw: Rewriter,
        loser: Transaction,
        winners: Sequence[Transaction],
        baseline: Verdict,
        *,
        fragile_before: bool | None = None,
    ) -> tuple[Verdict | None, str, bool]:
        """The verdict under the scenario, why, and whether it is fragile (races only)."""
        pair = rw.pair(loser, winners)
        if pair.unchanged:
            why = baseline.reason if baseline.raised else quiet_reason(loser, baseline)
            return baseline, f"unchanged by the scenario: {why}", bool(fragile_before)
        verdict, reason = decide(pair)
        reason = with_evidence(reason, pair)
        if verdict is None:
            return None, reason, False
        flips = False
        if fragile_before is not None and verdict.outcome == COMMITS and pair.winners:
            found = fragility(
                pair.loser, pair.winners, pair.loser.provenance.profile, pair.history, verdict
            )
            flips = any(not _undoes(f.change, loser) for f in found)
        return verdict, reason, flips


def _undoes(change: str, original: Transaction) -> bool:
    """Whether a fragility perturbation only restores what ``original`` had before the scenario
    (that is the scenario's own change being undone, not fragility)."""
    if change.startswith("isolation="):
        return change.split("=", 1)[1] == original.read.isolation.value
    if change == WIDER_PREDICATE:
        pred = original.read.reads.partition_predicate
        return (
            original.read.reads.whole_table
            or isinstance(pred, TrueExpr)
            or (
                not original.table.partition_columns
                and not original.provenance.profile.stats_matching
            )
        )
    if change == NO_ROW_LEVEL_CONCURRENCY:
        return not has_row_level_concurrency(original.provenance.profile, original)
    return False
