"""Frame helpers shared by the layers above: grouping rows without copying them, putting
frames together so that later selections copy nothing, and reading a files frame's partition
values under their logical names."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt
import polars as pl

from deltaforensics.model.schemas import PARTITION_VALUES

_T = TypeVar("_T")


class Slices(Mapping[Any, pl.DataFrame]):
    """Rows per distinct key of a frame, each group cut when it is asked for (``partition_by``
    and group iteration copy every group up front, which over 100,000 commits costs seconds
    when only a few groups are looked at).

    The groups are kept as row positions into the frame they came from, not as a sorted copy
    of it: a group whose rows are consecutive there (every commit's adds, in a log read in
    version order) is a zero-copy slice, any other is gathered. Copying a history's adds
    (sorted by version) and a dict of 1,000,000 versions was the peak of ``explain`` at
    1,000,000 commits (~1.1 GB of 4.9, issue #23). Keys are found by binary search when they
    are integers without nulls (versions), else through a dict."""

    def __init__(self, source: pl.DataFrame, groups: _Groups) -> None:
        self._source, self._groups = source, groups

    def __getitem__(self, key: Any) -> pl.DataFrame:
        found = self._groups.find(key)
        if found is None:
            raise KeyError(key)
        return self._cut(found)

    def _cut(self, index: int) -> pl.DataFrame:
        rows, start, stop = self._groups.rows, *self._groups.span(index)
        if rows is None:
            return self._source.slice(start, stop - start)
        first = int(rows[start])
        if int(rows[stop - 1]) - first == stop - start - 1:  # consecutive in the source
            return self._source.slice(first, stop - start)
        return self._source[rows[start:stop]]

    @overload
    def get(self, key: Any, /) -> pl.DataFrame | None: ...
    @overload
    def get(self, key: Any, default: pl.DataFrame, /) -> pl.DataFrame: ...
    @overload
    def get(self, key: Any, default: _T, /) -> pl.DataFrame | _T: ...

    def get(self, key: Any, default: Any = None, /) -> Any:
        """Without ``Mapping.get``'s KeyError round trip (most commits have no removes)."""
        found = self._groups.find(key)
        return default if found is None else self._cut(found)

    def without(self, *columns: str) -> Slices:
        """The same groups without ``columns`` (dropped once from the whole frame, not from
        each group as it is cut)."""
        return Slices(self._source.drop(*columns), self._groups)

    def deferred(self, key: Any, default: pl.DataFrame) -> Deferred | pl.DataFrame:
        """``key``'s rows as a :class:`Deferred`, not cut yet; ``default`` when it has none."""
        return default if self._groups.find(key) is None else Deferred(self, key)

    def height_of(self, key: Any) -> int:
        found = self._groups.find(key)
        if found is None:
            return 0
        start, stop = self._groups.span(found)
        return stop - start

    def __contains__(self, key: object) -> bool:
        return self._groups.find(key) is not None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._groups.each())

    def __len__(self) -> int:
        return self._groups.count


@dataclass(frozen=True, slots=True, kw_only=True)
class _Groups:
    """Where each group's rows are: ``rows[starts[i]:starts[i + 1]]`` are the source positions
    of group ``i`` in their source order (``rows`` ``None``: the positions themselves, the
    source being grouped already). ``names`` holds group ``i``'s key at ``i``: a sorted integer
    array, searched, or a list, found through ``index``."""

    rows: npt.NDArray[np.int64] | None
    starts: npt.NDArray[np.int64]
    names: npt.NDArray[np.int64] | list[Any]
    index: dict[Any, int] | None

    @property
    def count(self) -> int:
        return len(self.names)

    def span(self, i: int) -> tuple[int, int]:
        return int(self.starts[i]), int(self.starts[i + 1])

    def find(self, key: Any) -> int | None:
        if self.index is not None:
            return self.index.get(key)
        keys = self.names
        if not isinstance(key, int | np.integer) or isinstance(key, bool) or not len(keys):
            return None
        at = int(np.searchsorted(keys, key))
        return at if at < len(keys) and keys[at] == key else None

    def each(self) -> Iterator[Any]:
        names = self.names
        return iter(names if isinstance(names, list) else names.tolist())


class Deferred:
    """One key's rows of a :class:`Slices`, cut when first read: a history keeps a frame of
    adds and one of removes per commit, and cutting 200,000 of them up front cost more than
    a second of an explain that reads a few thousand (see :func:`defer_frames`)."""

    __slots__ = ("_key", "_slices")

    def __init__(self, slices: Slices, key: Any) -> None:
        self._slices, self._key = slices, key

    @property
    def height(self) -> int:
        return self._slices.height_of(self._key)

    def frame(self) -> pl.DataFrame:
        return self._slices[self._key]


def frame_of(rows: Deferred | pl.DataFrame) -> pl.DataFrame:
    return rows.frame() if isinstance(rows, Deferred) else rows


class _DeferredField:
    """A slotted dataclass field of frame type that may be given a :class:`Deferred`: the
    first read cuts the frame and keeps it in the slot (the same value, so a frozen instance
    stays what it was); :meth:`height_of` counts the rows without cutting them."""

    def __init__(self, slot: Any) -> None:
        self._slot = slot

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self._slot.__get__(obj, owner)
        if isinstance(value, Deferred):
            value = value.frame()
            self._slot.__set__(obj, value)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self._slot.__set__(obj, value)

    def height_of(self, obj: Any) -> int:
        value: Deferred | pl.DataFrame = self._slot.__get__(obj, type(obj))
        return value.height


