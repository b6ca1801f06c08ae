"""The ``whatif`` document (``whatif-v2``): one scenario compared with the table's history.

The comparison itself is ``whatif``'s (:func:`~deltaforensics.whatif.document.compare_scenario`,
below this layer); this module only lays it out, with the same ``table`` section as the explain
report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from deltaforensics.analysis import ConflictAnalysis
from deltaforensics.log.commit_times import VersionWindow
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document.entry import FORMAT_VERSION, Entry
from deltaforensics.report.document.explain import Table
from deltaforensics.whatif.comparison import Balance, Comparison, PairResult
from deltaforensics.whatif.matrix import MatrixCell
from deltaforensics.whatif.recommendations.instructions import rewrites_table
from deltaforensics.whatif.scenario import Scenario


@dataclass(frozen=True, slots=True, kw_only=True)
class PairLoser(Entry):
    """A committed loser by its version, else an error's or attempt's loser by its label."""

    version: int | None = None
    attempt: str | None = None
    omitted_when_null = ("version", "attempt")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pair(Entry):
    """One (loser, winner) pair: its outcome before and under the scenario."""

    loser: PairLoser
    winner_version: int | None
    before: str
    after: str  # the baseline's when unknown (``known`` false)
    reason: str
    source: str  # "race" | "error" | "attempt"
    known: bool
    counted: bool
    fragile_before: bool
    fragile_after: bool

    @classmethod
    def from_result(cls, p: PairResult) -> Pair:
        version = p.loser_version
        return cls(
            loser=PairLoser(version=version) if version is not None else PairLoser(attempt=p.label),
            winner_version=p.winner_version,
            before=p.before,
            after=p.outcome_after,
            reason=p.reason,
            source=p.source,
            known=p.known,
            counted=p.counted,
            fragile_before=p.fragile_before,
            fragile_after=p.fragile_after,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Example(Entry):
    loser_version: int
    winner_version: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WriterPair(Entry):
    """One cell of the writer matrix: would ``writer_a`` fail if ``writer_b`` landed meanwhile."""

    writer_a: str
    writer_b: str
    before: str
    after: str  # the baseline's when unknown (``known`` false)
    known: bool
    samples: int
    conflicting_before: int
    conflicting_after: int
    unknown: int
    example: Example | None
    reason: str
    overlapped: int

    @classmethod
    def from_cell(cls, c: MatrixCell) -> WriterPair:
        return cls(
            writer_a=c.writer_a,
            writer_b=c.writer_b,
            before=c.before,
            after=c.outcome_after,
            known=c.known,
            samples=c.samples,
            conflicting_before=c.conflicting_before,
            conflicting_after=c.conflicting_after,
            unknown=c.unknown,
            example=(
                Example(loser_version=c.example[0], winner_version=c.example[1])
                if c.example
                else None
            ),
            reason=c.reason,
            overlapped=c.overlapped,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIfDocument(Entry):
    """The ``whatif`` report."""

    format_version: int = FORMAT_VERSION
    table: Table
    scenario: Scenario
    rewrites_table: bool = False  # applying the scenario rewrites the table (issue #31)
    baseline: Balance
    result: Balance
    conflicts_avoided: int
    conflicts_introduced: int
    evaluated_on: Mapping[str, int]
    unknown: int
    hypothetical: Mapping[str, int]
    by_source: Mapping[str, Mapping[str, int]]
    pairs: tuple[Pair, ...]
    writer_matrix: tuple[WriterPair, ...]
    confidence: str
    diagnostics: tuple[Diagnostic, ...]
    time_window: VersionWindow | None = None  # --since/--until
    omitted_when_null = ("time_window",)

    @classmethod
    def from_comparison(
        cls, comparison: Comparison, table: Table, *, rewrites_table: bool = False
    ) -> WhatIfDocument:
        return cls(
            table=table,
            scenario=comparison.scenario,
            rewrites_table=rewrites_table,
            baseline=comparison.baseline,
            result=comparison.result,
            conflicts_avoided=comparison.conflicts_avoided,
            conflicts_introduced=comparison.conflicts_introduced,
            evaluated_on=comparison.evaluated_on,
            unknown=comparison.unknown,
            hypothetical=comparison.hypothetical,
            by_source=comparison.by_source(),
            pairs=tuple(
                Pair.from_result(p) for p in comparison.pairs if p.winner_version is not None
            ),
            writer_matrix=tuple(WriterPair.from_cell(c) for c in comparison.matrix),
            confidence=comparison.confidence,
            diagnostics=comparison.diagnostics,
        )


def whatif_document(analysis: ConflictAnalysis, comparison: Comparison) -> WhatIfDocument:
    """The ``whatif-v2`` document of ``comparison`` (from
    :func:`~deltaforensics.whatif.document.compare_scenario` on ``analysis``)."""
    replay = analysis.loaded.replay
    partitioned = replay.metadata_at(replay.end_version).partition_columns
    rewrites = any(rewrites_table(c, partitioned) for c in comparison.scenario.changes)
    return WhatIfDocument.from_comparison(
        comparison, Table.from_analysis(analysis), rewrites_table=rewrites
    )
