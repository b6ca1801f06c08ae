"""Per commit: what the transaction read and wrote, as far as the log can tell.

Read predicates and read files are never logged (semantics doc, key finding 3): they are
reconstructed from ``operationParameters`` and the snapshot at ``readVersion``. Every
approximation is said in ``read_reason`` and weighed in ``confidence``.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, NamedTuple, TypeVar

import polars as pl

from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.collector import collector_paused
from deltaforensics.model.frames import (
    Deferred,
    defer_frames,
    deferred_height,
    frame_of,
    slices_by,
)
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.json_text import loads
from deltaforensics.predicates.ir import TRUE, Predicate
from deltaforensics.predicates.operations import ReadPredicateInfo, parse_operation_predicates
from deltaforensics.predicates.partition import (
    partition_read_predicate,
    partition_read_predicate_for,
    written_partitions_predicate,
)
from deltaforensics.profiles import Profile, profile_for, table_isolation
from deltaforensics.replay import Replay

_V = TypeVar("_V")
COMMIT_LARGE_OPERATIONS = frozenset({"RESTORE", "CLONE", "CONVERT", "SHALLOW CLONE", "DEEP CLONE"})
CHANGES_DATA = frozenset(
    {
        "WRITE",
        "STREAMING UPDATE",
        "DELETE",
        "TRUNCATE",
        "CONVERT",
        "MERGE",
        "UPDATE",
        "REPLACE TABLE",
        "CREATE OR REPLACE TABLE",
        "REPLACE TABLE AS SELECT",
        "CREATE OR REPLACE TABLE AS SELECT",
        "CREATE TABLE AS SELECT",
        "RESTORE",
        "CLONE",
    }
)
WHOLE_TABLE_OPERATIONS = frozenset(
    {
        "TRUNCATE",
        "REPLACE TABLE",
        "CREATE OR REPLACE TABLE",
        "REPLACE TABLE AS SELECT",
        "CREATE OR REPLACE TABLE AS SELECT",
        "ADD CONSTRAINT",
        "SYNC IDENTITY",
    }
)


@defer_frames("added", "removed")  # a history's are cut from its file frames when read
@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction:
    version: int | None  # None for an attempted (uncommitted) statement
    read_version: int | None
    read_version_source: str
    operation: str
    parameters: dict[str, Any]
    profile: Profile
    isolation: IsolationLevel
    isolation_source: str
    is_blind_append: bool | None  # as recorded (None: not recorded)
    blind: bool  # how the checker treats it as a loser
    read_predicate: Predicate | None  # partition part; None = reads nothing
    full_predicate: Predicate | None  # the whole condition (delta-rs stats matching)
    read_whole_table: bool
    registers_read_files: bool
    read_reason: str
    confidence: str
    added: pl.DataFrame
    removed: pl.DataFrame
    changes_metadata: bool = False
    changes_protocol: bool = False
    metadata_change_keys: tuple[str, ...] = ()  # configuration keys added/changed
    metadata_change_other: bool = False  # schema/partitioning/etc changed
    # key -> (before, after) for every changed configuration key; empty when not known
    metadata_change_values: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    identity_only_metadata: bool = False
    protocol_drops_features: bool = False
    app_ids: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()
    partition_columns: tuple[str, ...] = ()  # logical, at read time
    physical_names: dict[str, str] = field(default_factory=dict)
    column_types: dict[str, str] = field(default_factory=dict)
    has_deletion_vectors: bool = False  # table property at read time
    clustered: bool = False
    z_order: tuple[str, ...] = ()
    timestamp: int | None = None
    commit_info: dict[str, Any] = field(default_factory=dict)
    has_commit_info: bool = True
    statement: str | None = None
    dynamic_partition_overwrite: bool = False

    @property
    def name(self) -> str:
        return f"v{self.version}" if self.version is not None else "attempt"

    @property
    def file_counts(self) -> tuple[int, int]:
        """How many adds and removes the commit has, without cutting its rows from the
        history's file frames."""
        return deferred_height(self, "added"), deferred_height(self, "removed")

    @property
    def has_data_change(self) -> bool:
        frames = [f for f in (self.added, self.removed) if f.height]
        return any(bool(f["data_change"].fill_null(True).any()) for f in frames)

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


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return loads(text)
    except ValueError:
        return None


