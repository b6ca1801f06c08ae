"""The parts a transaction is made of: what it read (:class:`Read`, :class:`Reads`), the table
as its snapshot had it (:class:`TableAtRead`), what it wrote (:class:`Writes`,
:class:`MetadataChange`) and how we know (:class:`Provenance`).

Every commit that repeats a statement shares its frozen :class:`Reads`; no two transactions
share a mutable value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from deltaforensics.model.actions import Metadata
from deltaforensics.model.frames import defer_frames, deferred_height
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.ir import Predicate
from deltaforensics.profiles import Profile
from deltaforensics.transactions.operations import COMMIT_LARGE_OPERATIONS


@dataclass(frozen=True, slots=True, kw_only=True)
class Reads:
    """What a statement read, as reconstructed from its recorded parameters (read predicates
    are never logged: semantics doc, key finding 3); the same for every commit repeating it."""

    blind: bool  # how the checker treats it as a loser
    partition_predicate: Predicate | None  # the partition part; None = reads nothing
    full_predicate: Predicate | None  # the whole condition (delta-rs stats matching)
    whole_table: bool
    registers_files: bool
    reason: str  # every approximation made, said
    confidence: str  # low / medium / high


@dataclass(frozen=True, slots=True, kw_only=True)
class TableAtRead:
    """The table as the transaction's snapshot had it: its layout and the properties that
    change how the checker matches files."""

    partition_columns: tuple[str, ...] = ()  # logical names
    physical_names: dict[str, str] = field(default_factory=dict)  # of the partition columns
    column_types: dict[str, str] = field(default_factory=dict)
    has_deletion_vectors: bool = False
    clustered: bool = False

    @classmethod
    def of(cls, md: Metadata, *, clustered: bool) -> TableAtRead:
        return cls(
            partition_columns=md.partition_columns,
            physical_names={c: md.physical_name(c) for c in md.partition_columns},
            column_types=md.column_types,
            has_deletion_vectors=md.configuration.get("delta.enableDeletionVectors", "").lower()
            == "true",
            clustered=clustered,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """What the transaction read: what its statement read (``reads``, shared by every commit
    that repeats the statement), of which snapshot version, at which isolation level."""

    version: int | None  # the snapshot's (readVersion)
    version_source: str  # where ``version`` came from
    isolation: IsolationLevel
    isolation_source: str
    reads: Reads


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataChange:
    """How a commit's ``metaData`` action differs from the one it read."""

    keys: tuple[str, ...] = ()  # configuration keys added or changed
    other: bool = False  # schema, partitioning, id or a removed key changed
    # key -> (before, after) for every changed configuration key; empty when not known
    values: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    identity_only: bool = False  # tagged as an identity high-water-mark update


@defer_frames("added", "removed")  # a history's are cut from its file frames when read
@dataclass(frozen=True, slots=True, kw_only=True)
class Writes:
    """What was written: file actions and the table-level actions beside them."""

    added: pl.DataFrame
    removed: pl.DataFrame
    changes_metadata: bool = False
    changes_protocol: bool = False
    metadata_change: MetadataChange = field(default_factory=MetadataChange)
    protocol_drops_features: bool = False
    app_ids: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()
    dynamic_partition_overwrite: bool = False
    z_order: tuple[str, ...] = ()

    @property
    def file_counts(self) -> tuple[int, int]:
        """How many adds and removes, without cutting their rows from the history's frames."""
        return deferred_height(self, "added"), deferred_height(self, "removed")

    @property
    def has_data_change(self) -> bool:
        frames = [f for f in (self.added, self.removed) if f.height]
        return any(bool(f["data_change"].fill_null(True).any()) for f in frames)


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """How we know: the recorded operation and commitInfo, the engine that wrote it, and for an
    attempt the statement the user gave."""

    operation: str
    parameters: dict[str, Any]
    profile: Profile
    is_blind_append: bool | None  # as recorded (None: not recorded)
    commit_info: dict[str, Any] = field(default_factory=dict)
    has_commit_info: bool = True
    timestamp: int | None = None
    statement: str | None = None

    @property
    def is_commit_large(self) -> bool:
        return self.operation.upper() in COMMIT_LARGE_OPERATIONS

    @property
    def writer(self) -> str:
        """Who committed: job, notebook, cluster or user as recorded, else the engine."""
        ci = self.commit_info
        parts = [self.who]
        if ci.get("clusterId"):
            parts.append(f"cluster {ci['clusterId']}")
        label = ", ".join(p for p in parts if p)
        return label or f"{self.profile.engine} writer"

    @property
    def who(self) -> str:
        return who_wrote(self.commit_info)


def who_wrote(commit_info: Mapping[str, Any]) -> str:
    """The one name of a writer ("" when commitInfo names none): its job's name (else the
    job's id), else its notebook's path, else the user, else the notebook's id; the caller
    falls back to the engine. The one spelling for explain, history, the what-if and the
    audit's commit rows alike (issue #31: one writer was "notebook 1524277128226821" in
    ``explain`` and "analyst@example.com" in ``history``)."""
    job = commit_info.get("job")
    if isinstance(job, dict) and (job.get("jobName") or job.get("jobId")):
        return f"job {job.get('jobName') or job.get('jobId')}"
    if isinstance(job, str) and job:
        return f"job {job}"
    nb = commit_info.get("notebook")
    notebook = nb if isinstance(nb, dict) else {}
    if notebook.get("notebookPath"):
        return f"notebook {notebook['notebookPath']}"
    if commit_info.get("userName"):
        return f"user {commit_info['userName']}"
    if notebook.get("notebookId"):
        return f"notebook {notebook['notebookId']}"
    return ""
