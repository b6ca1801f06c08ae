"""What an attempted statement is planned against, and the plan its statement family fills.

Both are builders rather than values: a planner fills its :class:`WritePlan` step by step, and
lowers the context's confidence (with a note saying why) wherever it has to guess.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.profiles import Profile
from deltaforensics.profiles.statement_writers import StatementWriter
from deltaforensics.replay import Replay
from deltaforensics.statements import Statement

_CONFIDENCE = ("low", "medium", "high")


@dataclass
class AttemptContext:
    """The parsed statement, the table as it stood at the read version, and what the planners
    noted on the way (``notes`` join the read reason; ``confidence`` only ever goes down)."""

    stmt: Statement
    replay: Replay
    read_version: int
    profile: Profile
    md: Metadata
    protocol: Protocol
    live: pl.DataFrame
    writes: Mapping[str, str] | None
    notes: list[str] = field(default_factory=list)
    confidence: str = "high"

    @property
    def writer(self) -> StatementWriter:
        return self.profile.writer

    @property
    def cols(self) -> tuple[str, ...]:
        return self.md.partition_columns

    @property
    def fields(self) -> tuple[str, ...]:
        return self.replay.frames.partition_columns

    @property
    def schema_fields(self) -> list[dict[str, Any]]:
        """The read version's schema fields as Delta writes them (name, type, metadata); none
        when the schema string is not JSON."""
        try:
            return list(json.loads(self.md.schema_string or "{}").get("fields") or [])
        except ValueError:
            return []

    def lower(self, confidence: str, note: str | None = None) -> None:
        if _CONFIDENCE.index(confidence) < _CONFIDENCE.index(self.confidence):
            self.confidence = confidence
        if note:
            self.notes.append(note)


@dataclass
class WritePlan:
    """What one statement family decided: the commitInfo it records, the files it removes
    (``None``: none) and the partitions it adds a file to, with that file's stats JSON."""

    operation: str
    params: dict[str, Any]
    recorded_blind: bool | None = None
    recorded_isolation: str | None = None
    removed: pl.DataFrame | None = None
    added: list[tuple[dict[str, str | None], str | None]] = field(default_factory=list)
    data_change: bool = True
    changes_metadata: bool = False
    change_keys: tuple[str, ...] = ()
    change_other: bool = False
    changes_protocol: bool = False
    dynamic: bool = False
    z_order: tuple[str, ...] = ()
    self_read: str | None = None  # Spark INSERT … SELECT over the target: its WHERE
