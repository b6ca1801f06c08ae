"""The transaction record: what one commit (or one attempted statement) read, what it wrote,
and how we know, each a small typed part that :class:`Transaction` composes.

No two transactions share a mutable value.
:class:`Transaction` also answers to the flat names the checker, what-if and reports read
(``t.read_predicate``, ``t.added``, ``t.isolation`` …; :data:`FLAT_NAMES` maps each to its
part), and :meth:`Transaction.revised` makes a copy from those names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from deltaforensics.model.actions import Metadata
from deltaforensics.model.frames import defer_frames, deferred_height
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.ir import Predicate
from deltaforensics.transactions.engine_profile import Profile
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
class Read(Reads):
    """What the transaction read: what its statement read, of which snapshot version, at which
    isolation level."""

    version: int | None  # the snapshot's (readVersion)
    version_source: str  # where ``version`` came from
    isolation: IsolationLevel
    isolation_source: str

    @classmethod
    def at(
        cls,
        reads: Reads,
        *,
        version: int | None,
        version_source: str,
        isolation: IsolationLevel,
        isolation_source: str,
    ) -> Read:
        return cls(
            blind=reads.blind,
            partition_predicate=reads.partition_predicate,
            full_predicate=reads.full_predicate,
            whole_table=reads.whole_table,
            registers_files=reads.registers_files,
            reason=reads.reason,
            confidence=reads.confidence,
            version=version,
            version_source=version_source,
            isolation=isolation,
            isolation_source=isolation_source,
        )


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
        ci = self.commit_info
        job = ci.get("job")
        if isinstance(job, dict) and (job.get("jobName") or job.get("jobId")):
            return f"job {job.get('jobName') or job.get('jobId')}"
        if isinstance(job, str) and job:
            return f"job {job}"
        nb = ci.get("notebook")
        if isinstance(nb, dict) and nb.get("notebookId"):
            return f"notebook {nb.get('notebookId')}"
        if ci.get("userName"):
            return f"user {ci['userName']}"
        return ""


# flat name -> the path of parts that holds it
FLAT_NAMES: dict[str, tuple[str, ...]] = {
    "read_version": ("read", "version"),
    "read_version_source": ("read", "version_source"),
    "isolation": ("read", "isolation"),
    "isolation_source": ("read", "isolation_source"),
    "blind": ("read", "blind"),
    "read_predicate": ("read", "partition_predicate"),
    "full_predicate": ("read", "full_predicate"),
    "read_whole_table": ("read", "whole_table"),
    "registers_read_files": ("read", "registers_files"),
    "read_reason": ("read", "reason"),
    "confidence": ("read", "confidence"),
    "partition_columns": ("table", "partition_columns"),
    "physical_names": ("table", "physical_names"),
    "column_types": ("table", "column_types"),
    "has_deletion_vectors": ("table", "has_deletion_vectors"),
    "clustered": ("table", "clustered"),
    "added": ("written", "added"),
    "removed": ("written", "removed"),
    "changes_metadata": ("written", "changes_metadata"),
    "changes_protocol": ("written", "changes_protocol"),
    "metadata_change_keys": ("written", "metadata_change", "keys"),
    "metadata_change_other": ("written", "metadata_change", "other"),
    "metadata_change_values": ("written", "metadata_change", "values"),
    "identity_only_metadata": ("written", "metadata_change", "identity_only"),
    "protocol_drops_features": ("written", "protocol_drops_features"),
    "app_ids": ("written", "app_ids"),
    "domains": ("written", "domains"),
    "dynamic_partition_overwrite": ("written", "dynamic_partition_overwrite"),
    "z_order": ("written", "z_order"),
    "operation": ("provenance", "operation"),
    "parameters": ("provenance", "parameters"),
    "profile": ("provenance", "profile"),
    "is_blind_append": ("provenance", "is_blind_append"),
    "commit_info": ("provenance", "commit_info"),
    "has_commit_info": ("provenance", "has_commit_info"),
    "timestamp": ("provenance", "timestamp"),
    "statement": ("provenance", "statement"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction:
    """One commit (``version``) or attempted statement (``version`` None), from its parts."""

    version: int | None  # None for an attempted (uncommitted) statement
    read: Read
    table: TableAtRead
    written: Writes
    provenance: Provenance

    @property
    def name(self) -> str:
        return f"v{self.version}" if self.version is not None else "attempt"

    @property
    def file_counts(self) -> tuple[int, int]:
        return self.written.file_counts

    @property
    def has_data_change(self) -> bool:
        return self.written.has_data_change

    @property
    def is_commit_large(self) -> bool:
        return self.provenance.is_commit_large

    @property
    def writer(self) -> str:
        return self.provenance.writer

    @property
    def who(self) -> str:
        return self.provenance.who

    def revised(self, **changes: Any) -> Transaction:
        """A copy with ``changes`` given by flat name (``read_predicate=…``) or part name
        (``read=…``), each put into the part that holds it; the other parts are shared."""
        return _replaced(self, [(FLAT_NAMES.get(k, (k,)), v) for k, v in changes.items()])

    # the flat names (FLAT_NAMES), read through the parts

    @property
    def read_version(self) -> int | None:
        return self.read.version

    @property
    def read_version_source(self) -> str:
        return self.read.version_source

    @property
    def isolation(self) -> IsolationLevel:
        return self.read.isolation

    @property
    def isolation_source(self) -> str:
        return self.read.isolation_source

    @property
    def blind(self) -> bool:
        return self.read.blind

    @property
    def read_predicate(self) -> Predicate | None:
        return self.read.partition_predicate

    @property
    def full_predicate(self) -> Predicate | None:
        return self.read.full_predicate

    @property
    def read_whole_table(self) -> bool:
        return self.read.whole_table

    @property
    def registers_read_files(self) -> bool:
        return self.read.registers_files

    @property
    def read_reason(self) -> str:
        return self.read.reason

    @property
    def confidence(self) -> str:
        return self.read.confidence

    @property
    def partition_columns(self) -> tuple[str, ...]:
        return self.table.partition_columns

    @property
    def physical_names(self) -> dict[str, str]:
        return self.table.physical_names

    @property
    def column_types(self) -> dict[str, str]:
        return self.table.column_types

    @property
    def has_deletion_vectors(self) -> bool:
        return self.table.has_deletion_vectors

    @property
    def clustered(self) -> bool:
        return self.table.clustered

    @property
    def added(self) -> pl.DataFrame:
        return self.written.added

    @property
    def removed(self) -> pl.DataFrame:
        return self.written.removed

    @property
    def changes_metadata(self) -> bool:
        return self.written.changes_metadata

    @property
    def changes_protocol(self) -> bool:
        return self.written.changes_protocol

    @property
    def metadata_change_keys(self) -> tuple[str, ...]:
        return self.written.metadata_change.keys

    @property
    def metadata_change_other(self) -> bool:
        return self.written.metadata_change.other

    @property
    def metadata_change_values(self) -> dict[str, tuple[str | None, str | None]]:
        return self.written.metadata_change.values

    @property
    def identity_only_metadata(self) -> bool:
        return self.written.metadata_change.identity_only

    @property
    def protocol_drops_features(self) -> bool:
        return self.written.protocol_drops_features

    @property
    def app_ids(self) -> frozenset[str]:
        return self.written.app_ids

    @property
    def domains(self) -> frozenset[str]:
        return self.written.domains

    @property
    def dynamic_partition_overwrite(self) -> bool:
        return self.written.dynamic_partition_overwrite

    @property
    def z_order(self) -> tuple[str, ...]:
        return self.written.z_order

    @property
    def operation(self) -> str:
        return self.provenance.operation

    @property
    def parameters(self) -> dict[str, Any]:
        return self.provenance.parameters

    @property
    def profile(self) -> Profile:
        return self.provenance.profile

    @property
    def is_blind_append(self) -> bool | None:
        return self.provenance.is_blind_append

    @property
    def commit_info(self) -> dict[str, Any]:
        return self.provenance.commit_info

    @property
    def has_commit_info(self) -> bool:
        return self.provenance.has_commit_info

    @property
    def timestamp(self) -> int | None:
        return self.provenance.timestamp

    @property
    def statement(self) -> str | None:
        return self.provenance.statement


def _replaced(value: Any, changes: list[tuple[tuple[str, ...], Any]]) -> Any:
    """``value`` with each (path, new) of ``changes`` replaced, part by part."""
    here: dict[str, Any] = {}
    inner: dict[str, list[tuple[tuple[str, ...], Any]]] = {}
    for path, new in changes:
        if len(path) == 1:
            here[path[0]] = new
        else:
            inner.setdefault(path[0], []).append((path[1:], new))
    for name, nested in inner.items():
        here[name] = _replaced(here.get(name, getattr(value, name)), nested)
    return replace(value, **here)
