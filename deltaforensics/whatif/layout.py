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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property

import numpy as np
import polars as pl

from deltaforensics.model.frames import slices_by
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.to_polars import kind_of_type
from deltaforensics.replay import Replay
from deltaforensics.whatif.statistics import (
    RANGE_COLUMNS,
    StatRanges,
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
        cls, columns: Sequence[str], replay: Replay, ranges: Mapping[str, pl.DataFrame]
    ) -> Layout:
        """``ranges``: the statistics of the history per new column (:meth:`StatRanges.get`),
        from which its universe is read; a column missing from them gets none (``{}``: the
        names and kinds only, to know which statistics to read)."""
        md = replay.metadata_at(replay.end_version)
        by_key = {c.lower(): c for c in md.column_types}
        logical = tuple(by_key.get(c.lower(), c) for c in columns)
        part = {c.lower(): md.physical_name(c) for c in md.partition_columns}
        kinds = {c: kind_of_type(md.column_types.get(c)) or "str" for c in logical}
        keys = {c: md.physical_name(c) for c in logical}
        existing = {c: part[c.lower()] for c in logical if c.lower() in part}
        universe = {
            c: _observed(ranges[c], kinds[c]) for c in logical if c not in existing and c in ranges
        }
        return cls(logical, kinds, keys, existing, universe)

    @classmethod
    def statistics_needed(cls, columns: Sequence[str], replay: Replay) -> dict[str, str]:
        """Stats key -> comparison kind of the statistics a layout of ``columns`` reads."""
        return cls.for_table(columns, replay, {}).new_column_kinds()

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


def sort_keys(values: Sequence[str], kind: str) -> list[tuple[int, float, str]]:
    """:func:`_sort_key` of every value; a universe of plain decimal numbers (an id column's
    has hundreds of thousands) is read by polars, which parses them as Python does."""
    if kind not in _INT_KINDS and kind != "float":
        return [(0, 0.0, v) for v in values]
    texts = pl.Series(values, dtype=pl.String)
    if texts.str.contains(_NUMERIC_TEXT).all():
        return [(0, number, "") for number in texts.cast(pl.Float64).to_list()]
    return [_sort_key(v, kind) for v in values]


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


def numeric_universe(kind: str, keys: Sequence[tuple[int, float, str]]) -> pl.Series | None:
    """The universe's numbers for :func:`beyond_span`, built once per column; None when the
    column is not numeric or some observed value is not a plain number."""
    if (kind not in _INT_KINDS and kind != "float") or not keys or any(k[0] for k in keys):
        return None
    return pl.Series("u", [k[1] for k in keys], dtype=pl.Float64)


def beyond_span(ranges: pl.DataFrame, kind: str, universe: pl.Series | None) -> list[bool]:
    """Per row of ``ranges`` (min/max text of a numeric column): whether :func:`_span` would
    find more than :data:`MAX_SPAN` observed values in it (an unknown footprint), decided for
    all rows at once — a high-cardinality column (ids, amounts) has a distinct range per file,
    and one Python call per file would dominate. ``universe``: :func:`numeric_universe`.
    ``False`` means "ask :func:`_span`"; only plain decimal texts, on which Python and polars
    parse the same number, are decided here.
    """
    if universe is None:
        return [False] * ranges.height
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


