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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.assembly import (
    CHECKPOINT_ACTIONS,
    SEQ,
    CheckpointPart,
    RawCheckpoint,
    assemble_checkpoint,
    check_checkpoint_schema,
    sidecar_name,
)
from deltaforensics.log.commit_reader import read_commits
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.storage import LogStore, SupportsLocalFiles

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

_T = TypeVar("_T")


def read_checkpoint(
    store: LogStore, cp: CheckpointFiles, *, with_stats: bool = True
) -> RawCheckpoint:
    return decode_checkpoint(store, cp, with_stats=with_stats).assembled()


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodedCheckpoint:
    """A checkpoint's files and sidecars decoded, the parquet ones still as arrow tables.

    Turning a table into a polars frame copies every string; :meth:`split` first leaves out
    the adds no commit touches (:mod:`deltaforensics.model.deferred_files`), so a checkpoint
    of millions of live files under a window of a few thousand commits costs the decoding of
    its columns and the copy of the few rows the window needs."""

    files: CheckpointFiles
    parts: tuple[tuple[str, CheckpointPart | pa.Table], ...]  # in ``files.names`` order
    sidecars: tuple[tuple[str, pa.Table], ...]
    # True: no add path repeats in the checkpoint (checked on the decoding thread when a split
    # will follow, so the split need not); None: not checked
    paths_distinct: bool | None = None

    def assembled(self, keep: dict[str, pa.ChunkedArray] | None = None) -> RawCheckpoint:
        """The checkpoint with every row, or with the rows ``keep`` (a mask per table name,
        from :meth:`split`) keeps."""
        version = self.files.version
        parts = [
            p
            if isinstance(p, CheckpointPart)
            else CheckpointPart.from_parquet(name, _frame(p, keep, name), version)
            for name, p in self.parts
        ]
        sidecars = [_frame(t, keep, name) for name, t in self.sidecars]
        return assemble_checkpoint(self.files, parts, sidecars)

    def add_paths_distinct(self) -> bool:
        """Whether no path repeats among the adds of the parquet parts and sidecars."""
        import pyarrow.compute as pc  # noqa: PLC0415

        found = [_paths(t, "add") for _, t in self._tables()]
        return not _repeats(
            [(pl.Series(a, dtype=pl.String), pc.is_valid(a)) for a in found if a is not None]
        )

    def _tables(self) -> list[tuple[str, pa.Table]]:
        """The parquet parts and the sidecars, by name."""
        tables = [(name, t) for name, t in self.parts if not isinstance(t, CheckpointPart)]
        return tables + list(self.sidecars)

    def split(self, touched: pl.Series) -> tuple[RawCheckpoint, DeferredAdds | None]:
        """The checkpoint without the adds whose path neither ``touched`` (the paths the
        segment's commits name) nor a checkpoint remove names, and those adds' count; every
        row, and ``None``, when leaving them out would not be exact: an add path repeated
        among them (the lifecycle then orders the repeats) or nothing to leave out."""
        import pyarrow.compute as pc  # noqa: PLC0415

        tables = self._tables()
        removed = [_paths(t, "remove") for _, t in tables]
        known = [pl.Series(r, dtype=pl.String) for r in removed if r is not None]
        # a JSON part's rows are all kept: no add left out may share a path with one of them
        known += [_json_paths(p.frame) for _, p in self.parts if isinstance(p, CheckpointPart)]
        covered = pl.concat([touched, *known]).drop_nulls().unique().sort()
        value_set = covered.to_arrow()
        keep: dict[str, pa.ChunkedArray] = {}
        left_out: list[tuple[pl.Series, pa.ChunkedArray]] = []
        for name, table in tables:
            adds = _paths(table, "add")
            if adds is None:
                continue
            out = pc.and_(pc.is_valid(adds), pc.invert(pc.is_in(adds, value_set=value_set)))
            keep[name] = pc.invert(out)
            left_out.append((pl.Series(adds, dtype=pl.String), out))
        count = sum(pc.sum(out).as_py() or 0 for _, out in left_out)
        if not count or (self.paths_distinct is not True and _repeats(left_out)):
            return self.assembled(), None
        return self.assembled(keep), DeferredAdds(count=count, touched_paths=covered)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferredAdds:
    """What :meth:`DecodedCheckpoint.split` left out: ``count`` adds with distinct paths, none
    of them among ``touched_paths``."""

    count: int
    touched_paths: pl.Series


