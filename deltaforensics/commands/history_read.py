"""``history``: one row per commit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

import polars as pl

from deltaforensics.commands.finish import redacted
from deltaforensics.commands.reading import Progress
from deltaforensics.commands.requests import NO_HOOKS, HistoryRequest, Hooks, Versions
from deltaforensics.commands.tables import open_table
from deltaforensics.errors import UsageError
from deltaforensics.loading import load_commits
from deltaforensics.log.selection import resolve_range
from deltaforensics.model.collector import collector_paused
from deltaforensics.report.document import HistoryDocument
from deltaforensics.report.document.history import history_json_chunks, history_rows


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryRead:
    """The history as read: its document, whose commit rows stay in their frame (``rows``)
    until asked for: a value per commit costs more than reading the log, and the JSON text is
    written from the frame (a redacted history holds its rows in ``head``)."""

    head: HistoryDocument
    rows: pl.DataFrame | None = None

    def document(self) -> HistoryDocument:
        return (
            self.head if self.rows is None else replace(self.head, commits=history_rows(self.rows))
        )

    def json_chunks(self) -> Iterator[str]:
        """``json.dumps(document().to_dict(), indent=2, default=str)`` in pieces."""
        if self.rows is None:
            yield json.dumps(self.head.to_dict(), indent=2, default=str)
            return
        yield from history_json_chunks(self.head, self.rows)


def read_history(request: HistoryRequest, hooks: Hooks = NO_HOOKS) -> HistoryRead:
    """The history of ``request``'s table over its selection."""
    chosen = request.selection
    if isinstance(chosen, Versions):
        first, last = chosen.from_version, chosen.to_version
        if first is not None and last is not None and first > last:
            raise UsageError("--from-version must not be greater than --to-version")
    progress = Progress(hooks)
    opened = open_table(request.table, request.access, request.spark, progress)
    selected = resolve_range(opened.store, chosen)
    # the load's 100,000s of tuples and names live on: the cyclic collector would rescan them
    with collector_paused(), progress.shown("reading the log"):
        _, commits, diagnostics = load_commits(
            opened.read_through,
            from_version=selected.from_version,
            to_version=selected.to_version,
            engine=opened.reader,
        )
    head = HistoryDocument(table=opened.store.uri, commits=(), diagnostics=diagnostics)
    if request.redact:
        full = redacted(HistoryRead(head=head, rows=commits).document(), True)
        return HistoryRead(head=replace(full, time_window=selected.window))
    return HistoryRead(head=replace(head, time_window=selected.window), rows=commits)


def history(request: HistoryRequest, hooks: Hooks = NO_HOOKS) -> HistoryDocument:
    return read_history(request, hooks).document()