_PLAIN_INT = r"^-?[0-9]{1,18}$"  # read alike by Python's int() and polars, within Int64
_ISO_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def certain_values(ranges: pl.DataFrame, kind: str) -> int:
    """A lower bound on how many distinct values of one new partition column the files of
    ``ranges`` (:func:`stat_ranges`) span, from the files whose span is known without the
    table's universe of observed values: a plain integer range of at most :data:`MAX_SPAN`
    values spans every integer in it (:func:`enumerated_spans`), and a single-valued file
    (minimum = maximum) of another type spans that one value — a date written as
    ``YYYY-MM-DD``, anything else shorter than a truncated string statistic. Floats (one
    number, several texts) and booleans count nothing; nor do the other files, whose spans
    only add values."""
    if kind in ("float", "bool") or ranges.is_empty():
        return 0
    usable = ~pl.col("_all_null") & pl.col("_lo").is_not_null() & pl.col("_hi").is_not_null()
    if kind in _INT_KINDS:
        plain = pl.col("_lo").str.contains(_PLAIN_INT) & pl.col("_hi").str.contains(_PLAIN_INT)
        spans = (
            ranges.filter(usable & plain)
            .select(
                pl.col("_lo").cast(pl.Int64).alias("lo"), pl.col("_hi").cast(pl.Int64).alias("hi")
            )
            .filter((pl.col("hi") >= pl.col("lo")) & (pl.col("hi") - pl.col("lo") < MAX_SPAN))
            .sort("lo", "hi")
        )
        # the union of the integer ranges: each range counts what lies beyond all before it
        reach = pl.col("hi").cum_max().shift(1)
        start = pl.max_horizontal(pl.col("lo"), reach + 1)
        fresh = (pl.col("hi") - start + 1).clip(lower_bound=0)
        return int(spans.select(fresh.sum()).item() or 0)
    single = usable & (pl.col("_lo") == pl.col("_hi"))
    if kind == "date":
        single = single & pl.col("_lo").str.contains(_ISO_DATE)
    else:
        single = single & (pl.col("_lo").str.len_chars() < _STRING_PREFIX_LENGTH)
    return ranges.filter(single)["_lo"].n_unique()


def enumerated_spans(ranges: pl.DataFrame, kind: str) -> tuple[pl.Series, pl.Series]:
    """Per row of ``ranges`` of an integer column: whether :meth:`Relabeler._span_of` would
    enumerate the integers between min and max, and that list (the values as text, a null
    appended when the file holds nulls; null when more than :data:`MAX_SPAN`), built by
    polars — an id column has thousands of narrow ranges, and a Python list of texts each
    showed in profiles. Rows not decided here (``False``) are left to ``_span_of``."""
    if kind not in _INT_KINDS:
        return pl.Series([False] * ranges.height, dtype=pl.Boolean), pl.Series(
            [None] * ranges.height, dtype=pl.List(pl.String)
        )
    lo = pl.col("_lo").cast(pl.Int64, strict=False)
    hi = pl.col("_hi").cast(pl.Int64, strict=False)
    count = hi - lo + 1
    plain = pl.col("_lo").str.contains(_PLAIN_INT) & pl.col("_hi").str.contains(_PLAIN_INT)
    decided = (plain & ~pl.col("_all_null") & (count > 0) & (count <= MAX_ENUMERATED)).fill_null(
        False
    )
    short = decided & (count <= MAX_SPAN)
    # every row's range is built, so the others get an empty one, not billions of integers
    values = pl.int_ranges(lo, pl.when(short).then(hi + 1).otherwise(lo)).cast(pl.List(pl.String))
    with_null = pl.when(pl.col("_has_null")).then(
        values.list.concat(pl.lit([None], pl.List(pl.String)))
    )
    listed = pl.when(short).then(with_null.otherwise(values))
    found = ranges.select(decided.alias("decided"), listed.alias("values"))
    return found["decided"], found["values"]


