"""What-if: which change would have prevented a table's conflicts, measured on its history.

Scenarios are data (:mod:`.scenario`); applying one is pure (:mod:`.transform`); the same
checker judges the table's races, the pasted errors / attempts and the writer matrix before
and after (:mod:`.evaluation`); :mod:`.recommendations` evaluates candidate changes and returns the
engine-aware ones that help. Entry point: :func:`recommend` (the ``whatif-v2`` document is
laid out by :mod:`deltaforensics.report.document.whatif`).
"""

from __future__ import annotations

from deltaforensics.whatif.comparison import Comparison, Observed
from deltaforensics.whatif.evaluation import Evaluation
from deltaforensics.whatif.recommendations.candidates import recommend
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
    change_from_dict,
)

__all__ = [
    "Change",
    "Comparison",
    "DeletionVectors",
    "Evaluation",
    "ExplicitMergePredicates",
    "IsolationChange",
    "Liquid",
    "MarkBlindAppends",
    "Observed",
    "PartitionBy",
    "Scenario",
    "SeparateSchedules",
    "change_from_dict",
    "recommend",
]