def _decode_params(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# A log repeats the same writers and the same operationParameters texts thousands of times;
# both lookups are pure functions of their (hashable) inputs and return frozen values.
_profile_for = lru_cache(maxsize=256)(profile_for)


@lru_cache(maxsize=1 << 16)
def _operation_predicates(operation: str, params_text: str | None) -> ReadPredicateInfo:
    return parse_operation_predicates(operation, _decode_params(_json(params_text)))


def effective_isolation(
    recorded: str | None, config: dict[str, str], profile: Profile
) -> tuple[IsolationLevel, str]:
    if recorded:
        for level in IsolationLevel:
            if recorded.strip().lower() == level.value.lower():
                return level, "commitInfo.isolationLevel"
    return table_isolation(config.get("delta.isolationLevel"), profile)


@lru_cache(maxsize=1024)
def _recorded_isolation(
    recorded: str | None, prop: str | None, profile: Profile
) -> tuple[IsolationLevel, str]:
    """:func:`effective_isolation` by the only table property it reads (a history repeats the
    same few combinations; iterating the level enum per commit showed in profiles)."""
    config = {} if prop is None else {"delta.isolationLevel": prop}
    return effective_isolation(recorded, config, profile)


def _metadata_change(
    prev: Metadata | None, new: Metadata
) -> tuple[tuple[str, ...], bool, dict[str, tuple[str | None, str | None]]]:
    """Changed configuration keys, whether anything else changed, and each key's old/new value.

    A schema that differs only in column-mapping field metadata while the mode goes none→name
    is not "anything else": Delta ≥4.1 resolves that enablement concurrently (§A.5 rule 2)."""
    if prev is None:
        return tuple(sorted(new.configuration)), True, {}
    changed = tuple(
        sorted(k for k, v in new.configuration.items() if prev.configuration.get(k) != v)
    )
    values = {k: (prev.configuration.get(k), new.configuration.get(k)) for k in changed}
    removed = set(prev.configuration) - set(new.configuration)
    other = (
        bool(removed)
        or _schema_differs(prev, new)
        or prev.partition_columns != new.partition_columns
        or prev.id != new.id
    )
    return changed, other, values


_MAPPING_PREFIX = "delta.columnMapping."


def _schema_differs(prev: Metadata, new: Metadata) -> bool:
    if prev.schema_string == new.schema_string:
        return False
    before = (prev.configuration.get("delta.columnMapping.mode") or "none").lower()
    after = (new.configuration.get("delta.columnMapping.mode") or "none").lower()
    if (before, after) != ("none", "name"):
        return True
    return bool(
        _without_mapping(_json(prev.schema_string)) != _without_mapping(_json(new.schema_string))
    )


def _without_mapping(node: Any) -> Any:
    """A schema tree with the ``delta.columnMapping.*`` field metadata dropped."""
    if isinstance(node, list):
        return [_without_mapping(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_mapping(v) for k, v in node.items() if k != "metadata"}
    if isinstance(node.get("metadata"), dict):
        out["metadata"] = {
            k: v for k, v in node["metadata"].items() if not k.startswith(_MAPPING_PREFIX)
        }
    return out


def _drops_features(before: Protocol | None, after: Protocol) -> bool:
    return before is not None and bool(set(before.features) - set(after.features))


def reconstruct_transactions(rep: Replay, *, profile: Profile | None = None) -> list[Transaction]:
    """One :class:`Transaction` per commit of the replay (commits with a commit file)."""
    history = _History(rep, profile)
    with collector_paused():
        return [history.transaction(commit) for commit in _commit_rows(rep.commits)]


class _Commit(NamedTuple):
    """The ``Replay.commits`` columns a transaction is built from, for one commit."""

    version: int
    commit_info: str | None
    operation: str | None
    isolation_level: str | None
    engine_info: str | None
    client_version: str | None
    read_version: int | None
    is_blind_append: bool | None
    operation_parameters: str | None
    timestamp: int | None
    in_commit_timestamp: int | None
    has_commit_info: bool


def _commit_rows(commits: pl.DataFrame) -> Iterator[_Commit]:
    """The commits, row by row, from whole columns: ``iter_rows(named=True)`` builds a dict of
    every column per commit, which over 100,000 commits showed in profiles."""
    columns = [commits.get_column(name).to_list() for name in _Commit._fields]
    return map(_Commit._make, zip(*columns, strict=True))


@dataclass(frozen=True, slots=True, eq=False)  # compared and hashed by identity
class _ReadTable:
    """What every transaction that read at one metaData action takes from it (a history
    shares a handful of those among all its commits)."""

    metadata: Metadata
    physical_names: dict[str, str]  # of the partition columns; copied per transaction
    has_deletion_vectors: bool

    @classmethod
    def of(cls, md: Metadata) -> _ReadTable:
        return cls(
            metadata=md,
            physical_names={c: md.physical_name(c) for c in md.partition_columns},
            has_deletion_vectors=md.configuration.get("delta.enableDeletionVectors", "").lower()
            == "true",
        )


@dataclass(frozen=True, slots=True)
class _Statement:
    """What a commit's recorded statement implies at the table it read: the same for every
    commit that repeats the statement (a history runs the same few again and again)."""

    operation: str
    isolation: IsolationLevel
    isolation_source: str
    reads: Reads | None  # None for a dynamic partition overwrite: it reads what it wrote

    @classmethod
    def of(
        cls, commit: _Commit, profile: Profile, md: Metadata, has_adds: bool, has_removes: bool
    ) -> _Statement:
        isolation, iso_source = _recorded_isolation(
            commit.isolation_level, md.configuration.get("delta.isolationLevel"), profile
        )
        operation = (
            commit.operation or ("TRANSACTION" if not commit.has_commit_info else "UNKNOWN")
        ).upper()
        info = _operation_predicates(operation, commit.operation_parameters)
        reads = None
        if info.source != "written-partitions":
            reads = _recurring_reads(
                operation,
                commit.operation_parameters,
                commit.is_blind_append,
                profile,
                md.partition_columns,
                has_adds,
                has_removes,
            )
        return cls(operation, isolation, iso_source, reads)


class _History:
    """The per-table lookups :func:`reconstruct_transactions` makes for each commit, built
    once: file actions, app ids and domains by version, facts per metaData action, and each
    distinct statement's reads. Its memos are keyed by strings and identities, which hash
    fast; the module's caches hash a :class:`Profile`, which showed in profiles."""

    def __init__(self, rep: Replay, forced: Profile | None) -> None:
        self.rep, self.forced = rep, forced
        self.base = rep.frames.base_version
        self.floor = max(self.base, 0)  # the first version whose snapshot the replay knows
        files = rep.frames.files.filter(pl.col("source") == "commit")
        self.adds = slices_by(files.filter(pl.col("action") == "add"), "version")
        self.removes = slices_by(files.filter(pl.col("action") == "remove"), "version")
        self.empty = files.clear()
        self.app_ids = _names_by_version(rep.frames.txns, "app_id")
        self.domains = _names_by_version(rep.frames.domains, "domain")
        md_versions, proto_versions = rep.metadata_versions(), rep.protocol_versions()
        self.md_versions, self.proto_versions = set(md_versions), set(proto_versions)
        self.metadata = _AsOf(md_versions, rep.metadata_at)
        self.protocol = _AsOf(proto_versions, rep.protocol_at)
        self._read_tables: dict[int, _ReadTable] = {}
        self._statements: dict[tuple[Any, ...], _Statement] = {}

    def profile(self, commit: _Commit) -> Profile:
        if self.forced is not None:
            return self.forced
        return _profile_for(commit.engine_info, commit.client_version)

    def read_table(self, md: Metadata) -> _ReadTable:
        """:class:`_ReadTable` of ``md``, by identity: the replay parses each action once."""
        found = self._read_tables.get(id(md))
        if found is None or found.metadata is not md:
            found = self._read_tables[id(md)] = _ReadTable.of(md)
        return found

    def statement(
        self,
        commit: _Commit,
        profile: Profile,
        table: _ReadTable,
        has_adds: bool,
        has_removes: bool,
    ) -> _Statement:
        """:meth:`_Statement.of`, once per distinct statement, writer and read table."""
        key = (
            commit.operation,
            commit.has_commit_info,
            commit.operation_parameters,
            commit.is_blind_append,
            commit.isolation_level,
            commit.engine_info,  # with client_version: the profile, unless one is forced
            commit.client_version,
            table,
            has_adds,
            has_removes,
        )
        found = self._statements.get(key)
        if found is None:
            found = _Statement.of(commit, profile, table.metadata, has_adds, has_removes)
            self._statements[key] = found
        return found

    def transaction(self, commit: _Commit) -> Transaction:
        v = commit.version
        return _transaction(
            self,
            commit,
            added=self.adds.deferred(v, self.empty),
            removed=self.removes.deferred(v, self.empty),
            app_ids=frozenset(self.app_ids.get(v, ())),
            domains=frozenset(self.domains.get(v, ())),
            changes_metadata=v in self.md_versions and v > self.base,
            changes_protocol=v in self.proto_versions and v > self.base,
        )


class _AsOf(Generic[_V]):
    """``lookup(v)`` (a replay's ``metadata_at`` or ``protocol_at``), remembered for the span of
    versions that share its answer (up to the next action of its kind): commits are asked
    about in version order, and a table changes its metadata and protocol rarely."""

    def __init__(self, versions: list[int], lookup: Callable[[int], _V]) -> None:
        self._versions, self._lookup = versions, lookup
        self._span: tuple[int, float, _V] | None = None

    def at(self, version: int) -> _V:
        span = self._span
        if span is not None and span[0] <= version < span[1]:
            return span[2]
        found = self._lookup(version)  # checks the version and raises as the replay does
        i = bisect_right(self._versions, version)  # >= 1: the lookup found an action
        end = self._versions[i] if i < len(self._versions) else math.inf
        self._span = (self._versions[i - 1], end, found)
        return found


def _names_by_version(frame: pl.DataFrame, column: str) -> dict[int, set[str]]:
    """The non-null values of ``column`` per version (app ids of ``txn``, domain names)."""
    out: dict[int, set[str]] = {}
    for v, name in frame.select("version", column).iter_rows():
        if name is not None:
            out.setdefault(v, set()).add(name)
    return out


def _read_version(commit: _Commit, profile: Profile, creates: bool) -> tuple[int | None, str]:
    """The snapshot version the commit read, and where that came from; ``creates``: the commit
    writes both protocol and metaData."""
    v, read_version = commit.version, commit.read_version
    if read_version is not None and read_version >= 0:
        return read_version, "commitInfo.readVersion"
    if v == 0:
        return -1, "table creation"
    if _late_create(commit.operation, creates):
        return (
            -1,
            "table creation at a later version: it lost a creation race (delta-rs rewrites it as the next version)",
        )
    if commit.has_commit_info:
        return (
            None,
            f"not recorded ({profile.engine} writes no readVersion for {commit.operation or 'this operation'})",
        )
    return None, "not recorded (no commitInfo)"


def _transaction(
    history: _History,
    commit: _Commit,
    *,
    added: Deferred | pl.DataFrame,
    removed: Deferred | pl.DataFrame,
    app_ids: frozenset[str],
    domains: frozenset[str],
    changes_metadata: bool,
    changes_protocol: bool,
) -> Transaction:
    rep = history.rep
    v = commit.version
    commit_info = _json(commit.commit_info) or {}
    profile = history.profile(commit)
    read_version, rv_source = _read_version(commit, profile, changes_metadata and changes_protocol)
    # a readVersion at or after the commit's own version is forged or corrupt (anomaly AN003)
    plausible = read_version is not None and history.floor <= read_version < v
    ref = read_version if plausible and read_version is not None else v - 1
    known = ref >= history.floor
    prev_md = history.metadata.at(ref) if known else None
    md = prev_md or history.metadata.at(v)
    prev_proto = history.protocol.at(ref) if known else None
    table = history.read_table(md)
    statement = history.statement(commit, profile, table, added.height > 0, removed.height > 0)
    operation = statement.operation
    params = _decode_params(_json(commit.operation_parameters))
    change_keys: tuple[str, ...] = ()
    change_other = False
    change_values: dict[str, tuple[str | None, str | None]] = {}
    identity_only = False
    if changes_metadata:
        new_md = rep.metadata_at(v)
        change_keys, change_other, change_values = _metadata_change(
            prev_md if v > 0 else None, new_md
        )
        tags = commit_info.get("tags") if isinstance(commit_info.get("tags"), dict) else {}
        identity_only = str((tags or {}).get("delta.identity.schemaUpdate", "")).lower() == "true"
    drops = changes_protocol and _drops_features(prev_proto, rep.protocol_at(v))
    reads = statement.reads
    if reads is None:
        reads = reads_of(
            operation,
            params,
            commit.is_blind_append,
            profile,
            md,
            frame_of(added),
            frame_of(removed),
            info=_operation_predicates(operation, commit.operation_parameters),
        )
    zorder = params.get("zOrderBy")
    zorder_cols = _json(zorder) if isinstance(zorder, str) else zorder
    domains_at = rep.domains_at(ref) if known else {}
    return Transaction(
        version=v,
        read_version=read_version,
        read_version_source=rv_source,
        operation=operation,
        parameters=params,
        profile=profile,
        isolation=statement.isolation,
        dynamic_partition_overwrite=_dynamic(params),
        isolation_source=statement.isolation_source,
        is_blind_append=commit.is_blind_append,
        blind=reads.blind,
        read_predicate=reads.partition_predicate,
        full_predicate=reads.full_predicate,
        read_whole_table=reads.whole_table,
        registers_read_files=reads.registers_files,
        read_reason=reads.reason,
        confidence=reads.confidence,
        added=added,  # type: ignore[arg-type]  # a Deferred is cut when read (defer_frames)
        removed=removed,  # type: ignore[arg-type]
        changes_metadata=changes_metadata,
        changes_protocol=changes_protocol,
        metadata_change_keys=change_keys,
        metadata_change_other=change_other,
        metadata_change_values=change_values,
        identity_only_metadata=identity_only,
        protocol_drops_features=drops,
        app_ids=app_ids,
        domains=domains,
        partition_columns=md.partition_columns,
        physical_names=dict(table.physical_names),
        column_types=md.column_types,
        has_deletion_vectors=table.has_deletion_vectors,
        clustered=bool(domains_at.get("delta.clustering") or domains_at.get("delta.liquid")),
        z_order=tuple(str(c) for c in zorder_cols) if isinstance(zorder_cols, list) else (),
        timestamp=commit.in_commit_timestamp or commit.timestamp,
        commit_info=commit_info,
        has_commit_info=commit.has_commit_info,
    )


def _late_create(operation: str | None, writes_protocol_and_metadata: bool) -> bool:
    """A plain CREATE TABLE after version 0 without ``readVersion`` read nothing: no engine
    creates over an existing table except a creator that lost the version-0 race (§E 34)."""
    return (operation or "").upper() in (
        "CREATE TABLE",
        "CREATE TABLE AS SELECT",
    ) and writes_protocol_and_metadata


def _changes_data(operation: str, added: pl.DataFrame, removed: pl.DataFrame) -> bool:
    """Whether Delta would keep the recorded level (no SnapshotIsolation downgrade)."""
    if operation in CHANGES_DATA:
        return True
    frames = [f for f in (added, removed) if f.height]
    return any(bool(f["data_change"].fill_null(True).any()) for f in frames)


@dataclass(frozen=True, slots=True)
class Reads:
    blind: bool
    partition_predicate: Predicate | None
    full_predicate: Predicate | None
    whole_table: bool
    registers_files: bool
    reason: str
    confidence: str


def reads_of(
    operation: str,
    params: dict[str, Any],
    recorded_blind: bool | None,
    profile: Profile,
    md: Metadata,
    added: pl.DataFrame,
    removed: pl.DataFrame,
    *,
    info: ReadPredicateInfo | None = None,
) -> Reads:
    """What a statement with these parameters and file actions read; ``info``: its parsed
    ``operationParameters`` when the caller has them."""
    if info is None:
        info = parse_operation_predicates(operation, params)
    written = _logical_partitions(added, md) if info.source == "written-partitions" else None
    return _reads(
        operation,
        params,
        recorded_blind,
        profile,
        md.partition_columns,
        added.height > 0,
        removed.height > 0,
        info=info,
        written=written,
    )


@lru_cache(maxsize=1 << 14)
def _recurring_reads(
    operation: str,
    params_text: str | None,
    recorded_blind: bool | None,
    profile: Profile,
    cols: tuple[str, ...],
    has_adds: bool,
    has_removes: bool,
) -> Reads:
    """:func:`_reads` of a commit that is not a dynamic partition overwrite: a pure function
    of these values, which a long history repeats (the same statements, run again and again)."""
    return _reads(
        operation,
        _decode_params(_json(params_text)),
        recorded_blind,
        profile,
        cols,
        has_adds,
        has_removes,
        info=_operation_predicates(operation, params_text),
    )


def _reads(
    operation: str,
    params: dict[str, Any],
    recorded_blind: bool | None,
    profile: Profile,
    cols: tuple[str, ...],
    has_adds: bool,
    has_removes: bool,
    *,
    info: ReadPredicateInfo,
    written: list[dict[str, str | None]] | None = None,
) -> Reads:
    """What the transaction read, per operation (semantics doc §A.2; delta-rs §A.9).

    ``written``: the partitions a dynamic partition overwrite wrote (logical names)."""
    unknown = any("not understood" in d for d in info.diagnostics)
    if profile.appends_read_all_files:
        return _delta_rs_reads(operation, params, info, cols, unknown)
    if recorded_blind is True:
        reason = "blind append: reads nothing" if has_adds else "no file actions: reads nothing"
        return Reads(True, None, None, False, False, reason, "high")
    if not info.reads:
        if recorded_blind is False and (has_adds or has_removes):
            return Reads(
                False,
                TRUE,
                TRUE,
                False,
                True,
                f"{operation} was not a blind append (isBlindAppend=false) but records no predicate: "
                "it read the table (e.g. a self-join or subquery); assumed to read everything",
                "low",
            )
        reason = (
            "no file actions: reads nothing"
            if not (has_adds or has_removes)
            else f"{operation} reads nothing"
        )
        return Reads(
            True, None, None, False, False, reason, "medium" if recorded_blind is None else "high"
        )
    if info.source == "written-partitions":
        written = written or []
        pred = written_partitions_predicate(written) if written and cols else TRUE
        return Reads(
            False,
            pred,
            pred,
            False,
            False,
            "dynamic partition overwrite: reads the partitions it writes and registers no read files",
            "high" if written else "medium",
        )
    if info.whole_table:
        return Reads(False, TRUE, TRUE, True, True, f"{operation} reads the whole table", "high")
    part = partition_read_predicate_for(info, cols)
    reason = "; ".join(part.reasons) or (
        f"partition predicate {part.predicate.to_sql()}"
        if cols
        else "unpartitioned table: no partition precision"
    )
    confidence = "low" if unknown else "medium" if part.reasons and cols else "high"
    return Reads(False, part.predicate, info.predicate, False, True, reason, confidence)


def _delta_rs_reads(
    operation: str, params: dict[str, Any], info: Any, cols: tuple[str, ...], unknown: bool
) -> Reads:
    """delta-rs reads: the ``predicate`` of WRITE/DELETE/UPDATE/MERGE, else every file."""
    has_predicate = params.get("predicate") not in (None, "", "[]")
    if operation == "MERGE" and not has_predicate:
        return Reads(
            False,
            TRUE,
            TRUE,
            True,
            True,
            "delta-rs MERGE without a derived partition predicate reads the whole table",
            "high",
        )
    if operation in ("WRITE", "DELETE", "UPDATE", "MERGE") and has_predicate:
        pred = info.predicate
        part = partition_read_predicate(pred, cols) if cols else None
        return Reads(
            False,
            part.predicate if part else TRUE,
            pred,
            False,
            True,
            f"delta-rs: predicate {pred.to_sql()} matched on partition values and min/max stats",
            "low" if unknown else "high",
        )
    return Reads(
        False,
        None,
        None,
        False,
        True,
        f"delta-rs: {operation} has no predicate, so every file of its snapshot counts as read "
        "(and no added-files conflict can hit it)",
        "high",
    )


def _logical_partitions(added: pl.DataFrame, md: Metadata) -> list[dict[str, str | None]]:
    if added.is_empty() or not md.partition_columns:
        return []
    pv_type = added.schema["partition_values"]
    names = {f.name for f in pv_type.fields} if isinstance(pv_type, pl.Struct) else set()
    exprs = [
        (
            pl.col("partition_values").struct.field(md.physical_name(c))
            if md.physical_name(c) in names
            else pl.lit(None, pl.String)
        ).alias(c)
        for c in md.partition_columns
    ]
    return added.select(exprs).unique(maintain_order=True).to_dicts()


def _mode(params: dict[str, Any]) -> str:
    return str(params.get("mode") or params.get("outputMode") or "").lower()


def _dynamic(params: dict[str, Any]) -> bool:
    return str(params.get("isDynamicPartitionOverwrite", "")).lower() == "true"
