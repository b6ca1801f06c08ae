"""The audit's state directory: per-table frames as parquet, partitioned by table.

Layout (``<kind>`` is one of :data:`FRAME_KINDS`, plus ``commits``, the normalised commit
facts that dashboards can read directly, and ``commit_versions``)::

    STATE/_tables/<table>.json                            what was read last, which parts are current
    STATE/_tables/<table>.lock                            taken while a run publishes the table's state
    STATE/<kind>/table=<table>/part-<end>-<run>.parquet   one file per kind and table

Several runs may audit the same table into the same state directory at once (two schedules, a
manual run beside a scheduled one), and any of them may be killed. So a run:

1. writes every part under a temporary name of its own (``.<name>.<pid>-<random>.tmp``, beside
   the part; see :mod:`deltaforensics.audit.files`), and the ``_tables`` JSON likewise;
2. takes the table's lock (``flock`` on ``_tables/<table>.lock``; the kernel releases it when
   the holder dies, even by SIGKILL, so no lock is ever stale) and, holding it, reads the
   ``_tables`` JSON again: compare-and-swap. It publishes — renames its parts to their names,
   then the JSON over the old one, each an atomic :func:`os.replace` — only when the state is
   still the one it read (its ``run`` mark is unchanged), or when the state there now is for the
   same URI and ends before this run's end version. Otherwise a concurrent run has kept a state
   at least as new in the meantime: that one stays, this run's temporaries are removed, and
   ``summary.json`` says so (the table's ``state`` entry: ``written`` false, the version kept
   and why). A run that read the state and finds it unchanged publishes even an older end
   version: that is a replaced table starting afresh (W701), not a race;
3. still holding the lock, removes every other part of the table (the parts it superseded, and
   any a killed run renamed without publishing), and temporaries older than an hour.

A reader takes no lock: it reads the JSON, then the parts it names; when a part is gone because
a run published meanwhile, it reads the new JSON and tries again. The end version kept for a
table therefore never goes backwards under concurrent runs, every state read is one a run
wrote whole, and a run that dies at any point leaves the last published state readable. Its
temporaries are hidden (a leading dot, ``.tmp``), so a ``*.parquet`` glob or Spark never reads
them; only a run killed inside the short publishing step can leave a named part beside the
current one until the next run publishes. States written before run marks existed
(``part-<end>.parquet``) are read as they are and replaced by the next publish.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import polars as pl

from deltaforensics.audit.files import locked, remove_stale_temporaries, temporary_beside
from deltaforensics.audit.files import write_atomically as _write_atomically
from deltaforensics.audit.incremental import STATE_FORMAT_VERSION, TableState
from deltaforensics.errors import UsageError
from deltaforensics.model.schemas import PARTITION_VALUES, ActionFrames

FRAME_KINDS = (
    "files",
    "commit_infos",
    "metadata",
    "protocols",
    "txns",
    "domains",
    "cdc",
    "unknown",
)
PART_KINDS = (*FRAME_KINDS, "commit_versions", "commits")
READ_ATTEMPTS = 8  # a reader retries when runs publish while it reads; each publish is quick
_PV_PREFIX = "partition_values."


@dataclass(frozen=True, slots=True, kw_only=True)
class StateWrite:
    """What a run's publish of one table's state did (``summary.json``: the table's ``state``)."""

    written: bool
    version: int  # the end version the kept state has now
    reason: str | None = None  # why this run's state was not written

    def to_dict(self) -> dict[str, Any]:
        return {"written": self.written, "version": self.version, "reason": self.reason}


def _meta_path(root: Path, table: str) -> Path:
    return root / "_tables" / f"{table}.json"


def _lock_path(root: Path, table: str) -> Path:
    return root / "_tables" / f"{table}.lock"


def _part_path(root: Path, kind: str, table: str, end: int, run: str | None) -> Path:
    mark = f"-{run}" if run else ""  # no run mark: a state written before marks existed
    return root / kind / f"table={table}" / f"part-{end:020d}{mark}.parquet"


def _mark(meta: dict[str, Any]) -> str:
    """The identity of a published state: its run mark (older states: end and write time)."""
    run = meta.get("run")
    return str(run) if run else f"legacy-{meta.get('end_version')}-{meta.get('updated_at_ms')}"


def read_state(root: Path, table: str, uri: str) -> TableState | None:
    """The kept state of ``table``, or None when there is none (or it was for another URI)."""
    return read_state_marked(root, table, uri)[0]


def read_state_marked(root: Path, table: str, uri: str) -> tuple[TableState | None, str | None]:
    """The kept state of ``table`` (None when there is none, or it is for another URI) and the
    mark of the state file read (None when there is none): publishing compares it again."""
    meta_file = _meta_path(root, table)
    for _ in range(READ_ATTEMPTS):
        meta = _read_meta(meta_file, table)
        if meta is None:
            return None, None
        mark = _mark(meta)
        try:
            if meta["uri"] != uri:
                return None, mark
            return _load(root, table, meta), mark
        except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError) as exc:
            now = _read_meta(meta_file, table)
            if now is not None and _mark(now) != mark:
                continue  # a concurrent run published and removed these parts: read the new one
            raise _unreadable(meta_file, table, str(exc)) from None
    raise _unreadable(
        meta_file, table, f"it changed under {READ_ATTEMPTS} reads in a row, runs keep publishing"
    )


def _read_meta(meta_file: Path, table: str) -> dict[str, Any] | None:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise _unreadable(meta_file, table, str(exc)) from None
    if not isinstance(meta, dict):
        raise _unreadable(meta_file, table, "not a JSON object")
    if meta.get("format_version") != STATE_FORMAT_VERSION:
        raise UsageError(
            f"{meta_file}: state format {meta.get('format_version')!r} is not "
            f"{STATE_FORMAT_VERSION}; move the state directory away to start afresh"
        )
    return meta


