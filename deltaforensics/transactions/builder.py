"""The one place a :class:`Transaction` is made from its parts: for a commit of a replayed
history (:func:`committed_transaction`, asked by :mod:`.committed`) and for a statement the user says they attempted
(:func:`attempted_transaction`, used by ``deltaforensics.attempts``), so that a commit and the
equivalent attempt read, and are read, alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.model.frames import frame_of
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions.commit_history import CommitHistory
from deltaforensics.transactions.commits import CommitRow, read_version_of
from deltaforensics.transactions.decode import json_or_none, parameters_of
from deltaforensics.transactions.isolation import effective_isolation
from deltaforensics.transactions.memos import operation_predicates
from deltaforensics.transactions.metadata_change import drops_features, metadata_change
from deltaforensics.transactions.parts import (
    MetadataChange,
    Provenance,
    Read,
    Reads,
    TableAtRead,
    Writes,
)
from deltaforensics.transactions.reads import is_dynamic_partition_overwrite, reads_of
from deltaforensics.transactions.record import Transaction


def committed_transaction(history: CommitHistory, commit: CommitRow) -> Transaction:
    """The transaction of one commit, its reads reconstructed at the snapshot it read."""
    rep, v = history.rep, commit.version
    changes_metadata = v in history.md_versions and v > history.base
    changes_protocol = v in history.proto_versions and v > history.base
    profile = history.profile(commit)
    read_version, rv_source = read_version_of(
        commit, profile, changes_metadata and changes_protocol
    )
    # a readVersion at or after the commit's own version is forged or corrupt (anomaly AN003)
    plausible = read_version is not None and history.floor <= read_version < v
    ref = read_version if plausible and read_version is not None else v - 1
    known = ref >= history.floor
    prev_md = history.metadata.at(ref) if known else None
    md = prev_md or history.metadata.at(v)
    table = history.table_at_read(md, clustered=clustered_in(rep.domains_at(ref) if known else {}))
    added = history.adds.deferred(v, history.empty)
    removed = history.removes.deferred(v, history.empty)
    statement = history.statement(commit, profile, md, added.height > 0, removed.height > 0)
    params = parameters_of(json_or_none(commit.operation_parameters))
    commit_info = json_or_none(commit.commit_info) or {}
    reads = statement.reads
    if reads is None:  # a dynamic partition overwrite reads the partitions it wrote
        reads = reads_of(
            statement.operation,
            params,
            commit.is_blind_append,
            profile,
            md,
            frame_of(added),
            frame_of(removed),
            info=operation_predicates(statement.operation, commit.operation_parameters),
        )
    zorder = params.get("zOrderBy")
    zorder_cols = json_or_none(zorder) if isinstance(zorder, str) else zorder
    written = Writes(
        added=added,  # type: ignore[arg-type]  # a Deferred is cut when read (defer_frames)
        removed=removed,  # type: ignore[arg-type]
        changes_metadata=changes_metadata,
        changes_protocol=changes_protocol,
        metadata_change=metadata_change(prev_md if v > 0 else None, rep.metadata_at(v), commit_info)
        if changes_metadata
        else MetadataChange(),  # its own, as every value a transaction holds
        protocol_drops_features=changes_protocol
        and drops_features(history.protocol.at(ref) if known else None, rep.protocol_at(v)),
        app_ids=_frozen(history.app_ids.get(v)),
        domains=_frozen(history.domains.get(v)),
        dynamic_partition_overwrite=is_dynamic_partition_overwrite(params),
        z_order=tuple(str(c) for c in zorder_cols) if isinstance(zorder_cols, list) else (),
    )
    return Transaction(
        version=v,
        read=Read(
            reads=reads,
            version=read_version,
            version_source=rv_source,
            isolation=statement.isolation,
            isolation_source=statement.isolation_source,
        ),
        table=table,
        written=written,
        provenance=Provenance(
            operation=statement.operation,
            parameters=params,
            profile=profile,
            is_blind_append=commit.is_blind_append,
            commit_info=commit_info,
            has_commit_info=commit.has_commit_info,
            timestamp=commit.in_commit_timestamp or commit.timestamp,
        ),
    )


_NONE: frozenset[str] = frozenset()


def _frozen(names: set[str] | None) -> frozenset[str]:
    """One shared empty set for the commits that name none: a new empty ``frozenset`` is 216
    bytes, two per commit (issue #23: memory per commit on a 1,000,000-commit history)."""
    return frozenset(names) if names else _NONE


def attempted_transaction(
    statement: str,
    replay: Replay,
    *,
    read_version: int,
    read_version_source: str,
    profile: Profile,
    operation: str,
    parameters: dict[str, Any],
    recorded_blind: bool | None,
    recorded_isolation: str | None,
    reads: Reads,
    written: Writes,
) -> Transaction:
    """The transaction ``statement`` would have committed had it read ``read_version``: the
    commitInfo its engine would have written (``operation``, ``parameters``, a recorded
    ``isBlindAppend`` and ``isolationLevel``), what it read and what it would have written."""
    md = replay.metadata_at(read_version)
    isolation, isolation_source = effective_isolation(recorded_isolation, md.configuration, profile)
    return Transaction(
        version=None,
        read=Read(
            reads=reads,
            version=read_version,
            version_source=read_version_source,
            isolation=isolation,
            isolation_source=isolation_source,
        ),
        table=TableAtRead.of(md, clustered=clustered_in(replay.domains_at(read_version))),
        written=written,
        provenance=Provenance(
            operation=operation,
            parameters=parameters,
            profile=profile,
            is_blind_append=recorded_blind,
            commit_info={
                "operation": operation,
                "operationParameters": parameters,
                "readVersion": read_version,
            },
            has_commit_info=True,
            timestamp=None,
            statement=statement.strip(),
        ),
    )


def clustered_in(domains: Mapping[str, Any]) -> bool:
    """Whether the table's domain metadata at the read version makes it a clustered one."""
    return bool(domains.get("delta.clustering") or domains.get("delta.liquid"))