def decode_checkpoint(
    store: LogStore, cp: CheckpointFiles, *, with_stats: bool = True, check_paths: bool = False
) -> DecodedCheckpoint:
    """Each file of ``cp`` and the sidecars it names, decoded: JSON parts as
    :class:`CheckpointPart`, parquet parts and sidecars as arrow tables whose schema a
    checkpoint can have; ``check_paths``: and whether its add paths are distinct (for a
    :meth:`DecodedCheckpoint.split`, ~0.6 s of 4,000,000 paths done beside the commits)."""
    blobs = _contents(store, cp.names)
    parts = each_concurrently(
        lambda name: _decode_part(name, blobs[name], cp.version, with_stats=with_stats), cp.names
    )
    names = [
        sidecar_name(p)
        for part in parts
        for p in (part.sidecars if isinstance(part, CheckpointPart) else _sidecar_paths(part))
    ]
    sidecars: list[pa.Table] = []
    if names:
        try:
            side_blobs = _contents(store, names)
        except Exception as exc:
            raise LogCorruptError(
                cp.label, f"a sidecar file cannot be read: {exc}", cp.version
            ) from None
        sidecars = each_concurrently(
            lambda n: _read_table(n, side_blobs[n], cp.version, with_stats=with_stats), names
        )
    decoded = DecodedCheckpoint(
        files=cp,
        parts=tuple(zip(cp.names, parts, strict=True)),
        sidecars=tuple(zip(names, sidecars, strict=True)),
    )
    return replace(decoded, paths_distinct=decoded.add_paths_distinct()) if check_paths else decoded


def _frame(table: pa.Table, keep: dict[str, pa.ChunkedArray] | None, name: str) -> pl.DataFrame:
    """``table`` as a polars frame, only the rows ``keep[name]`` keeps if it names one, with
    each row's index in the whole table as ``_seq`` (a file action's ``seq``)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    mask = None if keep is None else keep.get(name)
    if mask is not None:
        at = pc.indices_nonzero(mask).cast(pa.int64())
        table = table.filter(mask).append_column(SEQ, at)
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _paths(table: pa.Table, column: str) -> pa.ChunkedArray | None:
    """The ``path`` field of ``column``'s structs (null where the struct is), or ``None``."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    if column not in table.column_names:
        return None
    values = table.column(column)
    if not isinstance(values.type, pa.StructType) or values.type.get_field_index("path") < 0:
        return None
    return pc.struct_field(values, "path")


def _json_paths(frame: pl.DataFrame) -> pl.Series:
    """The paths of a JSON checkpoint part's adds and removes."""
    found = [
        frame.get_column(kind).struct.field("path").cast(pl.String)
        for kind in ("add", "remove")
        if isinstance(frame.schema.get(kind), pl.Struct)
    ]
    return pl.concat(found) if found else pl.Series([], dtype=pl.String)


def _repeats(parts: list[tuple[pl.Series, pa.ChunkedArray]]) -> bool:
    """Whether a path repeats among the rows each mask picks out of its paths: their 64-bit
    hashes sorted first (a hash table of 4,000,000 paths took ~4.6 s, sorting their hashes
    ~0.2 s), then the paths themselves, where two hashes are equal."""
    if not parts:
        return False
    hashes = np.sort(
        np.concatenate(
            [p.hash().to_numpy()[np.asarray(m.to_numpy(zero_copy_only=False))] for p, m in parts]
        )
    )
    if hashes.size < 2 or not bool((hashes[1:] == hashes[:-1]).any()):
        return False
    picked = [p.filter(pl.Series(m, dtype=pl.Boolean)) for p, m in parts]
    return bool(pl.concat(picked).is_duplicated().any())


def _sidecar_paths(table: pa.Table) -> list[str]:
    """The sidecar paths a parquet part names (as :meth:`CheckpointPart.from_parquet`)."""
    import pyarrow as pa  # noqa: PLC0415

    paths = _paths(table, "sidecar")
    if paths is None:
        return []
    return [p for p in paths.cast(pa.string()).to_pylist() if p is not None]


