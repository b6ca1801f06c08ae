"""Where each file's rows would sit under another partition layout (the footprint of
``PartitionBy``).

A file of the current layout holds rows whose values of a new partition column lie between the
file's ``minValues`` and ``maxValues``; under the new layout those rows would be one file per
value. So a file becomes one row per value it spans (the cross product over the new columns),
with a synthetic ``partition_values`` struct and a synthetic path ``<path>#<col>=<value>/…`` so
that path-based checks (delete-read, delete-delete) compare new-layout files, not old ones.

What "spans" means, per column type: every day between min and max for dates and every integer
for integers (up to :data:`MAX_ENUMERATED`); otherwise the values observed as a minimum or
maximum anywhere in the table that lie in the file's range — values that only ever occur inside
a file are not seen, which is the estimate's main blind spot for string columns. A file spanning
more than :data:`MAX_SPAN` values, or without statistics for the column, has an *unknown*
footprint (``whatif_unknown``); a current partition column keeps its exact value.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

import polars as pl

from deltaforensics.model.frames import slices_by
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.to_polars import kind_of_type
from deltaforensics.replay import Replay
from deltaforensics.whatif.statistics import (
    RANGE_COLUMNS,
    StatRanges,
    add_stats,
    stat_ranges,
    with_stats,
)

UNKNOWN = "whatif_unknown"
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
MAX_ENUMERATED = 1000  # dates/integers enumerated between min and max up to this many values
MAX_SPAN = 512  # a file spanning more values than this has an unknown footprint
_STRING_PREFIX_LENGTH = 32  # Delta truncates string statistics; such a maximum bounds nothing
_INT_KINDS = frozenset({"int8", "int16", "int32", "int64"})


@dataclass(frozen=True, slots=True)
class Layout:
    """The new partition columns and how to find each one's values in the current files."""

    columns: tuple[str, ...]  # logical names, as the user spelled the table's columns
    kinds: dict[str, str]  # logical -> comparison kind (``to_polars`` kinds); "str" if unknown
    stats_keys: dict[str, str]  # logical -> key in the stats JSON (physical name)
    # logical -> field of the current partition struct, for columns the table is partitioned by
    existing: dict[str, str]
    universe: dict[str, tuple[str, ...]]  # observed min/max values per stats column, sorted

    @classmethod
    def for_table(
        cls,
        columns: Sequence[str],
        replay: Replay,
        ranges: dict[str, pl.DataFrame] | None = None,
    ) -> Layout:
        """``ranges``: :func:`stat_ranges` of the history's files per new column, when the
        caller has them (the universe is read from them instead of the JSON again); columns
        missing from a given ``ranges`` get no universe."""
        md = replay.metadata_at(replay.end_version)
        by_key = {c.lower(): c for c in md.column_types}
        logical = tuple(by_key.get(c.lower(), c) for c in columns)
        part = {c.lower(): md.physical_name(c) for c in md.partition_columns}
        kinds = {c: kind_of_type(md.column_types.get(c)) or "str" for c in logical}
        keys = {c: md.physical_name(c) for c in logical}
        existing = {c: part[c.lower()] for c in logical if c.lower() in part}
        files = replay.frames.files
        universe = {
            c: _observed(
                ranges[c] if ranges is not None else stat_ranges(files, keys[c], kinds[c]), kinds[c]
            )
            for c in logical
            if c not in existing and (ranges is None or c in ranges)
        }
        return cls(logical, kinds, keys, existing, universe)

    def new_column_kinds(self) -> dict[str, str]:
        """Stats key -> comparison kind of the columns the table is not partitioned by."""
        return {self.stats_keys[c]: self.kinds[c] for c in self.columns if c not in self.existing}

    @property
    def unknown_columns(self) -> tuple[str, ...]:
        """New columns no file has statistics for."""
        return tuple(c for c, seen in self.universe.items() if not seen)


