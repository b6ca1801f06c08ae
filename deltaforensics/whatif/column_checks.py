"""The columns a what-if change names, checked against the table's schema before anything is
evaluated (issue #31 item 4): a typo or a column Delta cannot lay a table out by is a usage
error (exit 2), never an answer about a layout that cannot exist.

Delta's rules, read in its source (not copied):

- **Partition columns** cannot be of a complex type: ``StructType``, ``MapType``,
  ``ArrayType`` (``DeltaErrors.cannotUseDataTypeForPartitionColumnError``, raised from the
  partition-column checks of ``SchemaUtils``), nor ``VARIANT`` (no ordering, no equality).
- **Clustering columns** must have statistics collected
  (``ClusteredTableUtils.validateClusteringColumnsInStatsSchema`` →
  ``DELTA_CLUSTERING_COLUMN_MISSING_STATS``): only types eligible for data skipping
  (``SkippingEligibleDataType``: byte, short, int, long, float, double, decimal, date,
  timestamp, timestamp_ntz, string) have min/max statistics; boolean, binary and the complex
  types do not. (Whether the column is among the first ``delta.dataSkippingNumIndexedCols``
  columns is a table property that can be changed, so it is not checked here.)
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping

from deltaforensics.errors import UsageError
from deltaforensics.whatif.scenario import Liquid, PartitionBy, Scenario

_COMPLEX = ("struct", "map", "array", "variant")
_CLUSTERABLE = (
    "byte",
    "short",
    "integer",
    "long",
    "float",
    "double",
    "date",
    "timestamp",
    "timestamp_ntz",
    "string",
)


def type_name(recorded: str) -> str:
    """The type's name as the schema records it: ``"date"``, ``"decimal(10,2)"``, or the
    ``type`` of a complex type (kept as JSON text)."""
    text = recorded.strip()
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            return text
        return str(doc.get("type", text)) if isinstance(doc, dict) else text
    return text.lower()


def check_scenario_columns(scenario: Scenario, column_types: Mapping[str, str]) -> None:
    """Raise :class:`UsageError` naming the first column of a ``--partition-by`` or
    ``--liquid`` change the table (``column_types``: its schema at the analysed version)
    does not have, or cannot be laid out by; a table without a recorded schema is not
    checked."""
    if not column_types:
        return  # no schema recorded at that version: nothing to check against
    by_lower = {name.lower(): name for name in column_types}
    for change in scenario.changes:
        if not isinstance(change, PartitionBy | Liquid):
            continue
        option = "--partition-by" if isinstance(change, PartitionBy) else "--liquid"
        for column in change.columns:
            name = by_lower.get(column.lower())
            if name is None:
                raise UsageError(_missing(option, column, list(column_types)))
            kind = type_name(column_types[name])
            if isinstance(change, PartitionBy) and kind in _COMPLEX:
                raise UsageError(
                    f"{option} {column}: the column is of type {kind.upper()}, and Delta cannot "
                    "partition a table by a STRUCT, MAP, ARRAY or VARIANT column"
                )
            if isinstance(change, Liquid) and not (
                kind in _CLUSTERABLE or kind.startswith("decimal")
            ):
                raise UsageError(
                    f"{option} {column}: the column is of type {kind.upper()}, which has no "
                    "min/max statistics, and Delta clusters only by columns with statistics "
                    "(DELTA_CLUSTERING_COLUMN_MISSING_STATS)"
                )


def _missing(option: str, column: str, columns: list[str]) -> str:
    text = f"{option} {column}: the table has no column {column!r}"
    close = difflib.get_close_matches(column.lower(), [c.lower() for c in columns], n=1)
    if close:
        nearest = next(c for c in columns if c.lower() == close[0])
        return f"{text}; did you mean {nearest}?"
    return f"{text} (columns: {', '.join(columns[:12])})"
