"""``history`` and ``snapshot`` as text tables, and the snapshot's JSON written in slices.

The documents themselves are built in :mod:`deltaforensics.report.document.history`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

import polars as pl

from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.profiles import engine_of_commit
from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.document.history import (
    HistoryCommit,
    HistoryDocument,
    SnapshotDocument,
)
from deltaforensics.report.document.history_json import document_json_chunks
from deltaforensics.report.plain import visible, visible_lines
from deltaforensics.report.text_table import render_table
from deltaforensics.snapshot import Snapshot
from deltaforensics.transactions.parts import who_wrote as transaction_writer


def key_parameters(params: JsonValue) -> str:
    if not isinstance(params, dict):
        return ""
    keys = ("predicate", "mergePredicate", "mode", "zOrderBy", "properties", "queryId", "epochId")
    parts = []
    for k in keys:
        if k in params and params[k] not in (None, "", "[]"):
            v = params[k]
            parts.append(f"{k}={v if isinstance(v, str) else json.dumps(v)}")
    return " ".join(parts)


def who_wrote(c: HistoryCommit) -> str:
    """The commit's writer by the one rule (job name, else notebook path, else user, else the
    engine: :func:`~deltaforensics.transactions.parts.who_wrote`), as ``explain`` names it."""
    recorded: dict[str, JsonValue] = {
        "job": c.job,
        "notebook": c.notebook,
        "userName": c.user_name,
        "userId": c.user_id,
        "clusterId": c.cluster_id,
        "engineInfo": c.engine_info,
        "clientVersion": c.client_version,
    }
    known = {k: v for k, v in recorded.items() if v is not None}
    return transaction_writer(known) or f"{engine_of_commit(known)} writer"


HISTORY_HEADERS = (
    "version",
    "timestamp",
    "operation",
    "parameters",
    "read",
    "isolation",
    "blind",
    "engine",
    "who",
    "+files",
    "-files",
    "+bytes",
    "-bytes",
)


def history_rows(history: HistoryDocument) -> list[list[str]]:
    """A row of cells per commit, under :data:`HISTORY_HEADERS` (raw text, not escaped)."""
    rows = []
    for c in history.commits:
        rows.append(
            [
                str(c.version),
                c.timestamp_iso or "",
                c.operation or ("(no commitInfo)" if not c.has_commit_info else ""),
                key_parameters(c.operation_parameters),
                "" if c.read_version is None else str(c.read_version),
                c.isolation_level or "",
                "" if c.is_blind_append is None else ("yes" if c.is_blind_append else "no"),
                c.engine_info or c.client_version or "",
                who_wrote(c),
                str(c.num_added_files),
                str(c.num_removed_files),
                str(c.bytes_added),
                str(c.bytes_removed),
            ]
        )
    return rows


def history_text(history: HistoryDocument) -> str:
    """The history as an aligned table; a JSON document (e.g. a redacted one) is read back."""
    table = render_table(list(HISTORY_HEADERS), history_rows(history))
    return (
        table
        if history.time_window is None
        else f"{visible_lines(history.time_window.describe())}\n{table}"
    )


# json.dumps writes these characters as themselves; anything else (quote, backslash, control,
# non-ASCII) is escaped, which only json.dumps itself does exactly.
_PLAIN_JSON = r"^[ !#-\[\]-~]*$"


def snapshot_json(
    uri: str, snap: Snapshot, diagnostics: tuple[Diagnostic, ...], *, slice_rows: int = 100_000
) -> str:
    """``json.dumps(snapshot_document(...), indent=2, default=str)``, byte for byte."""
    return "".join(snapshot_json_chunks(uri, snap, diagnostics, slice_rows=slice_rows))


def snapshot_json_chunks(
    uri: str, snap: Snapshot, diagnostics: tuple[Diagnostic, ...], *, slice_rows: int = 100_000
) -> Iterator[str]:
    """:func:`snapshot_json` in pieces, to be written one after another.

    A snapshot of a million files would spend most of its time building one dict per file and
    encoding it in Python, and hold the ~200 MB text several times over; here the ``files``
    array is rendered by polars column-wise, a slice of rows at a time, when every string in it
    needs no escaping, and by ``json.dumps`` otherwise.
    """
    head = SnapshotDocument.from_snapshot(uri, snap, diagnostics, files=False).to_dict()
    frame = _file_columns(snap)
    columns = snap.metadata.partition_columns

    def every_file() -> Iterator[str]:
        full = SnapshotDocument.from_snapshot(uri, snap, diagnostics).to_dict()["files"]
        yield json.dumps(full, indent=2, default=str).replace("\n", "\n  ")

    own: dict[str, Callable[[], Iterable[str]]] = {}
    if snap.files.height and _files_are_plain(frame, columns):
        own["files"] = lambda: _files_json(frame, columns, slice_rows)
    elif snap.files.height:
        own["files"] = every_file
    yield from document_json_chunks(head, own)


def _file_columns(snap: Snapshot) -> pl.DataFrame:
    """The columns the files array shows, with the paths copied into one buffer in row order.

    Live files are gathered from the checkpoint's frames in path order, so each path is read
    from wherever its part put it; both passes below (the escaping check, the rendering) then
    miss the cache on nearly every path. One sequential copy (~0.07 s for 1M paths) saved
    ~0.4 s of those passes on a 1M-file multi-part checkpoint.
    """
    # partition columns by position: one may be named path, size or dv_id, or named twice
    values = [e.alias(_value_column(i)) for i, e in enumerate(snap.partition_value_exprs())]
    frame = snap.files.select(pl.col("path"), pl.col("size"), pl.col("dv_id"), *values)
    packed = pl.from_arrow(frame["path"].to_arrow())
    assert isinstance(packed, pl.Series)
    return frame.with_columns(packed.alias("path"))


def _value_column(index: int) -> str:
    return f"partition value {index}"


def _files_are_plain(frame: pl.DataFrame, columns: tuple[str, ...]) -> bool:
    """Whether every string of the files array is written by json.dumps as itself."""
    if frame.is_empty():
        return True
    values = (pl.col(_value_column(i)) for i in range(len(columns)))
    strings = [pl.col("path"), pl.col("dv_id"), *values]
    return bool(
        frame.select(
            pl.all_horizontal(s.is_null() | s.str.contains(_PLAIN_JSON) for s in strings).all()
        ).item()
    )


def _files_json(frame: pl.DataFrame, columns: tuple[str, ...], slice_rows: int) -> Iterator[str]:
    """The ``files`` array at indent level 1 (its strings need no escaping), in slices."""

    def text(col: str) -> pl.Expr:
        quoted = pl.concat_str([pl.lit('"'), pl.col(col), pl.lit('"')])
        if not frame[col].has_nulls():  # handling nulls copies every value; a third of the time
            return quoted
        return pl.when(pl.col(col).is_null()).then(pl.lit("null")).otherwise(quoted)

    if columns:
        entries = [
            pl.concat_str([pl.lit(f"        {json.dumps(c)}: "), text(_value_column(i))])
            for i, c in enumerate(columns)
        ]
        pv = pl.concat_str(
            [pl.lit("{\n"), pl.concat_str(entries, separator=",\n"), pl.lit("\n      }")]
        )
    else:
        pv = pl.lit("{}")
    # no deletion vector ("") is written as null
    dv = pl.when(pl.col("dv_id") == "").then(pl.lit("null")).otherwise(text("dv_id"))
    item = pl.concat_str(
        [
            pl.lit('    {\n      "path": '),
            text("path"),
            pl.lit(',\n      "partition_values": '),
            pv,
            pl.lit(',\n      "size": '),
            pl.col("size").cast(pl.String).fill_null("null"),
            pl.lit(',\n      "deletion_vector": '),
            dv,
            pl.lit("\n    }"),
        ]
    )
    yield "[\n"
    for offset in range(0, frame.height, slice_rows):
        part = frame.slice(offset, slice_rows)
        yield ",\n" if offset else ""
        yield str(part.select(item.str.join(",\n")).item())
    yield "\n  ]"


SNAPSHOT_HEADERS = ("path", "partition", "size", "deletion vector")


def snapshot_head(snap: SnapshotDocument) -> str:
    """The line over the files (raw text, not escaped)."""
    return (
        f"{snap.table} at version {snap.version}: {snap.num_files} live file(s); "
        f"partitioned by {', '.join(snap.partition_columns) or '(none)'}"
    )


def snapshot_rows(snap: SnapshotDocument) -> list[list[str]]:
    """A row of cells per live file, under :data:`SNAPSHOT_HEADERS` (raw text, not escaped)."""
    return [
        [
            f.path,
            ", ".join(f"{k}={v}" for k, v in f.partition_values.items()),
            "" if f.size is None else str(f.size),
            f.deletion_vector or "",
        ]
        for f in snap.files
    ]


def snapshot_text(snap: SnapshotDocument) -> str:
    """The live files as an aligned table; a JSON document (e.g. a redacted one) is read back."""
    head = visible(snapshot_head(snap))
    if snap.time_window is not None:
        head += "\n" + visible_lines(snap.time_window.describe())
    table = render_table(list(SNAPSHOT_HEADERS), snapshot_rows(snap), max_width=100)
    return head + "\n" + table