def _observed(ranges: pl.DataFrame, kind: str) -> tuple[str, ...]:
    """The distinct minima and maxima of one column anywhere in the history, in
    :func:`_sort_key` order. Sorted by polars, not by a Python key per value (an id column has
    a million of them): numbers by value where the text is plain decimal (there Python and
    polars read the same number), the rest by the Python key; ties keep their order as
    Python's stable sort does."""
    distinct = pl.concat([ranges["_lo"], ranges["_hi"]]).drop_nulls().unique(maintain_order=True)
    if kind not in _INT_KINDS and kind != "float":
        return tuple(distinct.to_frame("v").sort("v", maintain_order=True)["v"].to_list())
    frame = distinct.to_frame("v").with_columns(
        pl.col("v").str.contains(_NUMERIC_TEXT).alias("plain")
    )
    other = frame.filter(~pl.col("plain"))["v"].to_list()
    keyed = pl.DataFrame(
        [(v, *_sort_key(v, kind)) for v in other],
        schema={"v": pl.String, "group": pl.Int64, "number": pl.Float64, "text": pl.String},
        orient="row",
    )
    plain = frame.filter(pl.col("plain")).select(
        "v",
        pl.lit(0, pl.Int64).alias("group"),
        pl.col("v").cast(pl.Float64).alias("number"),
        pl.lit("").alias("text"),
    )
    ordered = pl.concat([plain, keyed]).sort(["group", "number", "text"], maintain_order=True)
    return tuple(ordered["v"].to_list())


def _sort_key(value: str, kind: str) -> tuple[int, float, str]:
    if kind in _INT_KINDS or kind == "float":
        try:
            return (0, float(value), "")
        except ValueError:
            return (1, 0.0, value)
    return (0, 0.0, value)


def _span(
    lo: str,
    hi: str,
    kind: str,
    universe: tuple[str, ...],
    keys: Sequence[tuple[int, float, str]] | None = None,
    limit: int | None = None,
) -> list[str] | None:
    """Values of one column a file with this min/max may hold; None when too many.

    ``keys`` are the universe's sort keys (the universe is sorted by them), so the observed
    values within ``lo .. hi`` are one slice found by bisection instead of a scan per file; a
    slice longer than ``limit`` is "too many" without being copied.
    """
    try:
        if kind == "date":
            first, last = date.fromisoformat(lo[:10]), date.fromisoformat(hi[:10])
            days = (last - first).days + 1
            if 0 < days <= MAX_ENUMERATED:
                return [(first + timedelta(days=i)).isoformat() for i in range(days)]
        elif kind in _INT_KINDS:
            a, b = int(lo), int(hi)
            if 0 < b - a + 1 <= MAX_ENUMERATED:
                return [str(i) for i in range(a, b + 1)]
        elif kind == "bool":
            return [v for v in ("false", "true") if lo.lower() <= v <= hi.lower()]
    except ValueError:
        pass
    low, high = _sort_key(lo, kind), _sort_key(hi, kind)
    open_top = kind == "str" and len(hi) >= _STRING_PREFIX_LENGTH
    if keys is not None:
        start = bisect_left(keys, low)
        stop = len(keys) if open_top else bisect_right(keys, high)
        if limit is not None and stop - start > limit:
            return None
        return list(universe[start:stop]) or [lo]
    found = [
        u
        for u in universe
        if low <= _sort_key(u, kind) and (open_top or _sort_key(u, kind) <= high)
    ]
    return found or [lo]


_NUMERIC_TEXT = r"^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$"


def beyond_span(
    ranges: pl.DataFrame, kind: str, keys: Sequence[tuple[int, float, str]]
) -> list[bool]:
    """Per row of ``ranges`` (min/max text of a numeric column): whether :func:`_span` would
    find more than :data:`MAX_SPAN` observed values in it (an unknown footprint), decided for
    all rows at once — a high-cardinality column (ids, amounts) has a distinct range per file,
    and one Python call per file would dominate. ``False`` means "ask :func:`_span`"; only
    plain decimal texts, on which Python and polars parse the same number, are decided here.
    """
    if (kind not in _INT_KINDS and kind != "float") or not keys or any(k[0] for k in keys):
        return [False] * ranges.height
    universe = pl.Series("u", [k[1] for k in keys], dtype=pl.Float64)
    plain = pl.col("_lo").str.contains(_NUMERIC_TEXT) & pl.col("_hi").str.contains(_NUMERIC_TEXT)
    lo, hi = pl.col("_lo").cast(pl.Float64), pl.col("_hi").cast(pl.Float64)
    width = pl.col("_hi").cast(pl.Int64, strict=False) - pl.col("_lo").cast(pl.Int64, strict=False)
    enumerated = (width >= 0) & (width < MAX_ENUMERATED) if kind in _INT_KINDS else pl.lit(False)
    frame = ranges.select(
        (plain & ~pl.col("_all_null")).fill_null(False).alias("plain"),
        enumerated.fill_null(False).alias("enumerated"),
        pl.when(plain).then(lo).alias("lo"),
        pl.when(plain).then(hi).alias("hi"),
    )
    first = universe.search_sorted(frame["lo"].fill_null(0.0), side="left").cast(pl.Int64)
    stop = universe.search_sorted(frame["hi"].fill_null(0.0), side="right").cast(pl.Int64)
    wide = frame["plain"] & ~frame["enumerated"] & ((stop - first) > MAX_SPAN)
    return wide.to_list()


