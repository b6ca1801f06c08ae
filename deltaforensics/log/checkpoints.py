"""Checkpoints -> raw frames: classic single, multi-part, and V2 (JSON or parquet) with sidecars.

Anything that makes a checkpoint unusable raises :class:`LogCorruptError` naming the file; the
loader then falls back to an older checkpoint (or to version 0) and says so in diagnostics.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.commits import parse_raw
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.storage import LogStore

if TYPE_CHECKING:
    import pyarrow as pa

_T = TypeVar("_T")

_WANTED = (
    "add",
    "remove",
    "metaData",
    "protocol",
    "txn",
    "domainMetadata",
    "sidecar",
    "checkpointMetadata",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RawCheckpoint:
    """What one checkpoint holds: file-action frames (JSON- or parquet-shaped) and side actions."""

    version: int
    json_frames: tuple[pl.DataFrame, ...]  # RAW_ACTION_SCHEMA frames (JSON checkpoints)
    parquet_frames: tuple[pl.DataFrame, ...]  # add/remove/txn/domainMetadata as parquet structs
    metadata: tuple[str, ...]  # metaData actions as JSON text
    protocols: tuple[str, ...]
    names: tuple[str, ...]


def read_checkpoint(
    store: LogStore, cp: CheckpointFiles, *, with_stats: bool = True
) -> RawCheckpoint:
    blobs = _contents(store, cp.names)
    json_frames: list[pl.DataFrame] = []
    parquet_frames: list[pl.DataFrame] = []
    metadata: list[str] = []
    protocols: list[str] = []
    sidecars: list[str] = []
    parts = each_concurrently(
        lambda name: _read_part(name, blobs[name], cp.version, with_stats=with_stats), cp.names
    )
    for part in parts:
        (json_frames if part.is_json else parquet_frames).append(part.frame)
        metadata.extend(part.metadata)
        protocols.extend(part.protocols)
        sidecars.extend(part.sidecars)
    if sidecars:
        names = [f"_sidecars/{_sidecar_name(p)}" for p in sidecars]
        try:
            side_blobs = _contents(store, names)
        except Exception as exc:
            raise LogCorruptError(
                cp.label, f"a sidecar file cannot be read: {exc}", cp.version
            ) from None
        parquet_frames.extend(
            each_concurrently(
                lambda n: _read_parquet(n, side_blobs[n], cp.version, with_stats=with_stats),
                names,
            )
        )
    if not metadata or not protocols:
        raise LogCorruptError(
            cp.label, "checkpoint has no metaData or no protocol action", cp.version
        )
    return RawCheckpoint(
        version=cp.version,
        json_frames=tuple(json_frames),
        parquet_frames=tuple(parquet_frames),
        metadata=tuple(metadata[-1:]),
        protocols=tuple(protocols[-1:]),
        names=cp.names,
    )


def _contents(store: LogStore, names: Sequence[str]) -> dict[str, bytes | str]:
    """Each file's bytes, or for a parquet file on a local disk its path: read in place, only
    the wanted columns are read (without statistics, a fifth of a large checkpoint's bytes).
    Whatever cannot be read that way is read through the store, which words any error."""
    local_file = getattr(store, "local_file", None)
    paths: dict[str, str] = {}
    if local_file is not None:
        for name in names:
            path = local_file(name) if name.endswith(".parquet") else None
            if isinstance(path, str):
                paths[name] = path
    out: dict[str, bytes | str] = dict(paths)
    out.update(store.read_many([n for n in names if n not in paths]))
    return out


def each_concurrently(read: Callable[[str], _T], names: Sequence[str]) -> list[_T]:
    """``[read(n) for n in names]``, on a few threads: decoding parquet and JSON releases the
    GIL, so the parts of a multi-part checkpoint or the sidecars of a V2 one decode side by
    side. Results keep the order of ``names``, and an error is the one the first failing name
    (in that order) raised — the same one a loop would raise, whatever thread finished first."""
    if len(names) < 2:
        return [read(n) for n in names]
    workers = min(len(names), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="checkpoint-read") as pool:
        return list(pool.map(read, names))


@dataclass(frozen=True, slots=True)
class _Part:
    """One file named by the checkpoint, decoded, with the side actions it carries."""

    is_json: bool
    frame: pl.DataFrame
    metadata: list[str]
    protocols: list[str]
    sidecars: list[str]


def _read_part(name: str, data: bytes | str, version: int, *, with_stats: bool) -> _Part:
    if name.endswith(".json"):
        assert isinstance(data, bytes)
        frame = _read_json_checkpoint(name, data, version)
        return _Part(
            is_json=True,
            frame=frame,
            metadata=frame["metaData"].drop_nulls().to_list(),
            protocols=frame["protocol"].drop_nulls().to_list(),
            sidecars=frame["sidecar"].struct.field("path").drop_nulls().to_list(),
        )
    frame = _read_parquet(name, data, version, with_stats=with_stats)
    _check_schema(name, frame, version)
    sidecars: list[str] = []
    if "sidecar" in frame.columns and frame.schema["sidecar"] != pl.Null:
        sidecars = frame["sidecar"].struct.field("path").drop_nulls().cast(pl.String).to_list()
    return _Part(
        is_json=False,
        frame=frame,
        metadata=_structs_to_json(frame, "metaData"),
        protocols=_structs_to_json(frame, "protocol"),
        sidecars=sidecars,
    )


def _sidecar_name(path: str) -> str:
    """Sidecar paths are relative to ``_delta_log/_sidecars`` (absolute URIs: use the name)."""
    return path.rsplit("/", 1)[-1]


def _read_json_checkpoint(name: str, data: bytes, version: int) -> pl.DataFrame:
    from deltaforensics.log.commits import read_commits  # noqa: PLC0415 - same package

    try:
        return read_commits([(version, name, data)])
    except LogCorruptError:
        raise
    except Exception as exc:
        raise LogCorruptError(name, f"unreadable JSON checkpoint: {exc}", version) from None


def _read_parquet(name: str, data: bytes | str, version: int, *, with_stats: bool) -> pl.DataFrame:
    """``data`` is the file's bytes or its local path (mapped, so unread columns cost nothing).
    pyarrow is imported here, by the first checkpoint read: a log without one never needs it
    (0.1 s of every command's start-up)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        source = io.BytesIO(data) if isinstance(data, bytes) else data
        file = pq.ParquetFile(source, memory_map=isinstance(data, str))
        present = [c for c in _WANTED if c in file.schema_arrow.names]
        table = file.read(columns=_columns_to_read(file.schema_arrow, present, with_stats))
        table = table.select(present)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LogCorruptError(name, f"unreadable parquet checkpoint: {reason}", version) from None
    if not with_stats and "add" in table.column_names:
        table = _drop_stats(table)
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _columns_to_read(schema: pa.Schema, present: list[str], with_stats: bool) -> list[str]:
    """Top-level columns, but without ``add.stats``: leaving the column chunk unread saves
    most of the time and memory of a large checkpoint (the stats are ~80% of its bytes)."""
    import pyarrow as pa  # noqa: PLC0415

    add = schema.field("add").type if "add" in present else None
    if with_stats or not isinstance(add, pa.StructType):
        return present
    children = [add.field(i).name for i in range(add.num_fields)]
    kept = [f"add.{c}" for c in children if c not in ("stats", "stats_parsed")]
    if not kept or len(kept) == len(children):
        return present
    return [c for c in present if c != "add"] + kept


def _drop_stats(table: pa.Table) -> pa.Table:
    import pyarrow as pa  # noqa: PLC0415

    add = table.column("add").combine_chunks()
    keep = [
        i
        for i in range(add.type.num_fields)
        if add.type.field(i).name not in ("stats", "stats_parsed")
    ]
    fields = [add.type.field(i) for i in keep]
    arrays = [add.field(i) for i in keep]
    slim = pa.StructArray.from_arrays(arrays, fields=fields, mask=add.is_null())
    return table.set_column(table.column_names.index("add"), "add", slim)


def _check_schema(name: str, frame: pl.DataFrame, version: int) -> None:
    for column in ("add", "remove", "metaData", "protocol"):
        dtype = frame.schema.get(column)
        if dtype is not None and not isinstance(dtype, pl.Struct | pl.Null):
            raise LogCorruptError(
                name, f"checkpoint column {column!r} has type {dtype}, expected a struct", version
            )
    add = frame.schema.get("add")
    if isinstance(add, pl.Struct) and "path" not in {f.name for f in add.fields}:
        raise LogCorruptError(name, "checkpoint add actions have no path", version)


def _structs_to_json(frame: pl.DataFrame, column: str) -> list[str]:
    if column not in frame.columns or frame.schema[column] == pl.Null:
        return []
    rows = frame.filter(pl.col(column).is_not_null())[column].to_list()
    return [json.dumps(_maps_to_dicts(r)) for r in rows]


def _maps_to_dicts(value: Any) -> Any:
    """Parquet maps arrive as lists of {key, value}; metaData wants JSON objects."""
    if isinstance(value, dict):
        return {k: _maps_to_dicts(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(x, dict) and set(x) == {"key", "value"} for x in value):
            return {x["key"]: _maps_to_dicts(x["value"]) for x in value}
        if not value:
            return value
        return [_maps_to_dicts(x) for x in value]
    return value


__all__ = ["RawCheckpoint", "parse_raw", "read_checkpoint"]
