"""A conflict entry of the ``report-v2`` document: a failure seen in an error text, harvested
from where an engine recorded it, or predicted for an attempted statement; and the transaction
that lost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from deltaforensics.conflicts.checker import Verdict
from deltaforensics.evidence.winners import ErrorConflict
from deltaforensics.report.document.entry import Entry

Partition = Mapping[str, str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Loser(Entry):
    """The transaction that failed: a committed version, or a statement that never committed."""

    version: int | None = None
    statement: str | None = None
    read_version: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Conflict(Entry):
    """A failure seen in an error text, harvested from Spark's records (``source`` ``eventlog``
    or ``driverlog``, issue #33), or predicted for an attempted statement.

    A harvested failure adds what its record says: ``app_id`` (the Spark application),
    ``started_at``/``failed_at`` (ms since the epoch) and ``records`` (every file, or pasted
    text, that showed this one failure); absent when null."""

    source: str
    loser: Loser
    winner_version: int | None
    candidates: tuple[int, ...]
    exception: str
    code: str | None
    reason: str
    partitions: tuple[Partition, ...]
    files: tuple[str, ...]
    confidence: str
    # the engine's own error when it is not one of the checker's exceptions (left out when null)
    engine_error: str | None = None
    # a failure harvested from Spark's records (issue #33); left out when null
    app_id: str | None = None
    started_at: int | None = None
    failed_at: int | None = None
    records: tuple[str, ...] | None = None
    omitted_when_null: ClassVar[tuple[str, ...]] = (
        "engine_error",
        "app_id",
        "started_at",
        "failed_at",
        "records",
    )

    @classmethod
    def from_error(cls, found: ErrorConflict) -> Conflict:
        harvested = found.source != "error"
        return cls(
            source=found.source,
            loser=Loser(statement=found.statement),
            winner_version=found.winner_version,
            candidates=found.candidates,
            exception=found.exception,
            code=found.code,
            reason=found.reason,
            partitions=found.partitions,
            files=found.files,
            confidence=found.confidence,
            engine_error=found.engine_error,
            app_id=found.app_id,
            started_at=found.started_at,
            failed_at=found.failed_at,
            records=found.records if harvested or len(found.records) > 1 else None,
        )

    @classmethod
    def from_attempt(cls, verdict: Verdict) -> Conflict | None:
        """The conflict a failing attempt predicts; ``None`` when it commits."""
        found = verdict.raised
        if found is None or verdict.outcome == "commits":
            return None
        a = verdict.loser
        won = verdict.winner_version
        return cls(
            source="attempt",
            loser=Loser(statement=a.provenance.statement, read_version=a.read.version),
            winner_version=won,
            candidates=(won,) if won is not None else (),
            exception=verdict.outcome,
            code=found.code,
            reason=found.reason,
            partitions=tuple(dict(p) for p in found.partitions),
            files=tuple(found.files),
            confidence=found.confidence,
            engine_error=found.engine_error,
        )
