"""``history`` and ``snapshot`` as Markdown: the plain tables' rows (:mod:`to_text`), every cell
escaped as Markdown text and cut at :data:`~deltaforensics.report.plain.MAX_CELL` characters
with ``…`` (the full value stays in the JSON)."""

from __future__ import annotations

from collections.abc import Sequence

from deltaforensics.report.document import HistoryDocument, SnapshotDocument
from deltaforensics.report.plain import cut
from deltaforensics.report.to_markdown import code, table, text
from deltaforensics.report.to_text import (
    HISTORY_HEADERS,
    SNAPSHOT_HEADERS,
    history_rows,
    snapshot_head,
    snapshot_rows,
)


def _cells(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    return [[text(cut(cell)) for cell in row] for row in rows]


def history_to_markdown(history: HistoryDocument) -> str:
    """Every commit of the history as a row of a GFM table."""
    rows = _cells(history_rows(history))
    out = ["## deltaforensics history"]
    if history.time_window is not None:
        out.append(text(history.time_window.describe()))
    out.append(table(list(HISTORY_HEADERS), rows, max_rows=len(rows)) if rows else "No commits.")
    return "\n\n".join(out) + "\n"


def snapshot_to_markdown(snap: SnapshotDocument) -> str:
    """Every live file of the snapshot as a row of a GFM table."""
    rows = _cells(snapshot_rows(snap))
    out = [
        f"## deltaforensics snapshot: {code(snap.table, in_table=False)}",
        text(snapshot_head(snap)),
    ]
    if snap.time_window is not None:
        out.append(text(snap.time_window.describe()))
    out.append(
        table(list(SNAPSHOT_HEADERS), rows, max_rows=len(rows)) if rows else "No live files."
    )
    return "\n\n".join(out) + "\n"
