"""Checkpoints read through a :class:`LogStore`: classic single, multi-part, and V2 (JSON or
parquet) with sidecars, decoded with pyarrow and assembled by :mod:`deltaforensics.log.assembly`.

Anything that makes a checkpoint unusable raises :class:`LogCorruptError` naming the file; the
loader then falls back to an older checkpoint (or to version 0) and says so in diagnostics.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.assembly import (
    CHECKPOINT_ACTIONS,
    CheckpointPart,
    RawCheckpoint,
    assemble_checkpoint,
    sidecar_paths,
)
from deltaforensics.log.commits import read_commits
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.storage import LogStore

if TYPE_CHECKING:
    import pyarrow as pa

_T = TypeVar("_T")


def read_checkpoint(
    store: LogStore, cp: CheckpointFiles, *, with_stats: bool = True
) -> RawCheckpoint:
    blobs = _contents(store, cp.names)
    parts = each_concurrently(
        lambda name: _read_part(name, blobs[name], cp.version, with_stats=with_stats), cp.names
    )
    names = sidecar_paths(parts)
    sidecars: list[pl.DataFrame] = []
    if names:
        try:
            side_blobs = _contents(store, names)
        except Exception as exc:
            raise LogCorruptError(
                cp.label, f"a sidecar file cannot be read: {exc}", cp.version
            ) from None
        sidecars = each_concurrently(
            lambda n: _read_parquet(n, side_blobs[n], cp.version, with_stats=with_stats), names
        )
    return assemble_checkpoint(cp, parts, sidecars)


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


def _read_part(name: str, data: bytes | str, version: int, *, with_stats: bool) -> CheckpointPart:
    if name.endswith(".json"):
        assert isinstance(data, bytes)
        return CheckpointPart.from_json(_read_json_checkpoint(name, data, version))
    frame = _read_parquet(name, data, version, with_stats=with_stats)
    return CheckpointPart.from_parquet(name, frame, version)


def _read_json_checkpoint(name: str, data: bytes, version: int) -> pl.DataFrame:
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
        present = [c for c in CHECKPOINT_ACTIONS if c in file.schema_arrow.names]
        table = file.read(columns=_columns_to_read(file.schema_arrow, present, with_stats))
        table = table.select(present)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LogCorruptError(name, f"unreadable parquet checkpoint: {reason}", version) from None
    table = _drop_unwanted(table, with_stats)
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


# Fields of a checkpoint's add struct nothing reads: Delta-Spark writes the statistics and the
# partition values a second time as typed structs (``delta.checkpoint.writeStatsAsStruct``);
# the frames take both from the ``stats`` text and the ``partitionValues`` map.
_NEVER_READ = frozenset({"stats_parsed", "partitionValues_parsed"})


def _columns_to_read(schema: pa.Schema, present: list[str], with_stats: bool) -> list[str]:
    """Top-level columns, but without the add fields no frame uses (and without ``add.stats``
    unless asked): leaving a column chunk unread saves its decoding and its memory (the
    statistics are ~80% of a large checkpoint's bytes)."""
    add = schema.field("add").type if "add" in present else None
    children = _add_fields(add)
    kept = [c for c in children if c not in _unwanted(with_stats)]
    if not kept or len(kept) == len(children):
        return present
    return [c for c in present if c != "add"] + [f"add.{c}" for c in kept]


def _unwanted(with_stats: bool) -> frozenset[str]:
    return _NEVER_READ if with_stats else _NEVER_READ | {"stats"}


def _add_fields(add: pa.DataType | None) -> list[str]:
    import pyarrow as pa  # noqa: PLC0415

    if not isinstance(add, pa.StructType):
        return []
    return [add.field(i).name for i in range(add.num_fields)]


def _drop_unwanted(table: pa.Table, with_stats: bool) -> pa.Table:
    """``table`` without the add fields :func:`_columns_to_read` leaves out; read from bytes,
    the whole struct was decoded."""
    import pyarrow as pa  # noqa: PLC0415

    if "add" not in table.column_names:
        return table
    unwanted = _unwanted(with_stats)
    if not unwanted.intersection(_add_fields(table.schema.field("add").type)):
        return table
    add = table.column("add").combine_chunks()
    keep = [i for i in range(add.type.num_fields) if add.type.field(i).name not in unwanted]
    fields = [add.type.field(i) for i in keep]
    arrays = [add.field(i) for i in keep]
    slim = pa.StructArray.from_arrays(arrays, fields=fields, mask=add.is_null())
    return table.set_column(table.column_names.index("add"), "add", slim)


__all__ = ["each_concurrently", "read_checkpoint"]
