"""The ``history`` and ``snapshot`` documents (``history-v2``, ``snapshot-v2``) as typed values.

A history row is built per retained commit (there can be 100,000): the rows are written as
JSON text column by column (:mod:`.history_json`), and every other form of them is decoded
from that text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import polars as pl

from deltaforensics.log.commit_times import VersionWindow
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document.entry import FORMAT_VERSION, Entry, JsonValue, field_names
from deltaforensics.report.document.history_json import (
    commit_rows,
    commit_rows_json,
    commit_rows_text,
    document_json_chunks,
    rows_array_chunks,
)
from deltaforensics.snapshot import Snapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryCommit(Entry):
    """One retained commit, as its commitInfo and actions tell it."""

    version: int
    timestamp: int | None
    timestamp_iso: str | None
    in_commit_timestamp: int | None
    operation: str | None
    operation_parameters: JsonValue
    read_version: int | None
    isolation_level: str | None
    is_blind_append: bool | None
    engine_info: str | None
    client_version: str | None
    txn_id: str | None
    user_id: str | None
    user_name: str | None
    job: JsonValue
    notebook: JsonValue
    cluster_id: str | None
    user_metadata: str | None
    num_added_files: int
    num_removed_files: int
    bytes_added: int
    bytes_removed: int
    changes_metadata: bool
    changes_protocol: bool
    has_commit_info: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryDocument(Entry):
    format_version: int = FORMAT_VERSION
    table: str
    commits: tuple[HistoryCommit, ...]
    diagnostics: tuple[Diagnostic, ...]
    time_window: VersionWindow | None = None  # --since/--until
    omitted_when_null = ("time_window",)

    @classmethod
    def from_commits(
        cls, uri: str, commits: pl.DataFrame, diagnostics: tuple[Diagnostic, ...]
    ) -> HistoryDocument:
        return cls(table=uri, commits=history_rows(commits), diagnostics=diagnostics)


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
    protocol: Mapping[str, JsonValue]
    app_transactions: Mapping[str, JsonValue]
    files: tuple[SnapshotFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    time_window: VersionWindow | None = None  # --at
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


def history_head(uri: str, diagnostics: tuple[Diagnostic, ...]) -> HistoryDocument:
    """The ``history-v2`` document without its commit rows (``commits`` empty): what
    :func:`history_json_chunks` writes the commit frame's rows into."""
    return HistoryDocument(table=uri, commits=(), diagnostics=diagnostics)


def history_rows(commits: pl.DataFrame) -> tuple[HistoryCommit, ...]:
    """The ``commits`` of the ``history-v2`` document: the rows decoded from their JSON text."""
    return tuple(commit_rows(commit_rows_json(commits, field_names(HistoryCommit)), HistoryCommit))


def history_document(
    uri: str, commits: pl.DataFrame, diagnostics: tuple[Diagnostic, ...]
) -> HistoryDocument:
    """The ``history-v2`` document."""
    return HistoryDocument.from_commits(uri, commits, diagnostics)


def history_json_chunks(
    head: HistoryDocument, commits: pl.DataFrame, *, slice_rows: int = 10_000
) -> Iterator[str]:
    """``json.dumps(doc, indent=2, default=str)`` of the document ``head`` (from
    :func:`history_head`, maybe with its time window) with the commit frame's rows as
    ``commits``, in pieces to write one after another, built without a dict per row: the
    history's JSON writer."""
    own = {}
    if commits.height:
        rows = commit_rows_text(commits, field_names(HistoryCommit))
        own["commits"] = lambda: rows_array_chunks(rows, slice_rows)
    return document_json_chunks(head.to_dict(), own)


def history_json(head: HistoryDocument, commits: pl.DataFrame) -> str:
    """:func:`history_json_chunks` as one text."""
    return "".join(history_json_chunks(head, commits))


def snapshot_document(
    uri: str, snap: Snapshot, diagnostics: tuple[Diagnostic, ...]
) -> SnapshotDocument:
    """The ``snapshot-v2`` document."""
    return SnapshotDocument.from_snapshot(uri, snap, diagnostics)
