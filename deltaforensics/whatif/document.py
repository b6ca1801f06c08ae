"""The ``whatif-v1`` JSON document: one scenario compared with the table's own history.

``whatif` sits below ``analysis`` and ``report`` in the layers, so it takes the analysis by
shape (:class:`AnalysisLike`) and builds the ``table`` section itself, with the same fields and
rules as ``report.explain.table_section`` (pass ``table=`` to use that one verbatim).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.compare import DEFAULT_SAMPLES, Evaluation
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.scenario import Scenario
from deltaforensics.whatif.statistics import StatRanges

FORMAT_VERSION = 1


class LoadedLike(Protocol):
    @property
    def replay(self) -> Replay: ...


class AnalysisLike(Protocol):
    """What ``deltaforensics.analysis.ConflictAnalysis`` offers (structural, no import)."""

    @property
    def loaded(self) -> LoadedLike: ...
    @property
    def transactions(self) -> tuple[Any, ...]: ...
    @property
    def races(self) -> tuple[Any, ...]: ...


def evaluation_for(
    analysis: AnalysisLike,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
    statistics: StatRanges | None = None,
) -> Evaluation:
    return Evaluation(
        analysis.transactions,
        analysis.races,
        analysis.loaded.replay,
        errors=errors,
        attempts=attempts,
        samples=samples,
        statistics=statistics,
    )


def table_section(replay: Replay, transactions: Sequence[Transaction]) -> dict[str, Any]:
    """The explain report's ``table`` section."""
    snap = replay.snapshot_at(replay.end_version)
    return {
        "uri": replay.uri,
        "first_version": replay.first_version,
        "latest_version": replay.end_version,
        "partition_columns": list(snap.metadata.partition_columns),
        "clustering_columns": list(snap.clustering_columns),
        "isolation_level": table_isolation(replay, transactions),
        "features": list(snap.protocol.features),
        "engines_seen": sorted({t.profile.engine for t in transactions}),
        "num_commits": len(transactions),
        "num_files": snap.num_files,
    }


def table_isolation(replay: Replay, transactions: Sequence[Transaction]) -> dict[str, str]:
    prop = replay.metadata_at(replay.end_version).configuration.get("delta.isolationLevel")
    if prop:
        return {"value": prop, "source": "table property delta.isolationLevel"}
    recorded = Counter(
        t.isolation.value for t in transactions if t.isolation_source == "commitInfo.isolationLevel"
    )
    if recorded:
        return {
            "value": recorded.most_common(1)[0][0],
            "source": "most frequent commitInfo.isolationLevel",
        }
    engines = {t.profile.engine for t in transactions}
    default = "WriteSerializable" if engines == {"databricks"} else "Serializable"
    return {"value": default, "source": "engine default (no property, nothing recorded)"}


def comparison_document(comparison: Comparison, table: dict[str, Any]) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "table": table,
        "scenario": comparison.scenario.to_dict(),
        "baseline": comparison.baseline,
        "result": comparison.result,
        "conflicts_avoided": comparison.conflicts_avoided,
        "conflicts_introduced": comparison.conflicts_introduced,
        "evaluated_on": comparison.evaluated_on,
        "unknown": comparison.unknown,
        "by_source": comparison.by_source(),
        "pairs": [p.to_dict() for p in comparison.pairs if p.winner_version is not None],
        "writer_matrix": [c.to_dict() for c in comparison.matrix],
        "confidence": comparison.confidence,
        "diagnostics": [d.to_dict() for d in comparison.diagnostics],
    }


def whatif_document(
    analysis: AnalysisLike,
    scenario: Scenario,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
    table: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``whatif-v1`` document for ``scenario``.

    ``errors`` / ``attempts``: :class:`~deltaforensics.whatif.comparison.Observed` values or
    ``(loser, winners, outcome)`` tuples; ``samples``: commits per writer and direction in
    the writer matrix (0 leaves the matrix out)."""
    evaluation = evaluation_for(analysis, errors, attempts, samples=samples)
    comparison = evaluation.compare(scenario)
    rep = analysis.loaded.replay
    return comparison_document(
        comparison, table if table is not None else table_section(rep, evaluation.transactions)
    )
