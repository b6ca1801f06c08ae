"""Which values of a new partition column a file spans, from its min/max statistics.

What "spans" means, per column type: every day between min and max for dates and every integer
for integers (up to :data:`MAX_ENUMERATED`); otherwise the values observed as a minimum or
maximum anywhere in the table that lie in the file's range — values that only ever occur inside
a file are not seen, which is the estimate's main blind spot for string columns. A file spanning
more than :data:`MAX_SPAN` values has an unknown footprint
(:class:`~deltaforensics.whatif.layout.Relabeler` marks it). The per-file reference
(:func:`span_values`) has vectorised shortcuts (:func:`beyond_span`, :func:`enumerated_spans`)
that a high-cardinality column needs; the tests hold them to it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import date, timedelta

import polars as pl

MAX_ENUMERATED = 1000  # dates/integers enumerated between min and max up to this many values
MAX_SPAN = 512  # a file spanning more values than this has an unknown footprint
_STRING_PREFIX_LENGTH = 32  # Delta truncates string statistics; such a maximum bounds nothing
_INT_KINDS = frozenset({"int8", "int16", "int32", "int64"})
_NUMERIC_TEXT = r"^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$"
_PLAIN_INT = r"^-?[0-9]{1,18}$"  # read alike by Python's int() and polars, within Int64
_ISO_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def observed_values(ranges: pl.DataFrame, kind: str) -> tuple[str, ...]:
    """The distinct minima and maxima of one column anywhere in the history, in
    :func:`sort_key` order. Sorted by polars, not by a Python key per value (an id column has
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
        [(v, *sort_key(v, kind)) for v in other],
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


def sort_key(value: str, kind: str) -> tuple[int, float, str]:
    if kind in _INT_KINDS or kind == "float":
        try:
            return (0, float(value), "")
        except ValueError:
            return (1, 0.0, value)
    return (0, 0.0, value)


def sort_keys(values: Sequence[str], kind: str) -> list[tuple[int, float, str]]:
    """:func:`sort_key` of every value; a universe of plain decimal numbers (an id column's
    has hundreds of thousands) is read by polars, which parses them as Python does."""
    if kind not in _INT_KINDS and kind != "float":
        return [(0, 0.0, v) for v in values]
    texts = pl.Series(values, dtype=pl.String)
    if texts.str.contains(_NUMERIC_TEXT).all():
        return [(0, number, "") for number in texts.cast(pl.Float64).to_list()]
    return [sort_key(v, kind) for v in values]


def span_values(
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
    low, high = sort_key(lo, kind), sort_key(hi, kind)
    open_top = kind == "str" and len(hi) >= _STRING_PREFIX_LENGTH
    if keys is not None:
        start = bisect_left(keys, low)
        stop = len(keys) if open_top else bisect_right(keys, high)
        if limit is not None and stop - start > limit:
            return None
        return list(universe[start:stop]) or [lo]
    found = [
        u for u in universe if low <= sort_key(u, kind) and (open_top or sort_key(u, kind) <= high)
    ]
    return found or [lo]


def numeric_universe(kind: str, keys: Sequence[tuple[int, float, str]]) -> pl.Series | None:
    """The universe's numbers for :func:`beyond_span`, built once per column; None when the
    column is not numeric or some observed value is not a plain number."""
    if (kind not in _INT_KINDS and kind != "float") or not keys or any(k[0] for k in keys):
        return None
    return pl.Series("u", [k[1] for k in keys], dtype=pl.Float64)


def beyond_span(ranges: pl.DataFrame, kind: str, universe: pl.Series | None) -> list[bool]:
    """Per row of ``ranges`` (min/max text of a numeric column): whether :func:`span_values` would
    find more than :data:`MAX_SPAN` observed values in it (an unknown footprint), decided for
    all rows at once — a high-cardinality column (ids, amounts) has a distinct range per file,
    and one Python call per file would dominate. ``universe``: :func:`numeric_universe`.
    ``False`` means "ask :func:`span_values`"; only plain decimal texts, on which Python and polars
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
