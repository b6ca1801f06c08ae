"""The ``whatif`` document (``whatif-v1``): one scenario compared with the table's history.

The comparison itself is ``whatif``'s (below this layer); this module only lays it out, with
the same ``table`` section as the explain report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deltaforensics.analysis import ConflictAnalysis
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document.entry import FORMAT_VERSION, Entry
from deltaforensics.report.document.explain import Table
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.document import evaluation_for
from deltaforensics.whatif.evaluation import DEFAULT_SAMPLES
from deltaforensics.whatif.scenario import Scenario


@dataclass(frozen=True, slots=True, kw_only=True)
class Balance(Entry):
    """Conflicts and fragile races, before or after the scenario."""

    conflicts: int
    fragile_races: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIfDocument(Entry):
    """The ``whatif`` report; its pairs and writer matrix keep the JSON form ``whatif`` gives
    them (``PairResult.to_dict``, ``MatrixCell.to_dict``)."""

    format_version: int = FORMAT_VERSION
    table: Table
    scenario: Mapping[str, Any]
    baseline: Balance
    result: Balance
    conflicts_avoided: int
    conflicts_introduced: int
    evaluated_on: Mapping[str, int]
    unknown: int
    hypothetical: Mapping[str, int]
    by_source: Mapping[str, Mapping[str, int]]
    pairs: tuple[Mapping[str, Any], ...]
    writer_matrix: tuple[Mapping[str, Any], ...]
    confidence: str
    diagnostics: tuple[Diagnostic, ...]
    time_window: Mapping[str, Any] | None = None  # --since/--until (VersionWindow.to_dict)
    omitted_when_null = ("time_window",)

    @classmethod
    def from_comparison(cls, comparison: Comparison, table: Table) -> WhatIfDocument:
        return cls(
            table=table,
            scenario=comparison.scenario.to_dict(),
            baseline=Balance(**comparison.baseline),
            result=Balance(**comparison.result),
            conflicts_avoided=comparison.conflicts_avoided,
            conflicts_introduced=comparison.conflicts_introduced,
            evaluated_on=comparison.evaluated_on,
            unknown=comparison.unknown,
            hypothetical=comparison.hypothetical,
            by_source=comparison.by_source(),
            pairs=tuple(p.to_dict() for p in comparison.pairs if p.winner_version is not None),
            writer_matrix=tuple(c.to_dict() for c in comparison.matrix),
            confidence=comparison.confidence,
            diagnostics=comparison.diagnostics,
        )


def whatif_document(
    analysis: ConflictAnalysis,
    scenario: Scenario,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
) -> dict[str, Any]:
    """The ``whatif-v1`` document's JSON form for ``scenario``.

    ``errors`` / ``attempts``: :class:`~deltaforensics.whatif.evaluation.Observed` values or
    ``(loser, winners, outcome)`` tuples; ``samples``: commits per writer and direction in
    the writer matrix (0 leaves the matrix out)."""
    comparison = evaluation_for(analysis, errors, attempts, samples=samples).compare(scenario)
    return WhatIfDocument.from_comparison(comparison, Table.from_analysis(analysis)).to_dict()
