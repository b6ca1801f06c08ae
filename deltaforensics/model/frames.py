"""Frame helpers shared by the layers above: grouping rows without copying them, and reading
a files frame's partition values under their logical names."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, overload

import polars as pl

from deltaforensics.model.schemas import PARTITION_VALUES

_T = TypeVar("_T")


class Slices(Mapping[Any, pl.DataFrame]):
    """Rows per distinct key of one stably sorted frame; each group is a zero-copy slice, cut
    when it is asked for (``partition_by`` and group iteration copy every group up front,
    which over 100,000 commits costs seconds when only a few groups are looked at)."""

    def __init__(self, ordered: pl.DataFrame, ranges: dict[Any, tuple[int, int]]) -> None:
        self._ordered, self._ranges = ordered, ranges

    def __getitem__(self, key: Any) -> pl.DataFrame:
        start, length = self._ranges[key]
        return self._ordered.slice(start, length)

    @overload
    def get(self, key: Any, /) -> pl.DataFrame | None: ...
    @overload
    def get(self, key: Any, default: pl.DataFrame, /) -> pl.DataFrame: ...
    @overload
    def get(self, key: Any, default: _T, /) -> pl.DataFrame | _T: ...

    def get(self, key: Any, default: Any = None, /) -> Any:
        """Without ``Mapping.get``'s KeyError round trip (most commits have no removes)."""
        found = self._ranges.get(key)
        return default if found is None else self._ordered.slice(*found)

    def without(self, *columns: str) -> Slices:
        """The same groups without ``columns`` (dropped once from the whole frame, not from
        each group as it is cut)."""
        return Slices(self._ordered.drop(*columns), self._ranges)

    def deferred(self, key: Any, default: pl.DataFrame) -> Deferred | pl.DataFrame:
        """``key``'s rows as a :class:`Deferred`, not cut yet; ``default`` when it has none."""
        return default if key not in self._ranges else Deferred(self, key)

    def height_of(self, key: Any) -> int:
        found = self._ranges.get(key)
        return 0 if found is None else found[1]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)


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


def slices_by(frame: pl.DataFrame, *keys: str) -> Slices:
    """Rows per distinct key, in their original order within each group. One key gives plain
    keys; several give tuples."""
    if frame.is_empty():
        return Slices(frame, {})
    ordered = frame.sort(list(keys), maintain_order=True)
    heads = (
        ordered.select(*keys)
        .with_row_index("_at")
        .filter(pl.struct(list(keys)).is_first_distinct())
    )
    starts = heads["_at"].to_list()
    ends = [*starts[1:], ordered.height]
    ranges = {
        (row[0] if len(keys) == 1 else row): (start, end - start)
        for row, start, end in zip(heads.drop("_at").rows(), starts, ends, strict=True)
    }
    return Slices(ordered, ranges)


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