def _contents(store: LogStore, names: Sequence[str]) -> dict[str, bytes | str]:
    """Each file's bytes, or for a parquet file on a local disk its path: read in place, only
    the wanted columns are read (without statistics, a fifth of a large checkpoint's bytes).
    Whatever cannot be read that way is read through the store, which words any error."""
    paths: dict[str, str] = {}
    if isinstance(store, SupportsLocalFiles):
        for name in names:
            path = store.local_file(name) if name.endswith(".parquet") else None
            if path is not None:
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


def _decode_part(
    name: str, data: bytes | str, version: int, *, with_stats: bool
) -> CheckpointPart | pa.Table:
    if name.endswith(".json"):
        assert isinstance(data, bytes)
        return CheckpointPart.from_json(_read_json_checkpoint(name, data, version))
    table = _read_table(name, data, version, with_stats=with_stats)
    empty = pl.from_arrow(table.schema.empty_table())
    assert isinstance(empty, pl.DataFrame)
    check_checkpoint_schema(name, empty, version)
    return table


def _read_json_checkpoint(name: str, data: bytes, version: int) -> pl.DataFrame:
    try:
        return read_commits([(version, name, data)])
    except LogCorruptError:
        raise
    except Exception as exc:
        raise LogCorruptError(name, f"unreadable JSON checkpoint: {exc}", version) from None


def _read_table(name: str, data: bytes | str, version: int, *, with_stats: bool) -> pa.Table:
    """``data`` is the file's bytes or its local path (mapped, so unread columns cost nothing).
    pyarrow is imported here, by the first checkpoint read: a log without one never needs it
    (0.1 s of every command's start-up)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        source = io.BytesIO(data) if isinstance(data, bytes) else data
        file = pq.ParquetFile(source, memory_map=isinstance(data, str))
        present = [c for c in CHECKPOINT_ACTIONS if c in file.schema_arrow.names]
        table = read_columns(file, _columns_to_read(file.schema_arrow, present, with_stats))
        table = table.select(present)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LogCorruptError(name, f"unreadable parquet checkpoint: {reason}", version) from None
    return _drop_unwanted(table, with_stats)


def read_columns(file: pq.ParquetFile, columns: list[str]) -> pa.Table:
    """``file.read(columns=columns)``, without decoding an action column in a row group its
    statistics show to be null throughout: nearly every row of a large checkpoint is an
    add, and its remove, metaData, protocol and txn columns, null on those rows, took ~1 CPU
    s and 0.6 GB to decode at 4,000,000 files (issue #23)."""
    import pyarrow as pa  # noqa: PLC0415

    meta, schema = file.metadata, file.schema_arrow
    groups = [meta.row_group(g) for g in range(meta.num_row_groups)]
    empty = {
        c: [g for g, rg in enumerate(groups) if _null_throughout(rg, c)]
        for c in columns
        if "." not in c and c != "add"
    }
    sparse = [c for c, found in empty.items() if found]
    dense = [c for c in columns if c not in sparse]
    if len(groups) < 2 or not sparse or not any(c.split(".")[0] == "add" for c in dense):
        return file.read(columns=columns)
    table = file.read(columns=dense)
    for c in sparse:
        dtype = schema.field(c).type
        chunks = [
            pa.nulls(rg.num_rows, dtype)
            if g in empty[c]
            else file.read_row_group(g, columns=[c]).column(c).combine_chunks()
            for g, rg in enumerate(groups)
        ]
        table = table.append_column(schema.field(c), pa.chunked_array(chunks, dtype))
    return table


def _null_throughout(group: pq.RowGroupMetaData, column: str) -> bool:
    """Whether every leaf of ``column`` in ``group`` is null on every row, by the statistics
    (a leaf without a null count: not known, so no)."""
    leaves = [
        group.column(i)
        for i in range(group.num_columns)
        if group.column(i).path_in_schema.split(".")[0] == column
    ]
    return bool(leaves) and all(
        leaf.statistics is not None
        and leaf.statistics.has_null_count
        and leaf.statistics.null_count == group.num_rows
        for leaf in leaves
    )


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


__all__ = [
    "DecodedCheckpoint",
    "DeferredAdds",
    "decode_checkpoint",
    "each_concurrently",
    "read_checkpoint",
]