class Relabeler:
    """Re-labels file frames for one :class:`Layout`; pure, caches the per-range spans."""

    def __init__(
        self, layout: Layout, replay: Replay, statistics: StatRanges | None = None
    ) -> None:
        """``statistics``: the history's column statistics, shared by the estimates of a table."""
        self.layout, self.replay = layout, replay
        self.statistics = statistics or StatRanges(replay)
        self._spans: dict[
            tuple[str, str | None, str | None, bool, bool], list[str | None] | None
        ] = {}
        self._keys: dict[str, list[tuple[int, float, str]]] = {}
        self._numbers: dict[str, pl.Series | None] = {}

    @classmethod
    def for_table(
        cls, columns: Sequence[str], replay: Replay, statistics: StatRanges | None = None
    ) -> Relabeler:
        """The layout of ``columns`` and its relabeler; each new column's statistics are read
        from the history's JSON once (per ``statistics``, shared by the estimates of a table)
        for the universe."""
        statistics = statistics or StatRanges(replay)
        names = Layout.for_table(columns, replay, {})
        statistics.prefetch(names.new_column_kinds())
        ranges = {
            c: statistics.get(names.stats_keys[c], names.kinds[c])
            for c in names.columns
            if c not in names.existing
        }
        return cls(Layout.for_table(columns, replay, ranges), replay, statistics)

    def frame(self, files: pl.DataFrame) -> pl.DataFrame:
        """One row per (file, new partition); ``whatif_unknown`` marks unknown footprints."""
        return self._relabel(self.spans(with_stats(files, self.statistics.add_stats)))

    def frames(self, frames: Sequence[pl.DataFrame]) -> list[pl.DataFrame]:
        """:meth:`frame` of each of ``frames``, re-labelled together: a what-if rewrites
        thousands of commits of a few files each, and one pass over all of them costs about
        what one pass over one costs. Frames not shaped as the history's files (an attempted
        statement's) are re-labelled on their own."""
        files = self.replay.frames.files
        names, dtypes = files.columns, files.dtypes

        def shaped(f: pl.DataFrame) -> bool:  # the schema, compared without building one
            return f.columns == names and f.dtypes == dtypes

        alike = [shaped(f) for f in frames]
        together = [i for i, f in enumerate(frames) if f.height and alike[i]]
        batched = set(together)
        out = [
            f if i in batched else self._empty if f.is_empty() and alike[i] else self.frame(f)
            for i, f in enumerate(frames)
        ]
        if together:
            heights = [frames[i].height for i in together]
            joined = pl.concat([frames[i] for i in together]).with_columns(
                pl.Series("_frame", np.repeat(np.array(together, dtype=np.int64), heights))
            )
            pieces = slices_by(self.frame(joined), "_frame").without("_frame")
            for i in together:
                out[i] = pieces.get(i, self._empty)
        return out

    @cached_property
    def _empty(self) -> pl.DataFrame:
        return self.frame(self.replay.frames.files.clear())

    def spans(
        self, files: pl.DataFrame, ranges: dict[str, pl.DataFrame] | None = None
    ) -> pl.DataFrame:
        """``files`` (carrying their statistics) with, per layout column ``i``, a column
        ``_whatif_v{i}``: the file's value of a current partition column, else the list of
        values it spans (null: unknown, which ``whatif_unknown`` also says).

        ``ranges``: :func:`stat_ranges` of ``files`` per new column, when the caller has them
        row for row; the others are read from the statistics texts.
        """
        lay = self.layout
        assert lay.columns, "an unpartitioned layout needs no re-labelling"
        out = files.with_columns(pl.lit(False).alias(UNKNOWN))
        for i, col in enumerate(lay.columns):
            out = self._column(out, col, f"_whatif_v{i}", (ranges or {}).get(col))
        return out

    def _relabel(self, spanned: pl.DataFrame) -> pl.DataFrame:
        """One row per value combination of :meth:`spans`' lists, with the synthetic partition
        values and path."""
        lay = self.layout
        names = [f"_whatif_v{i}" for i in range(len(lay.columns))]
        for col, name in zip(lay.columns, names, strict=True):
            if col not in lay.existing:
                spanned = spanned.explode(name)
        suffix = pl.concat_str(
            [
                pl.concat_str([pl.lit(f"{col}="), pl.col(name).fill_null(HIVE_NULL)])
                for col, name in zip(lay.columns, names, strict=True)
            ],
            separator="/",
        )
        return spanned.with_columns(
            pl.struct([pl.col(n).alias(c) for c, n in zip(lay.columns, names, strict=True)]).alias(
                PARTITION_VALUES
            ),
            pl.concat_str([pl.col("path"), pl.lit("#"), suffix]).alias("path"),
        ).drop(names)

    def _column(
        self, files: pl.DataFrame, col: str, name: str, ranges: pl.DataFrame | None
    ) -> pl.DataFrame:
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
        if col not in self._numbers:
            self._numbers[col] = numeric_universe(kind, self._sort_keys(col, kind))
        wide = beyond_span(table, kind, self._numbers[col])
        decided, enumerated = enumerated_spans(table, kind)
        spans = [
            None if too_wide or known else self._span_of(col, kind, lo, hi, has_null, all_null)
            for (lo, hi, has_null, all_null), too_wide, known in zip(
                table.iter_rows(), wide, decided.to_list(), strict=True
            )
        ]
        table = table.with_columns(
            pl.when(decided)
            .then(enumerated)
            .otherwise(pl.Series(spans, dtype=pl.List(pl.String)))
            .alias(name)
        )
        joined = probe.join(
            table, on=RANGE_COLUMNS, how="left", nulls_equal=True, maintain_order="left"
        )
        return joined.with_columns((pl.col(UNKNOWN) | pl.col(name).is_null()).alias(UNKNOWN)).drop(
            RANGE_COLUMNS
        )

    def _sort_keys(self, col: str, kind: str) -> list[tuple[int, float, str]]:
        if col not in self._keys:
            self._keys[col] = sort_keys(self.layout.universe.get(col, ()), kind)
        return self._keys[col]

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
                values = _span(lo, hi, kind, universe, self._sort_keys(col, kind), MAX_SPAN)
                found = None if values is None or len(values) > MAX_SPAN else list(values)
                if found is not None and has_null:
                    found.append(None)
            self._spans[key] = found
        return self._spans[key]

    def history(self) -> RelabeledHistory:
        """The history in the new layout: ``live_files(v)`` re-labelled."""
        return RelabeledHistory(self.replay, self)

    def layout_stats(self) -> LayoutStats:
        """What the new layout would look like at the latest version, counted from each live
        file's spans without writing out its pieces (a file spanning many values would
        otherwise be that many rows). Counted once per relabeler: a recommendation asks before
        comparing, and the comparison's assessment asks again."""
        return self._layout_stats

    @cached_property
    def _layout_stats(self) -> LayoutStats:
        live, rows = self.statistics.live_at_end
        if live.is_empty():
            return LayoutStats(
                partitions=0, files_before=0, files_after=0, bytes=0, unknown_files=0
            )
        lay = self.layout
        ranges = {
            c: self.statistics.of(rows, lay.stats_keys[c], lay.kinds[c])
            for c in lay.columns
            if c not in lay.existing
        }
        spanned = self.spans(live, ranges)
        lists = [f"_whatif_v{i}" for i, c in enumerate(lay.columns) if c not in lay.existing]
        known = spanned.filter(~pl.col(UNKNOWN))
        pieces = pl.lit(1, pl.Int64)
        for name in lists:  # an empty list still makes one (null) piece, as explode does
            pieces = pieces * pl.col(name).list.len().cast(pl.Int64).clip(lower_bound=1)
        combinations = known.select(f"_whatif_v{i}" for i in range(len(lay.columns))).unique()
        for name in lists:
            combinations = combinations.explode(name)
        return LayoutStats(
            partitions=combinations.unique().height if known.height else 0,
            files_before=live.height,
            files_after=int(known.select(pieces.sum()).item() or 0) if known.height else 0,
            bytes=int(live["size"].fill_null(0).sum()),
            unknown_files=spanned.filter(pl.col(UNKNOWN))["path"].n_unique(),
        )


