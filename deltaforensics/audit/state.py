"""The audit's state directory: per-table frames as parquet, partitioned by table.

Layout (``<kind>`` is one of :data:`FRAME_KINDS`, plus ``commits``, the normalised commit
facts that dashboards can read directly)::

    STATE/_tables/<table>.json                      what was read last, and which part is current
    STATE/<kind>/table=<table>/part-<end>.parquet   one file per kind and table

A run writes the new parts first and the ``_tables`` JSON last (an atomic rename), then deletes
the parts it superseded; a run that dies half way leaves the previous state readable.
"""

from __future__ import annotations

import json
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import polars as pl

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
_PV_PREFIX = "partition_values."


def _meta_path(root: Path, table: str) -> Path:
    return root / "_tables" / f"{table}.json"


def _part_path(root: Path, kind: str, table: str, end: int) -> Path:
    return root / kind / f"table={table}" / f"part-{end:020d}.parquet"


def read_state(root: Path, table: str, uri: str) -> TableState | None:
    """The kept state of ``table``, or None when there is none (or it was for another URI)."""
    meta_file = _meta_path(root, table)
    if not meta_file.exists():
        return None
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        if meta.get("format_version") != STATE_FORMAT_VERSION:
            raise UsageError(
                f"{meta_file}: state format {meta.get('format_version')!r} is not "
                f"{STATE_FORMAT_VERSION}; move the state directory away to start afresh"
            )
        if meta["uri"] != uri:
            return None
        end = int(meta["end_version"])
        columns = tuple(meta["partition_columns"])
        frames: dict[str, pl.DataFrame] = {
            kind: pl.read_parquet(_part_path(root, kind, table, end)) for kind in FRAME_KINDS
        }
        versions = pl.read_parquet(_part_path(root, "commit_versions", table, end))
    except (OSError, ValueError, KeyError, TypeError, pl.exceptions.PolarsError) as exc:
        raise UsageError(
            f"{meta_file}: the audit state for {table!r} is unreadable ({exc}); "
            "delete this file to rebuild the table's state from its log"
        ) from None
    frames["files"] = _from_parquet_files(frames["files"], columns)
    last = meta.get("last_commit")
    return TableState(
        uri=uri,
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


def write_state(root: Path, table: str, state: TableState, commits: pl.DataFrame) -> None:
    """Persist ``state`` (and the commit facts) as the current state of ``table``."""
    frames = state.frames
    end = frames.end_version
    meta_file = _meta_path(root, table)
    previous = _current_end(meta_file)
    parts: dict[str, pl.DataFrame] = {
        f.name: getattr(frames, f.name) for f in fields(ActionFrames) if f.name in FRAME_KINDS
    }
    parts["files"] = _to_parquet_files(parts["files"])
    parts["commit_versions"] = pl.DataFrame(
        {"version": list(frames.commit_versions)}, schema={"version": pl.Int64}
    )
    parts["commits"] = commits
    try:
        for kind, frame in parts.items():
            write_parquet(frame, _part_path(root, kind, table, end))
        meta: dict[str, Any] = {
            "format_version": STATE_FORMAT_VERSION,
            "table": table,
            "uri": state.uri,
            "base_version": frames.base_version,
            "end_version": end,
            "partition_columns": list(frames.partition_columns),
            "last_commit": list(state.last_commit) if state.last_commit else None,
            "runs": state.runs,
            "first_seen_version": state.first_seen_version,
            "updated_at_ms": int(time.time() * 1000),
        }
        meta_file.parent.mkdir(parents=True, exist_ok=True)
        tmp_meta = meta_file.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        tmp_meta.replace(meta_file)
    except OSError as exc:
        raise UsageError(
            f"cannot write the audit state under {root}: {exc.strerror or exc}"
        ) from None
    if previous is not None and previous != end:
        for kind in parts:
            _part_path(root, kind, table, previous).unlink(missing_ok=True)


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` atomically (a reader sees the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)


def _current_end(meta_file: Path) -> int | None:
    try:
        return int(json.loads(meta_file.read_text(encoding="utf-8"))["end_version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


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