class Relabeler:
    """Re-labels file frames for one :class:`Layout`; pure, caches the per-range spans."""

    def __init__(
        self,
        layout: Layout,
        replay: Replay,
        *,
        prepared: tuple[pl.DataFrame, dict[str, pl.DataFrame]] | None = None,
    ) -> None:
        """``prepared``: the history's files with statistics and their :func:`stat_ranges`
        per new column, as :meth:`for_table` computed them for the universe."""
        self.layout, self.replay = layout, replay
        self._spans: dict[
            tuple[str, str | None, str | None, bool, bool], list[str | None] | None
        ] = {}
        self._keys: dict[str, list[tuple[int, float, str]]] = {}
        self._stats = add_stats(replay)
        # the whole history, re-labelled once
        self.files = self._relabel(*prepared) if prepared else self.frame(replay.frames.files)
        committed = self.files.filter(pl.col("source") == "commit")
        self._by_commit = slices_by(committed, "version", "action")
        originals = replay.frames.files.filter(pl.col("source") == "commit")
        self._counts = {
            (v, a): n for v, a, n in originals.group_by(["version", "action"]).len().iter_rows()
        }

    @classmethod
    def for_table(
        cls, columns: Sequence[str], replay: Replay, statistics: StatRanges | None = None
    ) -> Relabeler:
        """The layout of ``columns`` and its relabeler; each new column's statistics are read
        from the history's JSON once (per ``statistics``, shared by the estimates of a table),
        for the universe and the re-labelling alike."""
        statistics = statistics or StatRanges(replay)
        names = Layout.for_table(columns, replay, ranges={})
        kinds = names.new_column_kinds()
        statistics.prefetch(kinds)
        ranges = {
            c: statistics.get(names.stats_keys[c], names.kinds[c])
            for c in names.columns
            if c not in names.existing
        }
        layout = Layout.for_table(columns, replay, ranges=ranges)
        return cls(layout, replay, prepared=(statistics.files, ranges))

    def actions(self, files: pl.DataFrame, version: int | None, action: str) -> pl.DataFrame:
        """``files`` (a commit's adds or removes) re-labelled; a commit of this history is
        looked up in the re-labelled history instead of being re-labelled again."""
        key = (version, action)
        if version is not None and self._counts.get(key, 0) == files.height:
            found = self._by_commit.get(key)
            return found if found is not None else self.files.clear()
        return self.frame(files)

    def frame(self, files: pl.DataFrame) -> pl.DataFrame:
        """One row per (file, new partition); ``whatif_unknown`` marks unknown footprints."""
        return self._relabel(with_stats(files, self._stats), {})

    def _relabel(self, files: pl.DataFrame, ranges: dict[str, pl.DataFrame]) -> pl.DataFrame:
        lay = self.layout
        assert lay.columns, "an unpartitioned layout needs no re-labelling"
        out = files.with_columns(pl.col("path").alias("_original"), pl.lit(False).alias(UNKNOWN))
        struct_fields: list[pl.Expr] = []
        aligned = True  # rows still those of ``files``, in order (a join may reorder them)
        for i, col in enumerate(lay.columns):
            name = f"_whatif_v{i}"
            out = self._column(out, col, name, ranges.get(col) if aligned else None)
            aligned = aligned and col in lay.existing
            struct_fields.append(pl.col(name).alias(col))
        suffix = pl.concat_str(
            [
                pl.concat_str([pl.lit(f"{col}="), pl.col(f"_whatif_v{i}").fill_null(HIVE_NULL)])
                for i, col in enumerate(lay.columns)
            ],
            separator="/",
        )
        return out.with_columns(
            pl.struct(struct_fields).alias(PARTITION_VALUES),
            pl.concat_str([pl.col("_original"), pl.lit("#"), suffix]).alias("path"),
        ).drop([f"_whatif_v{i}" for i in range(len(lay.columns))] + ["_original"])

    def _column(
        self, files: pl.DataFrame, col: str, name: str, ranges: pl.DataFrame | None
    ) -> pl.DataFrame:
        """``ranges``: :func:`stat_ranges` of ``files`` for ``col`` if already computed, row
        for row (the caller passes them only while no new column has joined and exploded)."""
        lay = self.layout
        if col in lay.existing:
            field = lay.existing[col]
            pv = files.schema.get(PARTITION_VALUES)
            names = {f.name for f in pv.fields} if isinstance(pv, pl.Struct) else set()
            value = (
                pl.col(PARTITION_VALUES).struct.field(field)
                if field in names
                else pl.lit(None, pl.String)
            )
            return files.with_columns(value.alias(name))
        key, kind = lay.stats_keys[col], lay.kinds[col]
        if ranges is None:
            ranges = stat_ranges(files, key, kind)
        probe = files.hstack(ranges)
        table = ranges.unique()
        if col not in self._keys:
            self._keys[col] = [_sort_key(u, kind) for u in lay.universe.get(col, ())]
        wide = beyond_span(table, kind, self._keys[col])
        spans = [
            None if too_wide else self._span_of(col, kind, lo, hi, has_null, all_null)
            for (lo, hi, has_null, all_null), too_wide in zip(table.iter_rows(), wide, strict=True)
        ]
        table = table.with_columns(pl.Series(name, spans, dtype=pl.List(pl.String)))
        joined = probe.join(table, on=RANGE_COLUMNS, how="left", nulls_equal=True)
        return (
            joined.with_columns((pl.col(UNKNOWN) | pl.col(name).is_null()).alias(UNKNOWN))
            .explode(name)
            .drop(RANGE_COLUMNS)
        )

    def _span_of(
        self, col: str, kind: str, lo: str | None, hi: str | None, has_null: bool, all_null: bool
    ) -> list[str | None] | None:
        key = (col, lo, hi, has_null, all_null)
        if key not in self._spans:
            if all_null:
                found: list[str | None] | None = [None]
            elif lo is None or hi is None:
                found = None
            else:
                universe = self.layout.universe.get(col, ())
                if col not in self._keys:
                    self._keys[col] = [_sort_key(u, kind) for u in universe]
                values = _span(lo, hi, kind, universe, self._keys[col], MAX_SPAN)
                found = None if values is None or len(values) > MAX_SPAN else list(values)
                if found is not None and has_null:
                    found.append(None)
            self._spans[key] = found
        return self._spans[key]

    def history(self) -> Replay:
        """The replay with every file re-labelled: ``live_files(v)`` in the new layout."""
        frames = replace(
            self.replay.frames, files=self.files, partition_columns=self.layout.columns
        )
        return Replay(self.replay.uri, frames)


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutStats:
    partitions: int  # distinct new partitions of the live files at the latest version
    files_before: int
    files_after: int  # one per (file, partition) it spans
    bytes: int
    unknown_files: int


def layout_stats(history: Replay) -> LayoutStats:
    """What the new layout would look like at the latest version (``history`` re-labelled)."""
    live = history.live_files(history.end_version).with_columns(
        pl.col("path").str.split("#").list.first().alias("_original")
    )
    if live.is_empty():
        return LayoutStats(partitions=0, files_before=0, files_after=0, bytes=0, unknown_files=0)
    known = live.filter(~pl.col(UNKNOWN))
    per_file = live.unique(["_original", "dv_id"], keep="first")
    return LayoutStats(
        partitions=known.select(PARTITION_VALUES).n_unique() if known.height else 0,
        files_before=per_file.height,
        files_after=known.height,
        bytes=int(per_file["size"].fill_null(0).sum()),
        unknown_files=live.filter(pl.col(UNKNOWN))["_original"].n_unique(),
    )