@dataclass(frozen=True, slots=True)
class RelabeledHistory:
    """The history in a new layout, for the conflict rules (a
    :class:`~deltaforensics.conflicts.rule.FileHistory`).

    A check asks about a winner's few files, so only those are looked up in the real history
    and re-labelled; the whole history is never re-labelled (a column with many values would
    multiply its rows). A file's pieces are those of the add live at the version asked about.
    """

    original: Replay
    relabeler: Relabeler

    @property
    def end_version(self) -> int:
        return self.original.end_version

    def retains(self, version: int) -> bool:
        return self.original.retains(version)

    def live_files(self, version: int) -> pl.DataFrame:
        return self.relabeler.frame(self.original.live_files(version))

    def live_files_among(self, version: int, paths: pl.Series) -> pl.DataFrame:
        """The pieces among ``paths`` (synthetic ``<path>#<partition>``) live at ``version``.

        The original path is a prefix ending before some ``#``: every such prefix is looked up
        (usually one), and only pieces whose synthetic path is asked for are kept."""
        wanted = paths.drop_nulls().unique()
        prefixes = sorted({p[:i] for p in wanted.to_list() for i, ch in enumerate(p) if ch == "#"})
        originals = pl.Series("path", prefixes, dtype=pl.String)
        found = self.relabeler.frame(self.original.live_files_among(version, originals))
        return found.filter(pl.col("path").is_in(wanted.implode()))


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutStats:
    partitions: int  # distinct new partitions of the live files at the latest version
    files_before: int
    files_after: int  # one per (file, partition) it spans
    bytes: int
    unknown_files: int
