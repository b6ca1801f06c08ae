"""What-if changes said in Delta's words, for the HTML pages (the report's recommendations and
the audit dashboard): "Partition the table by date" rather than the change's JSON kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.report.plain import change_text
from deltaforensics.whatif.scenario import (
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    SeparateSchedules,
)


def _names(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def change_words(change: Mapping[str, Any]) -> str:
    """One imperative sentence per change kind (``whatif/scenario.py``); a kind this does not
    know yet is shown as its parameters, never dropped."""
    kind = change.get("kind")
    if kind == PartitionBy.kind:
        return f"Partition the table by {_names(change.get('columns', []))}"
    if kind == Liquid.kind:
        return f"Use liquid clustering on {_names(change.get('columns', []))} instead of partitions"
    if kind == IsolationChange.kind:
        return f"Set the table's isolation level: delta.isolationLevel = '{change.get('level')}'"
    if kind == DeletionVectors.kind:
        return "Enable deletion vectors (delta.enableDeletionVectors = true)"
    if kind == ExplicitMergePredicates.kind:
        ops = _names(change.get("operations", ["MERGE"]))
        return f"Name the partitions each {ops} touches as literals in its condition"
    if kind == SeparateSchedules.kind:
        a, b = change.get("writer_a"), change.get("writer_b")
        if a == b:
            return f"Run one instance of {a} at a time"
        return f"Never run {a} and {b} at the same time"
    if kind == MarkBlindAppends.kind:
        return f"Have {change.get('writer')} record its appends as blind appends (isBlindAppend)"
    return change_text(change)
