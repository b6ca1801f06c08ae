"""What-if changes as data: each a small frozen value with a stable ``to_dict()``.

A :class:`Scenario` is a tuple of changes applied together. The values say *what* changes, not
how it is evaluated (:mod:`deltaforensics.whatif.transform`) or applied to a real table
(:mod:`deltaforensics.whatif.recommendations.instructions`). ``kind`` strings are part of the JSON contract
(``whatif-v2``) and never change meaning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

DEFAULT_MERGE_OPERATIONS = ("MERGE",)


@dataclass(frozen=True, slots=True)
class _ColumnsChange:
    """A change over a list of columns, given as names or as comma-separated text."""

    columns: tuple[str, ...]
    kind: ClassVar[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", _columns(self.columns))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "columns": list(self.columns)}


@dataclass(frozen=True, slots=True)
class PartitionBy(_ColumnsChange):
    """Re-partition the table by ``columns`` (replacing the current partition columns)."""

    kind: ClassVar[str] = "partition-by"


@dataclass(frozen=True, slots=True)
class IsolationChange:
    """Set ``delta.isolationLevel`` to ``level`` *as spelled*: engines parse it differently
    (delta-rs only reads camelCase ``writeSerializable``; Spark is case-insensitive)."""

    level: str
    kind: ClassVar[str] = "isolation"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "level": self.level}


@dataclass(frozen=True, slots=True)
class DeletionVectors:
    """Enable deletion vectors; on Databricks this brings row-level concurrency to
    unpartitioned tables and OPTIMIZE-without-ZORDER tolerance to all tables."""

    kind: ClassVar[str] = "deletion-vectors"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Liquid(_ColumnsChange):
    """Replace partitioning by liquid clustering on ``columns`` (the table becomes unpartitioned)."""

    kind: ClassVar[str] = "liquid"


@dataclass(frozen=True, slots=True)
class ExplicitMergePredicates:
    """Add literal partition conjuncts (the partitions each commit actually touched) to the
    conditions of ``operations`` — MERGE ON by default (semantics doc A.11, scenario 10)."""

    operations: tuple[str, ...] = DEFAULT_MERGE_OPERATIONS
    kind: ClassVar[str] = "explicit-merge-predicates"

    def __post_init__(self) -> None:
        object.__setattr__(self, "operations", tuple(o.upper() for o in _columns(self.operations)))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "operations": list(self.operations)}


@dataclass(frozen=True, slots=True)
class SeparateSchedules:
    """Never run ``writer_a`` and ``writer_b`` at the same time (equal names: one instance at a
    time). Writer names are those of :func:`deltaforensics.whatif.writers.writer_of`."""

    writer_a: str
    writer_b: str
    kind: ClassVar[str] = "separate-schedules"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "writer_a": self.writer_a, "writer_b": self.writer_b}


@dataclass(frozen=True, slots=True)
class MarkBlindAppends:
    """Have ``writer`` record ``isBlindAppend: true`` on its pure appends (delta-rs:
    ``CommitProperties(custom_metadata={"isBlindAppend": True})``; semantics doc A.11 last row)."""

    writer: str
    kind: ClassVar[str] = "mark-blind-appends"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "writer": self.writer}


Change = (
    PartitionBy
    | IsolationChange
    | DeletionVectors
    | Liquid
    | ExplicitMergePredicates
    | SeparateSchedules
    | MarkBlindAppends
)


@dataclass(frozen=True, slots=True)
class Scenario:
    changes: tuple[Change, ...]

    @classmethod
    def of(cls, *changes: Change) -> Scenario:
        return cls(tuple(changes))

    def to_dict(self) -> dict[str, Any]:
        return {"changes": [c.to_dict() for c in self.changes]}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Scenario:
        return cls(tuple(change_from_dict(c) for c in doc.get("changes") or ()))

    def find(self, kind: type[Any]) -> list[Any]:
        return [c for c in self.changes if isinstance(c, kind)]


def _columns(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(c.strip() for c in value.split(",") if c.strip())
    if isinstance(value, Sequence):
        return tuple(str(c) for c in value)
    raise ValueError(f"columns must be a list of names, not {value!r}")


def change_from_dict(doc: Mapping[str, Any]) -> Change:
    """The inverse of ``to_dict()``; raises ValueError naming what is wrong."""
    kind = doc.get("kind")
    if kind == PartitionBy.kind:
        return PartitionBy(_columns(doc.get("columns")))
    if kind == IsolationChange.kind:
        return IsolationChange(str(doc["level"]))
    if kind == DeletionVectors.kind:
        return DeletionVectors()
    if kind == Liquid.kind:
        return Liquid(_columns(doc.get("columns")))
    if kind == ExplicitMergePredicates.kind:
        ops = doc.get("operations") or DEFAULT_MERGE_OPERATIONS
        return ExplicitMergePredicates(tuple(str(o).upper() for o in ops))
    if kind == SeparateSchedules.kind:
        return SeparateSchedules(str(doc["writer_a"]), str(doc["writer_b"]))
    if kind == MarkBlindAppends.kind:
        return MarkBlindAppends(str(doc["writer"]))
    raise ValueError(f"unknown what-if change kind {kind!r}")