def defer_frames(*names: str) -> Callable[[type[_T]], type[_T]]:
    """A class decorator (outside ``@dataclass``): the slotted frame fields ``names`` may be
    given as :class:`Deferred` rows (:class:`_DeferredField`)."""

    def install(cls: type[_T]) -> type[_T]:
        for name in names:
            setattr(cls, name, _DeferredField(cls.__dict__[name]))
        return cls

    return install


def deferred_height(obj: Any, name: str) -> int:
    """The rows of ``obj``'s frame field ``name`` (see :func:`defer_frames`), not cut."""
    field = type(obj).__dict__[name]
    if isinstance(field, _DeferredField):
        return field.height_of(obj)
    frame: pl.DataFrame = getattr(obj, name)
    return frame.height


def slices_by(frame: pl.DataFrame, *keys: str, where: pl.Expr | None = None) -> Slices:
    """Rows per distinct key, in their original order within each group; with ``where``, only
    the rows where it holds (the frame is not filtered: see :class:`Slices`). One key gives
    plain keys; several give tuples."""
    if len(keys) == 1 and frame.schema[keys[0]].is_integer():
        fast = _slices_by_integer(frame, keys[0], where)
        if fast is not None:
            return fast
    # lazily, so that only the key columns (and those ``where`` reads) are gathered
    picked = frame.lazy().select(
        pl.int_range(pl.len(), dtype=pl.Int64).alias("_at"),
        *keys,
        (pl.lit(True) if where is None else where).alias("_where"),
    )
    ordered = (
        picked.filter("_where").select("_at", *keys).sort(list(keys), maintain_order=True).collect()
    )
    rows = ordered.get_column("_at").to_numpy()
    heads = np.flatnonzero(ordered.select(pl.struct(list(keys)).is_first_distinct()).to_series())
    starts = np.append(heads, rows.size).astype(np.int64)
    grouped = ordered.select(*keys)[heads]
    first = grouped.get_column(keys[0])
    if len(keys) == 1 and first.dtype.is_integer() and not first.null_count():
        found: npt.NDArray[np.int64] | list[Any] = first.cast(pl.Int64).to_numpy()
        index = None
    else:
        found = first.to_list() if len(keys) == 1 else grouped.rows()
        index = {key: i for i, key in enumerate(found)}
    in_place = rows.size == frame.height and bool(np.all(rows == np.arange(rows.size)))
    groups = _Groups(rows=None if in_place else rows, starts=starts, names=found, index=index)
    return Slices(frame, groups)


_FITS_INT64 = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


def _slices_by_integer(frame: pl.DataFrame, key: str, where: pl.Expr | None) -> Slices | None:
    """:func:`slices_by` one integer key without nulls (a commit's version), in numpy: a
    stable argsort of the picked rows' keys. A lazy plan cost ~2 ms a call, most of the
    audit's time on a fleet of small tables; ``None`` for a key with nulls."""
    column = frame.get_column(key)
    if column.null_count() or column.dtype not in _FITS_INT64:
        return None
    values = column.cast(pl.Int64).to_numpy()
    if where is None:
        rows = np.arange(frame.height, dtype=np.int64)
    else:
        picked = frame.select(where.fill_null(False)).to_series().to_numpy()
        rows = np.flatnonzero(picked).astype(np.int64)
    keyed = values[rows]
    if keyed.size > 1 and not bool((keyed[1:] >= keyed[:-1]).all()):
        order = np.argsort(keyed, kind="stable")
        rows, keyed = rows[order], keyed[order]
    heads = np.flatnonzero(np.concatenate(([True], keyed[1:] != keyed[:-1])))[: keyed.size]
    starts = np.append(heads, rows.size).astype(np.int64)
    found: npt.NDArray[np.int64] = keyed[heads]
    in_place = rows.size == frame.height and bool(np.all(rows == np.arange(rows.size)))
    groups = _Groups(rows=None if in_place else rows, starts=starts, names=found, index=None)
    return Slices(frame, groups)


def concat_aligned(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """``frames`` one below the other, every column cut into chunks at the same rows.

    Each frame should hold its columns in one chunk each. A column that is one constant in
    each frame (a literal: ``action``, a field no action of a kind has) stays a constant when
    the constants agree, but where they differ polars joins it into fewer chunks than the
    other columns have; an eager ``select`` or ``with_row_index`` of such a frame then copies
    every column it keeps into one chunk (the paths of 5,000,000 file actions: ~0.5 GB at
    1,000,000 commits, issue #23). Those columns are made real per frame instead (8 or 16
    bytes a row)."""
    joined = pl.concat(frames, how="vertical")
    counts = joined.n_chunks("all")
    most = max(counts, default=1)
    uneven = [c for c, n in zip(joined.columns, counts, strict=True) if 1 < n < most]
    if not uneven:
        return joined
    real = [f.with_columns(f.get_column(c) for c in uneven) for f in frames]
    return pl.concat(real, how="vertical")


def partition_value_exprs(
    dtype: pl.DataType | None,
    partition_columns: Sequence[str],
    physical_names: Mapping[str, str],
) -> list[pl.Expr]:
    """Per logical partition column, its value in a ``partition_values`` struct of type
    ``dtype``: the field under its physical name, else under its logical name (a writer that
    ignored column mapping), else null; aliased to the logical name."""
    fields = {f.name for f in dtype.fields} if isinstance(dtype, pl.Struct) else set()
    out = []
    for logical in partition_columns:
        physical = physical_names.get(logical, logical)
        source = physical if physical in fields else logical if logical in fields else None
        value = (
            pl.col(PARTITION_VALUES).struct.field(source)
            if source is not None
            else pl.lit(None, pl.String)
        )
        out.append(value.alias(logical))
    return out