def _unreadable(meta_file: Path, table: str, why: str) -> UsageError:
    return UsageError(
        f"{meta_file}: the audit state for {table!r} is unreadable ({why}); "
        "delete this file to rebuild the table's state from its log"
    )


def _load(root: Path, table: str, meta: dict[str, Any]) -> TableState:
    end = int(meta["end_version"])
    run = meta.get("run")
    columns = tuple(meta["partition_columns"])
    frames: dict[str, Any] = {  # Any: ActionFrames also takes a non-frame keyword
        kind: pl.read_parquet(_part_path(root, kind, table, end, run)) for kind in FRAME_KINDS
    }
    versions = pl.read_parquet(_part_path(root, "commit_versions", table, end, run))
    frames["files"] = _from_parquet_files(frames["files"], columns)
    last = meta.get("last_commit")
    return TableState(
        uri=str(meta["uri"]),
        frames=ActionFrames(
            base_version=int(meta["base_version"]),
            end_version=end,
            partition_columns=columns,
            commit_versions=tuple(versions["version"].to_list()),
            **frames,
        ),
        last_commit=(int(last[0]), str(last[1]), last[2]) if last else None,
        runs=int(meta.get("runs", 1)),
        first_seen_version=int(meta.get("first_seen_version", 0)),
    )


def write_state(root: Path, table: str, state: TableState, commits: pl.DataFrame) -> StateWrite:
    """Publish ``state`` (and the commit facts) as the current state of ``table``, unless a
    concurrent run has published one at least as new since this run read it (module doc)."""
    frames = state.frames
    end = frames.end_version
    run = f"{os.getpid()}-{secrets.token_hex(6)}"
    meta_file = _meta_path(root, table)
    parts: dict[str, pl.DataFrame] = {
        f.name: getattr(frames, f.name) for f in fields(ActionFrames) if f.name in FRAME_KINDS
    }
    parts["files"] = _to_parquet_files(parts["files"])
    parts["commit_versions"] = pl.DataFrame(
        {"version": list(frames.commit_versions)}, schema={"version": pl.Int64}
    )
    parts["commits"] = commits
    meta: dict[str, Any] = {
        "format_version": STATE_FORMAT_VERSION,
        "table": table,
        "uri": state.uri,
        "run": run,
        "base_version": frames.base_version,
        "end_version": end,
        "partition_columns": list(frames.partition_columns),
        "last_commit": list(state.last_commit) if state.last_commit else None,
        "runs": state.runs,
        "first_seen_version": state.first_seen_version,
        "updated_at_ms": int(time.time() * 1000),
    }
    staged: list[tuple[Path, Path]] = []  # (temporary, name), the JSON last
    try:
        for kind, frame in parts.items():
            final = _part_path(root, kind, table, end, run)
            final.parent.mkdir(parents=True, exist_ok=True)
            staged.append((temporary_beside(final), final))
            frame.write_parquet(staged[-1][0])
        meta_file.parent.mkdir(parents=True, exist_ok=True)
        staged.append((temporary_beside(meta_file), meta_file))
        staged[-1][0].write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        with locked(_lock_path(root, table)):
            kept = _newer_kept(_read_meta(meta_file, table), state, end)
            if kept is not None:
                return kept
            for tmp, final in staged:
                tmp.replace(final)
            _remove_other_parts(root, table, _part_path(root, "commits", table, end, run).name)
        return StateWrite(written=True, version=end)
    except OSError as exc:
        raise UsageError(
            f"cannot write the audit state under {root}: {exc.strerror or exc}"
        ) from None
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def _newer_kept(current: dict[str, Any] | None, state: TableState, end: int) -> StateWrite | None:
    """The compare-and-swap: None when this run may publish, else what stays and why."""
    if current is None or _mark(current) == state.based_on:
        return None  # no state, or still the one this run read
    kept = int(current.get("end_version", -1))
    if current.get("uri") == state.uri and kept < end:
        return None  # a concurrent run published meanwhile, but an older end version
    return StateWrite(
        written=False,
        version=kept,
        reason=(
            f"another run published this table's state (v{kept}) after this run read it; "
            f"this run's v{end} is not newer, so that state is kept"
        ),
    )


def _remove_other_parts(root: Path, table: str, keep: str) -> None:
    """Under the table's lock: every part but the current one is superseded or an orphan."""
    for kind in PART_KINDS:
        folder = root / kind / f"table={table}"
        for part in folder.glob("part-*.parquet"):
            if part.name != keep:
                part.unlink(missing_ok=True)
        remove_stale_temporaries(folder)


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` atomically (a reader sees the old file or the new one)."""
    _write_atomically(path, frame.write_parquet)


def _to_parquet_files(files: pl.DataFrame) -> pl.DataFrame:
    """Parquet cannot hold a struct without fields: keep partition values as flat columns."""
    dtype = files.schema[PARTITION_VALUES]
    names = [f.name for f in dtype.fields] if isinstance(dtype, pl.Struct) else []
    flat = [pl.col(PARTITION_VALUES).struct.field(n).alias(_PV_PREFIX + n) for n in names]
    return files.with_columns(flat).drop(PARTITION_VALUES)


def _from_parquet_files(files: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    flat = [_PV_PREFIX + c for c in columns]
    struct = (
        pl.struct([pl.col(_PV_PREFIX + c).alias(c) for c in columns])
        if columns
        else pl.lit(None, pl.Struct({}))
    )
    return files.with_columns(struct.alias(PARTITION_VALUES)).drop(flat)
