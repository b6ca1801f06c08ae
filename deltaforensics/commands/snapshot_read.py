"""``snapshot``: the live files of the table at a version."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

from deltaforensics.commands.finish import redacted
from deltaforensics.commands.reading import Progress
from deltaforensics.commands.requests import NO_HOOKS, Hooks, SnapshotRequest
from deltaforensics.commands.tables import open_table
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.loading import load
from deltaforensics.log.selection import ResolvedRange, resolve_range
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document import SnapshotDocument
from deltaforensics.snapshot import Snapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRead:
    """The snapshot as read; its document is built when asked for (a million live files are
    written to JSON from their frame, not one value per file)."""

    uri: str
    snapshot: Snapshot
    diagnostics: tuple[Diagnostic, ...]
    selected: ResolvedRange
    redact: bool = False

    def document(self) -> SnapshotDocument:
        doc = SnapshotDocument.from_snapshot(self.uri, self.snapshot, self.diagnostics)
        return replace(redacted(doc, self.redact), time_window=self.selected.window)

    def json_chunks(self) -> Iterator[str]:
        """``json.dumps(document().to_dict(), indent=2, default=str)`` in pieces."""
        if self.redact or self.selected.window is not None:
            yield json.dumps(self.document().to_dict(), indent=2, default=str)
            return
        from deltaforensics.report.to_text import snapshot_json_chunks  # noqa: PLC0415

        yield from snapshot_json_chunks(self.uri, self.snapshot, self.diagnostics)


def read_snapshot(request: SnapshotRequest, hooks: Hooks = NO_HOOKS) -> SnapshotRead:
    """The snapshot of ``request``'s table at the version it selects."""
    progress = Progress(hooks)
    opened = open_table(request.table, request.access, request.spark, progress)
    selected = resolve_range(opened.store, request.selection)
    engine = opened.reader or PolarsEngine(opened.watched, with_stats=False)
    with progress.shown("reading the log"):
        loaded = load(
            opened.store,
            version=selected.to_version,
            mode="snapshot",
            engine=engine,
            listing=selected.listing,
        )
    snap = loaded.replay.snapshot_at(selected.to_version)
    return SnapshotRead(
        uri=opened.store.uri,
        snapshot=snap,
        diagnostics=loaded.diagnostics,
        selected=selected,
        redact=request.redact,
    )


def snapshot(request: SnapshotRequest, hooks: Hooks = NO_HOOKS) -> SnapshotDocument:
    return read_snapshot(request, hooks).document()
