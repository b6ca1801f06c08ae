"""The typed values of the failure harvest: what a source recorded, the tables to match against,
and what the harvest found.

Pure values: the readers (:mod:`deltaforensics.sources`) make ``FailedStatement`` and
``SourceDiagnostic``; the caller makes ``TableCommits`` from each analysed table's commitInfo;
:func:`deltaforensics.failures.harvest_conflicts` makes the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from deltaforensics.evidence.conflict_evidence import ConflictEvidence

SourceKind = Literal[
    "eventlog", "driverlog", "openlineage", "databricks-jobs", "databricks-queries"
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FailedStatement:
    """One failure as a source recorded it; anything the source does not record is None.

    - ``source_kind``: ``eventlog`` (a ``SparkListenerSQLExecutionEnd`` with an
      ``errorMessage``, or a failed job outside any SQL execution) or ``driverlog`` (the
      text around an exception in a driver log).
    - ``source``: the file (credential-free URI); ``line``: where in it (1-based, decoded).
    - ``app_id``: the Spark application (``SparkListenerApplicationStart``'s ``App ID``, or the
      event log's name); ``execution_id``: the SQL execution.
    - ``started_at`` / ``failed_at``: ms since epoch (the execution's start and end; a driver
      log line's time is ``failed_at``).
    - ``statement``: the execution's description (the SQL text for ``spark.sql``, else the call
      site); ``locations``: table locations the physical plan or the statement names.
    - ``error_text``: the exception text (``errorMessage``; the driver log's lines).
    """

    source_kind: SourceKind
    source: str
    error_text: str
    line: int | None = None
    app_id: str | None = None
    execution_id: int | None = None
    started_at: int | None = None
    failed_at: int | None = None
    statement: str | None = None
    locations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceDiagnostic:
    """A part of a source that could not be read, or not fully: the rest was still read."""

    source: str  # the file
    message: str  # one line: what is wrong and how much was read


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitFacts:
    """What a table's commit says that a conflict message can repeat (its commitInfo)."""

    version: int
    timestamp: int | None = None
    in_commit_timestamp: int | None = None
    operation: str | None = None
    read_version: int | None = None
    user_metadata: str | None = None
    txn_id: str | None = None

    @classmethod
    def from_commit_info(cls, version: int, info: Mapping[str, object]) -> CommitFacts:
        def num(key: str) -> int | None:
            value = info.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        def text(key: str) -> str | None:
            value = info.get(key)
            return value if isinstance(value, str) else None

        return cls(
            version=version,
            timestamp=num("timestamp"),
            in_commit_timestamp=num("inCommitTimestamp"),
            operation=text("operation"),
            read_version=num("readVersion"),
            user_metadata=text("userMetadata"),
            txn_id=text("txnId"),
        )


@dataclass(frozen=True, slots=True)
class TableCommits:
    """One analysed table: how reports name it, its location, and its commits' facts."""

    name: str
    location: str
    commits: tuple[CommitFacts, ...] = field(default=())

    @classmethod
    def from_commit_infos(
        cls, name: str, location: str, infos: Iterable[tuple[int, Mapping[str, object]]]
    ) -> TableCommits:
        """From ``(version, commitInfo)`` pairs, as the log holds them."""
        return cls(name, location, tuple(CommitFacts.from_commit_info(v, i) for v, i in infos))


@dataclass(frozen=True, slots=True, kw_only=True)
class HarvestedConflict:
    """One Delta conflict a source recorded, matched to an analysed table (``table`` is its
    ``TableCommits.name``) or not (``table`` None, ``unmatched_reason`` says why).

    ``winner_version`` is the matched commit's version (or the version the message names);
    ``code`` the rule's code (``DC010`` …); ``matched_by`` how the table was found;
    ``sources`` every file that recorded this one failure (after de-duplication).
    """

    table: str | None
    winner_version: int | None
    exception: str
    code: str | None
    evidence: ConflictEvidence
    failure: FailedStatement
    matched_by: str | None = None
    unmatched_reason: str | None = None
    candidates: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()

    @property
    def source_kind(self) -> SourceKind:
        return self.failure.source_kind

    @property
    def statement(self) -> str | None:
        return self.failure.statement

    @property
    def started_at(self) -> int | None:
        return self.failure.started_at


@dataclass(frozen=True, slots=True, kw_only=True)
class Harvest:
    """What the sources held: conflicts matched to a table, conflicts matched to none or to
    several (never guessed), how many other failures were seen (never conflicts), and the
    parts that could not be read."""

    conflicts: tuple[HarvestedConflict, ...] = ()
    unmatched: tuple[HarvestedConflict, ...] = ()
    other_failures: int = 0
    diagnostics: tuple[SourceDiagnostic, ...] = ()
