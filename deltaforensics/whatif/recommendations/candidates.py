"""Which change would have prevented the table's conflicts — measured, not guessed.

Every candidate is evaluated with :class:`~deltaforensics.whatif.evaluation.Evaluation` on the
table's own races, errors, attempts and writer matrix; a candidate is recommended only if it
avoids at least one conflict or fragile race and introduces none, or avoids more than it
introduces (the rationale then states the trade-off). Engine rules (semantics doc §A.11, §F;
users-and-peers §0): Serializable is never a fix; row-level concurrency (deletion vectors,
liquid clustering) is offered only when every data-changing writer runs on Databricks;
isolation is spelled so every writer parses it (delta-rs reads camelCase only); on open-source
Delta, WriteSerializable can be kept but not set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from deltaforensics.conflicts.checker import COMMITS
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.ir import column_refs
from deltaforensics.profiles import parse_isolation
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.assess import committing_profiles, rlc_engines, statistics_to_read
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.document import AnalysisLike, evaluation_for
from deltaforensics.whatif.evaluation import DEFAULT_SAMPLES, Evaluation
from deltaforensics.whatif.recommendations.instructions import (
    TableFacts,
    apply_text,
    isolation_value,
    rewrites_table,
)
from deltaforensics.whatif.recommendations.rationale import rationale
from deltaforensics.whatif.scenario import (
    Change,
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
from deltaforensics.whatif.transaction_edits import is_pure_append
from deltaforensics.whatif.writers import writer_of

MAX_COLUMNS = 4  # partition / clustering candidates: the columns predicates use most
MAX_SCHEDULES = 3
# How far a change reaches (issue #31 item 3): a statement-level fix (a literal partition
# conjunct, a blind-append flag on the write) first, then table properties and schedules, then
# the layout (partitioning, clustering). Among changes of equal seen effect the nearer one wins.
_COST = {
    "explicit-merge-predicates": 0,
    "mark-blind-appends": 0,
    "isolation": 1,
    "separate-schedules": 1,
    "deletion-vectors": 1,
    "liquid": 2,
    "partition-by": 2,
}
_RANK = {"high": 2, "medium": 1, "low": 0}


class Rank(NamedTuple):
    """Where a recommendation sorts, best first (each part smaller is better; issue #31 item 3):
    one that can be applied first; then the seen conflicts it avoids; then, among equals, the
    changes that rewrite the table last (a statement fix, then a table property, then a layout
    change); then the fragile races it makes safe; then the conflicts it introduces; then the
    overlapping writer pairs it avoids and the confidence."""

    not_applicable: bool
    seen_avoided: int  # negated: more avoided sorts first
    rewrites_table: bool
    cost: int
    fragile_avoided: int  # negated
    introduced: int
    exposure_avoided: int  # negated
    confidence: int  # negated rank of high / medium / low


@dataclass(frozen=True, slots=True, kw_only=True)
class Recommendation:
    """A change measured on the table's history that helps, with how to apply it here: the
    report's ``recommendations`` entry (its fields are the JSON keys, in order)."""

    change: Change
    conflicts_avoided: int
    conflicts_introduced: int
    fragile_races_avoided: int
    evaluated_on: Mapping[str, int]
    hypothetical: Mapping[str, int]
    confidence: str
    rationale: str
    apply: str | None  # None: the change cannot be applied as stated (``applicable`` False)
    applicable: bool
    rewrites_table: bool = False  # applying it rewrites the table: fails every concurrent writer

    @property
    def rank(self) -> Rank:
        """Where it sorts among the recommendations, best first."""
        hyp = self.hypothetical
        exposure = hyp["avoided"] - hyp["introduced"] if hyp["overlapped"] else 0
        return Rank(
            not_applicable=not self.applicable,
            seen_avoided=-self.conflicts_avoided,
            rewrites_table=self.rewrites_table,
            cost=_COST.get(self.change.kind, 9),
            fragile_avoided=-self.fragile_races_avoided,
            introduced=self.conflicts_introduced,
            exposure_avoided=-max(exposure, 0),
            confidence=-_RANK[self.confidence],
        )

    @property
    def rewrite_for_nothing_seen(self) -> bool:
        """A table rewrite that avoids no seen conflict: never the first recommendation."""
        return self.rewrites_table and self.conflicts_avoided == 0


def recommend(
    analysis: AnalysisLike,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
    unmeasured: int = 0,
    overlapping_writers_only: bool = False,
) -> list[Recommendation]:
    """Every recommendation for explain's ``recommendations``, best first; none where the
    history holds no race, error or attempt (nothing was seen to prevent). ``unmeasured``:
    conflicts seen in error texts that no evaluated pair stands for (the rationale says so).

    The statistics a partitioning candidate would need start being read here, on a second
    thread, before the evaluation set is built (Python work they overlap)."""
    if not analysis.races and not errors and not attempts:
        return []
    replay = analysis.loaded.replay
    statistics = StatRanges(replay)
    schema = list(replay.metadata_at(replay.end_version).column_types)
    counts = predicate_column_counts((t for t in analysis.transactions if t.version != 0), schema)
    columns = [c for c, _ in counts.most_common(MAX_COLUMNS)]
    statistics.warm(lambda: statistics_to_read(columns, replay, statistics))
    evaluation = evaluation_for(
        analysis,
        errors,
        attempts,
        samples=samples,
        statistics=statistics,
        overlapping_writers_only=overlapping_writers_only,
        unmeasured_errors=unmeasured,
    )
    facts = TableFacts.of(evaluation.replay, evaluation.participants)
    losers = (o.loser for o in evaluation.evidence if o.loser.version != 0)
    changes = candidates(evaluation, facts, predicate_column_counts(losers, schema, counts))
    found: dict[int, Recommendation | None] = {}
    # partitionings last, their statistics still being read on the other thread meanwhile
    later = {i: change for i, change in enumerate(changes) if isinstance(change, PartitionBy)}
    for i, change in enumerate(changes):
        if i in later:
            continue
        if isinstance(change, IsolationChange) and _is_serializable(
            change, evaluation.participants
        ):
            continue  # evaluated by `whatif --isolation Serializable`, never offered as a fix
        found[i] = _entry(
            change, evaluation.compare(Scenario.of(change)), facts, evaluation, unmeasured
        )
    partitioning = [c for change in later.values() for c in change.columns]
    evaluation.prefetch_statistics(partitioning)
    for i, change in later.items():
        if evaluation.layout_warning(change):
            continue  # partitioning by a high-cardinality key is folklore, not a fix
        found[i] = _entry(
            change, evaluation.compare(Scenario.of(change)), facts, evaluation, unmeasured
        )
    entries = [e for _, e in sorted(found.items()) if e is not None]
    entries.sort(key=lambda e: e.rank)
    return entries


def _is_serializable(change: IsolationChange, transactions: Sequence[Transaction]) -> bool:
    levels = {parse_isolation(change.level, p) for p in committing_profiles(transactions)}
    return IsolationLevel.SERIALIZABLE in levels


def candidates(
    evaluation: Evaluation, facts: TableFacts, counts: Counter[str] | None = None
) -> list[Change]:
    """``counts``: :func:`predicate_column_counts` of the participants, when known."""
    txns = [t for t in evaluation.participants if t.version != 0]
    out: list[Change] = []
    if any(
        t.read.isolation is IsolationLevel.SERIALIZABLE and not t.read.reads.blind for t in txns
    ):
        out.append(IsolationChange(isolation_value(facts)))
    if facts.partition_columns and any(t.provenance.operation == "MERGE" for t in txns):
        out.append(ExplicitMergePredicates())
    if counts is None:
        counts = predicate_column_counts(txns, facts.columns)
    columns = [c for c, _ in counts.most_common(MAX_COLUMNS)]
    current = [c.lower() for c in facts.partition_columns]
    rlc = rlc_engines(txns)
    for col in columns:
        if [col.lower()] != current:
            out.append(PartitionBy((col,)))
    if rlc and not facts.clustered and (facts.partition_columns or columns):
        out.append(Liquid(facts.partition_columns or (columns[0],)))  # RLC ignores the columns
    if rlc and not facts.deletion_vectors:
        out.append(DeletionVectors())
    out += [SeparateSchedules(a, b) for a, b in conflicting_writers(evaluation)]
    named = {id(t): name for name, ts in evaluation.by_writer.items() for t in ts}
    rs_appenders = sorted(
        {
            named.get(id(t)) or writer_of(t)  # the evaluation has named every participant
            for t in txns
            if t.provenance.profile.commit_info_from_user
            and t.provenance.is_blind_append is None
            and is_pure_append(t)
        }
    )
    if rs_appenders and any(
        not t.provenance.profile.commit_info_from_user for t in txns if not t.read.reads.blind
    ):
        out += [MarkBlindAppends(w) for w in rs_appenders]
    return out


def predicate_column_counts(
    transactions: Iterable[Transaction], columns: Sequence[str], into: Counter[str] | None = None
) -> Counter[str]:
    """How many of the transactions' recorded conditions filter on each table column, after
    those counted in ``into`` (which is not changed)."""
    schema = {c.lower(): c for c in columns}
    counts: Counter[str] = Counter(into or {})
    named: dict[int, list[str]] = {}  # per predicate object: a statement's commits share one
    for t in transactions:
        pred = t.read.reads.full_predicate
        if pred is None or t.read.reads.blind:
            continue
        found = named.get(id(pred))
        if found is None:
            refs = {c.name.lower() for c in column_refs(pred)}
            found = named[id(pred)] = [schema[n] for n in refs if n in schema]
        counts.update(found)
    return counts


def conflicting_writers(evaluation: Evaluation) -> list[tuple[str, str]]:
    """Writer pairs that conflict when they overlap (matrix) and really overlapped (races),
    or did conflict (evidence)."""
    counts: Counter[tuple[str, str]] = Counter()
    for (a, b), samples in evaluation.cells.items():
        hits = sum(1 for s in samples if s.before.outcome != COMMITS)
        if hits and evaluation.overlaps[(a, b)]:
            x, y = sorted((a, b))
            counts[(x, y)] += hits
    for o, before in zip(evaluation.evidence, evaluation.evidence_before, strict=True):
        winner = next((w for w in o.winners if w.version == before.winner_version), None)
        if o.outcome != COMMITS and winner is not None:
            a, b = sorted((writer_of(o.loser), writer_of(winner)))
            counts[(a, b)] += 1
    return [pair for pair, _ in counts.most_common(MAX_SCHEDULES)]


def _entry(
    change: Change,
    cmp: Comparison,
    facts: TableFacts,
    evaluation: Evaluation,
    unmeasured: int = 0,
) -> Recommendation | None:
    avoided, introduced = cmp.conflicts_avoided, cmp.conflicts_introduced
    fragile = cmp.baseline.fragile_races - cmp.result.fragile_races
    hyp = cmp.hypothetical
    exposure = hyp["avoided"] - hyp["introduced"] if hyp["overlapped"] else 0
    if introduced == 0 and avoided + max(fragile, 0) + max(exposure, 0) == 0:
        return None  # nothing seen is prevented, nor writers that really overlapped
    if introduced and avoided <= introduced:
        return None
    apply = apply_text(change, facts, evaluation.participants)
    applicable = apply is not None
    return Recommendation(
        change=change,
        conflicts_avoided=avoided,
        conflicts_introduced=introduced,
        fragile_races_avoided=max(fragile, 0),
        evaluated_on=cmp.evaluated_on,
        hypothetical=cmp.hypothetical,
        confidence=cmp.confidence,
        rationale=rationale(change, cmp, facts, fragile, unmeasured),
        apply=apply,
        applicable=applicable,
        rewrites_table=rewrites_table(change, facts.partition_columns),
    )
