"""The evaluation set of an analysis, for the what-if comparisons and the recommendations, and
the comparison of one scenario that ``whatif`` reports (:func:`compare_scenario`).

``whatif`` sits below ``analysis`` and ``report`` in the layers, so it takes the analysis by
shape (:class:`AnalysisLike`); the ``whatif-v2`` document is laid out by
``deltaforensics.report.document.whatif``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from deltaforensics.replay import Replay
from deltaforensics.whatif.column_checks import check_scenario_columns
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.evaluation import DEFAULT_SAMPLES, Evaluation
from deltaforensics.whatif.scenario import Scenario
from deltaforensics.whatif.statistics import StatRanges


class LoadedLike(Protocol):
    @property
    def replay(self) -> Replay: ...


class AnalysisLike(Protocol):
    """What ``deltaforensics.analysis.ConflictAnalysis`` offers (structural, no import)."""

    @property
    def loaded(self) -> LoadedLike: ...
    @property
    def transactions(self) -> Sequence[Any]: ...
    @property
    def races(self) -> tuple[Any, ...]: ...
    def observed_errors(self) -> Sequence[Any]:
        """The conflicts of the error texts whose failed statement is known or inferred."""
        ...

    def unmeasured_errors(self) -> int:
        """The conflicts of the error texts seen but not measured (statement unknown)."""
        ...


def evaluation_for(
    analysis: AnalysisLike,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
    statistics: StatRanges | None = None,
    overlapping_writers_only: bool = False,
    unmeasured_errors: int = 0,
) -> Evaluation:
    return Evaluation(
        analysis.transactions,
        analysis.races,
        analysis.loaded.replay,
        errors=errors,
        attempts=attempts,
        samples=samples,
        statistics=statistics,
        overlapping_writers_only=overlapping_writers_only,
        unmeasured_errors=unmeasured_errors,
    )


def compare_scenario(
    analysis: AnalysisLike,
    scenario: Scenario,
    errors: Sequence[Any] | None = None,
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
) -> Comparison:
    """``scenario`` compared with the analysed history: what the ``whatif`` command reports.

    ``errors`` / ``attempts``: :class:`~deltaforensics.whatif.comparison.Observed` values or
    ``(loser, winners, outcome)`` tuples (``errors`` None: the analysis' own error texts,
    those whose failed statement is not known counted as seen but unmeasured); ``samples``: commits per writer and direction in
    the writer matrix (0 leaves the matrix out). A column the table (at the analysed version)
    does not have, or cannot be partitioned or clustered by, raises ``UsageError``."""
    replay = analysis.loaded.replay
    check_scenario_columns(scenario, replay.metadata_at(replay.end_version).column_types)
    unmeasured = 0
    if errors is None:
        errors, unmeasured = analysis.observed_errors(), analysis.unmeasured_errors()
    return evaluation_for(
        analysis, errors, attempts, samples=samples, unmeasured_errors=unmeasured
    ).compare(scenario)
