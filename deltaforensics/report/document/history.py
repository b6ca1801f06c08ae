"""The ``history`` and ``snapshot`` documents (``history-v1``, ``snapshot-v1``) as typed values.

A history row is built per retained commit (there can be 100,000): the fields are read from
the commit frame's row dict in one call, and ``to_dict`` of a row is the same dict again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import polars as pl

from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document.entry import FORMAT_VERSION, Entry, field_names
from deltaforensics.snapshot import Snapshot


def _json_or_none(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    try:
        return (
            datetime.fromtimestamp(ms / 1000, tz=UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z")
        )
    except (OverflowError, OSError, ValueError):
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryCommit(Entry):
    """One retained commit, as its commitInfo and actions tell it."""

    version: int
    timestamp: int | None
    timestamp_iso: str | None
    in_commit_timestamp: int | None
    operation: str | None
    operation_parameters: Any
    read_version: int | None
    isolation_level: str | None
    is_blind_append: bool | None
    engine_info: str | None
    client_version: str | None
    txn_id: str | None
    user_id: str | None
    user_name: str | None
    job: Any
    notebook: Any
    cluster_id: str | None
    user_metadata: str | None
    num_added_files: int
    num_removed_files: int
    bytes_added: int
    bytes_removed: int
    changes_metadata: bool
    changes_protocol: bool
    has_commit_info: bool

    @classmethod
    def from_row(cls, r: Mapping[str, Any]) -> HistoryCommit:
        return cls(**cls.row_json(r))

    @staticmethod
    def row_json(r: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON form of the commit frame's row ``r``, built without the object (what
        ``from_row(r).to_dict()`` gives, at the cost of the dict alone: 100,000 commits)."""
        ts = r["in_commit_timestamp"] if r["in_commit_timestamp"] is not None else r["timestamp"]
        out = {name: r[name] for name in _COLUMNS_AS_IS}
        out.update(
            timestamp=ts,
            timestamp_iso=iso(ts),
            operation_parameters=_json_or_none(r["operation_parameters"]),
            job=_json_or_none(r["job"]),
            notebook=_json_or_none(r["notebook"]),
        )
        return {name: out[name] for name in field_names(HistoryCommit)}


_COMPUTED = ("timestamp", "timestamp_iso", "operation_parameters", "job", "notebook")
_COLUMNS_AS_IS = tuple(n for n in field_names(HistoryCommit) if n not in _COMPUTED)


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryDocument(Entry):
    format_version: int = FORMAT_VERSION
    table: str
    commits: tuple[HistoryCommit, ...]
    diagnostics: tuple[Diagnostic, ...]
    time_window: Mapping[str, Any] | None = None  # --since/--until (VersionWindow.to_dict)
    omitted_when_null = ("time_window",)

    @classmethod
    def from_commits(
        cls, uri: str, commits: pl.DataFrame, diagnostics: tuple[Diagnostic, ...]
    ) -> HistoryDocument:
        rows = tuple(HistoryCommit.from_row(r) for r in commits.iter_rows(named=True))
        return cls(table=uri, commits=rows, diagnostics=diagnostics)


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotFile(Entry):
    path: str
    partition_values: Mapping[str, str | None]
    size: int | None
    deletion_vector: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotDocument(Entry):
    format_version: int = FORMAT_VERSION
    table: str
    version: int
    num_files: int
    partition_columns: tuple[str, ...]
    protocol: Mapping[str, Any]
    app_transactions: Mapping[str, Any]
    files: tuple[SnapshotFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    time_window: Mapping[str, Any] | None = None  # --at (VersionWindow.to_dict)
    omitted_when_null = ("time_window",)

    @classmethod
    def from_snapshot(
        cls, uri: str, snap: Snapshot, diagnostics: tuple[Diagnostic, ...], *, files: bool = True
    ) -> SnapshotDocument:
        """``files=False`` leaves the files out (``num_files`` still counts them)."""
        listed = _snapshot_files(snap) if files else ()
        return cls(
            table=uri,
            version=snap.version,
            num_files=len(listed) if files else snap.files.height,
            partition_columns=tuple(snap.metadata.partition_columns),
            protocol=snap.protocol.to_dict(),
            app_transactions=snap.app_transactions,
            files=listed,
            diagnostics=diagnostics,
        )


def _snapshot_files(snap: Snapshot) -> tuple[SnapshotFile, ...]:
    pvs = snap.partition_values_logical()
    rows = snap.files.select("path", "size", "dv_id").iter_rows(named=True)
    return tuple(
        SnapshotFile(
            path=r["path"], partition_values=pv, size=r["size"], deletion_vector=r["dv_id"] or None
        )
        for r, pv in zip(rows, pvs, strict=True)
    )


def history_document(
    uri: str, commits: pl.DataFrame, diagnostics: tuple[Diagnostic, ...]
) -> dict[str, Any]:
    """The ``history-v1`` document's JSON form (its rows straight from the frame)."""
    doc = HistoryDocument(table=uri, commits=(), diagnostics=diagnostics).to_dict()
    doc["commits"] = [HistoryCommit.row_json(r) for r in commits.iter_rows(named=True)]
    return doc


def snapshot_document(
    uri: str, snap: Snapshot, diagnostics: tuple[Diagnostic, ...]
) -> dict[str, Any]:
    """The ``snapshot-v1`` document's JSON form."""
    return SnapshotDocument.from_snapshot(uri, snap, diagnostics).to_dict()
