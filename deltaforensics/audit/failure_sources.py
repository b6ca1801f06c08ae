"""The audit's ``[[failures]]`` sources: read once per run, before any table, and from where the
last run stopped (issue #33).

Each source's cursor is kept in the state directory (``STATE/_failures/cursor.json``):

- per log (an application's event log with its rolled or rotated parts, or one driver log),
  every file's size and modification time when it was last read: a log whose files are all
  unchanged is not read again; a log that grew (a running application's ``.inprogress``, a
  rolled folder with a new ``events_<n>`` part, an active driver log) or is new is read whole,
  so that a statement that started in an earlier part is still found with its start;
- the keys of the failures already reported (application, execution, times, and a hash of the
  exception text; no text is kept): a log read again, or a driver log rotated into a ``.gz``
  part, reports only the failures it did not report before. Keys older than
  :data:`KEEP_SEEN_MS` before the newest failure are dropped.

Sources are read before any table's log, so every winner a failure names has committed before
its table is listed. The cursor is written when the run has written its outputs: a run that
dies reads the same logs again next time. Nothing but file names, sizes, times and hashes is
stored: never a message, a statement or a credential.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltaforensics.audit.failure_config import FailureSource
from deltaforensics.audit.files import write_atomically
from deltaforensics.errors import DeltaForensicsError, UsageError
from deltaforensics.failures.records import FailedStatement
from deltaforensics.log.options import redact as redact_secrets
from deltaforensics.log.options import secret_values
from deltaforensics.sources import LogGroup, read_failures

CURSOR_FORMAT = 1
KEEP_SEEN_MS = 30 * 24 * 3600 * 1000


@dataclass(slots=True)
class SourcesRead:
    """What the run's sources held that earlier runs did not report, what the summary says of
    each source, and the cursor to keep once the run has written its outputs."""

    failures: tuple[FailedStatement, ...] = ()
    summary: list[dict[str, Any]] = field(default_factory=list)
    cursor: dict[str, Any] = field(default_factory=dict)
    exit_code: int = 0


def cursor_path(state_dir: Path) -> Path:
    return state_dir / "_failures" / "cursor.json"


def failure_key(f: FailedStatement) -> str:
    """One failure however many times (and in however many files) it is read."""
    text = "\x1f".join(
        str(x)
        for x in (f.source_kind, f.app_id, f.execution_id, f.started_at, f.failed_at, f.error_text)
    )
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24]


def read_sources(sources: Sequence[FailureSource], state_dir: Path | None) -> SourcesRead:
    """Every source read from its cursor (all of it without a state directory)."""
    prior = _load_cursor(state_dir) if state_dir is not None else {}
    out = SourcesRead()
    for source in sources:
        key = hashlib.sha256(source.path.encode()).hexdigest()[:16]
        before = prior.get(key, {})
        logs_before: dict[str, Any] = before.get("logs", {})
        seen_before: dict[str, int] = before.get("seen", {})
        cursor = _Cursor(logs_before)
        secrets = sorted(secret_values(source.storage_options))
        try:
            reading = read_failures(
                source.path,
                kind=source.kind,  # type: ignore[arg-type]
                storage_options=source.storage_options,
                skip=cursor.unchanged,
            )
        except DeltaForensicsError as exc:
            message = redact_secrets(" ".join([str(exc), *getattr(exc, "__notes__", [])]), secrets)
            out.summary.append({"status": "failed", "error": message})
            out.exit_code = max(out.exit_code, 2 if isinstance(exc, UsageError) else 3)
            out.cursor[key] = before  # nothing learnt: the next run starts where this one did
            continue
        new = [f for f in reading.failures if failure_key(f) not in seen_before]
        seen = dict(seen_before)
        for f in reading.failures:
            seen[failure_key(f)] = f.failed_at or f.started_at or 0
        newest = max(seen.values(), default=0)
        seen = {k: t for k, t in seen.items() if t >= newest - KEEP_SEEN_MS}
        out.failures += tuple(new)
        out.cursor[key] = {"source": reading.source, "logs": cursor.logs_now, "seen": seen}
        out.summary.append(
            {
                "source": reading.source,
                "status": "ok",
                "files_read": reading.files_read,
                "logs_unchanged": cursor.skipped,
                "failures_new": len(new),
                "failures_seen_before": len(reading.failures) - len(new),
                "diagnostics": [f"{d.source}: {d.message}" for d in reading.diagnostics],
            }
        )
    return out


class _Cursor:
    """One source's logs as listed now, and whether each is as the last run read it."""

    def __init__(self, before: dict[str, Any]) -> None:
        self.before = before
        self.logs_now: dict[str, Any] = {}
        self.skipped = 0

    def unchanged(self, group: LogGroup) -> bool:
        name = group.files[0].name or "."
        files = {f.name or ".": [f.size, f.modified_ms] for f in group.files}
        self.logs_now[name] = {"files": files}
        known = all(v is not None for pair in files.values() for v in pair)
        same = known and self.before.get(name, {}).get("files") == files
        self.skipped += same
        return same


def write_cursor(state_dir: Path, read: SourcesRead) -> None:
    """Keep the cursor (after the run wrote its outputs)."""
    path = cursor_path(state_dir)
    text = json.dumps({"format": CURSOR_FORMAT, "sources": read.cursor}, indent=1, sort_keys=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lambda tmp: tmp.write_text(text + "\n", encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _load_cursor(state_dir: Path) -> dict[str, Any]:
    """The kept cursor; one that is missing, unreadable or of another format is no cursor
    (every source is read whole again, and its failures reported again)."""
    try:
        doc = json.loads(cursor_path(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != CURSOR_FORMAT:
        return {}
    sources = doc.get("sources")
    return sources if isinstance(sources, dict) else {}
