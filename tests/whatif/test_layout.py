"""The layout's shortcuts agree with the exact reads they replace: the vectorised "too many
values" decision with the per-file span, one statistics decode with four path reads."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deltaforensics.analysis import load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.predicates.casts import kind_of_type
from deltaforensics.whatif.layout import UNKNOWN, Layout, Relabeler
from deltaforensics.whatif.spans import (
    MAX_SPAN,
    beyond_span,
    certain_values,
    enumerated_spans,
    numeric_universe,
    observed_values,
    sort_key,
    sort_keys,
    span_values,
)
from deltaforensics.whatif.statistics import StatRanges, stat_ranges, with_stats
from tests.conftest import SAMPLE_LOGS, corpus_tables

_ANY_REPLAY = load(open_store(str(SAMPLE_LOGS / "optimize_vs_delete")), mode="history").replay

_NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(0, 10**20).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.sampled_from(["007", "1e3", "5.0", "-0", " 5", "5_000", "abc", "", "1E+2", "inf"]),
)


def _range_rows(
    low: st.SearchStrategy[str], high: st.SearchStrategy[str]
) -> st.SearchStrategy[list[tuple[str | None, str | None, bool, bool]]]:
    """Lists of :func:`_ranges` rows, minimum from ``low`` and maximum from ``high`` (or null)."""
    return st.lists(
        st.tuples(
            st.one_of(st.none(), low), st.one_of(st.none(), high), st.booleans(), st.booleans()
        ),
        max_size=25,
    )


def _ranges(rows: list[tuple[str | None, str | None, bool, bool]]) -> pl.DataFrame:
    """A :func:`stat_ranges` frame: (min, max, has a null, only nulls) per file."""
    return pl.DataFrame(
        rows,
        schema={
            "_lo": pl.String,
            "_hi": pl.String,
            "_has_null": pl.Boolean,
            "_all_null": pl.Boolean,
        },
        orient="row",
    )


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["int32", "int64", "float"]),
    universe=st.one_of(
        st.lists(_NUMBERS, max_size=40),
        st.integers(0, 3000).map(lambda n: [str(i * 7) for i in range(n)]),
        st.integers(0, 3000).map(lambda n: [str(i) for i in range(n)]),
    ),
    rows=st.lists(
        st.tuples(st.one_of(st.none(), _NUMBERS), st.one_of(st.none(), _NUMBERS), st.booleans()),
        max_size=30,
    ),
)
def test_beyond_span_agrees_with_span(
    kind: str, universe: list[str], rows: list[tuple[str | None, str | None, bool]]
) -> None:
    values = tuple(sorted(set(universe), key=lambda v: sort_key(v, kind)))
    keys = [sort_key(v, kind) for v in values]
    table = _ranges([(lo, hi, False, all_null) for lo, hi, all_null in rows])
    decided = beyond_span(table, kind, numeric_universe(kind, keys))
    assert len(decided) == len(rows)
    for (lo, hi, all_null), wide in zip(rows, decided, strict=True):
        if wide:  # only ever claims what span_values would say: too many values
            assert not all_null and lo is not None and hi is not None
            assert span_values(lo, hi, kind, values, keys, MAX_SPAN) is None


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["int64", "float", "str", "date"]),
    values=st.one_of(
        st.lists(_NUMBERS, max_size=30),
        st.lists(st.integers(-(10**25), 10**25).map(str), max_size=30),
    ),
)
def test_sort_keys_read_by_polars_are_pythons(kind: str, values: list[str]) -> None:
    assert sort_keys(values, kind) == [sort_key(v, kind) for v in values]


def test_beyond_span_decides_a_high_cardinality_column() -> None:
    values = tuple(str(i) for i in range(100_000))
    keys = [sort_key(v, "int64") for v in values]
    table = pl.DataFrame(
        {
            "_lo": ["10", "5000", "5"],
            "_hi": ["90000", "5600", "900"],
            "_has_null": [False] * 3,
            "_all_null": [False] * 3,
        }
    )
    # a wide range is decided; an enumerable one (<= 1,000 integers) is left to span_values
    assert beyond_span(table, "int64", numeric_universe("int64", keys)) == [True, False, False]


_INTEGERS = st.one_of(
    st.integers(-2000, 2000).map(str),
    st.integers(-(10**19), 10**19).map(str),
    st.sampled_from(["007", "-0", " 5", "5_000", "1e3", "abc", "", "9" * 19, "-" + "9" * 18]),
)


@settings(max_examples=400, deadline=None)
@example(kind="int64", rows=[("0", "511", False, False), ("0", "512", True, False)])
@example(kind="int32", rows=[("-3", "-1", True, False), ("5", "4", False, False)])
@given(
    kind=st.sampled_from(["int32", "int64", "str", "float"]),
    rows=_range_rows(_INTEGERS, st.one_of(_INTEGERS, st.integers(0, 1100).map(str))),
)
def test_enumerated_spans_are_the_spans_python_enumerates(
    kind: str, rows: list[tuple[str | None, str | None, bool, bool]]
) -> None:
    """Every row polars enumerates gets exactly the list (or the "too many" null) that
    ``_span_of`` builds; the rows it leaves alone go to ``_span_of`` anyway."""
    table = _ranges(rows)
    layout = Layout(("x",), {"x": kind}, {"x": "x"}, {}, {"x": ("0", "1", "2000")})
    relabeler = Relabeler(layout, _ANY_REPLAY)
    decided, values = enumerated_spans(table, kind)
    for (lo, hi, has_null, all_null), known, found in zip(
        rows, decided.to_list(), values.to_list(), strict=True
    ):
        if known:
            assert found == relabeler._span_of("x", kind, lo, hi, has_null, all_null)


_TABLES = [
    *corpus_tables(),
    *sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir()),
]


@pytest.mark.corpus
@pytest.mark.parametrize("table", _TABLES, ids=lambda p: p.name)
def test_one_decode_reads_the_same_ranges_as_path_matching(table: Path) -> None:
    """For every non-float column of every table: the single ``json_decode`` read of min, max
    and null counts equals the four ``json_path_match`` reads it replaces."""
    try:
        rep = load(open_store(str(table)), mode="history").replay
    except DeltaForensicsError:
        return  # the documented unreconstructable logs
    files = rep.frames.files
    md = rep.metadata_at(rep.end_version)
    checked = 0
    for column, type_name in md.column_types.items():
        kind = kind_of_type(type_name) or "str"
        if kind == "float":
            continue
        key = md.physical_name(column)
        fast = stat_ranges(files, key, kind)
        exact = stat_ranges(files, key, "float")  # the path-matching read
        assert fast.equals(exact), column
        checked += 1
    assert checked or not md.column_types


def _not_nan(text: str) -> bool:
    """NaN has no place in an order (Python's sort of it is arbitrary); no statistic is NaN
    text in a Delta log."""
    try:
        return not math.isnan(float(text))
    except ValueError:
        return True


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["int64", "float", "str", "date"]),
    values=st.lists(st.one_of(_NUMBERS, st.text(max_size=6)).filter(_not_nan), max_size=40),
)
def test_observed_orders_like_the_python_sort_key(kind: str, values: list[str]) -> None:
    """The polars-sorted universe holds the same values, in non-decreasing ``sort_key``
    order (the order bisection relies on), as Python's ``sorted`` with that key."""
    half = len(values) // 2
    ranges = pl.DataFrame(
        {"_lo": values[:half], "_hi": values[half : 2 * half]},
        schema={"_lo": pl.String, "_hi": pl.String},
    )
    got = observed_values(ranges, kind)
    expected = sorted(set(values[: 2 * half]), key=lambda v: sort_key(v, kind))
    assert sorted(got) == sorted(expected)
    keys = [sort_key(v, kind) for v in got]
    assert keys == sorted(keys)


_DAYS = st.sampled_from(["2024-01-01", "2024-01-02", "2024-02-30", "2024-01-01T00:00", "x"])


@settings(max_examples=300, deadline=None)
@example(
    kind="int32", rows=[("1", "3", False, False), ("2", "5", True, False), ("9", "9", False, False)]
)
@example(kind="int64", rows=[("0", "600", False, False), ("007", "7", False, False)])
@example(
    kind="date",
    rows=[
        ("2024-01-01T00:00", "2024-01-01T00:00", False, False),
        ("2024-01-01",) * 2 + (False,) * 2,
    ],
)
@given(
    kind=st.sampled_from(["int32", "int64", "str", "date", "timestamp", "float", "bool"]),
    rows=_range_rows(*[st.one_of(_NUMBERS, st.text(max_size=3), _DAYS, st.just("a" * 40))] * 2),
)
def test_certain_values_never_exceed_the_values_the_spans_hold(
    kind: str, rows: list[tuple[str | None, str | None, bool, bool]]
) -> None:
    """The lower bound a sample decides W601 by is at most the number of distinct non-null
    values the files' known spans hold — the partitions ``layout_stats`` counts — with the
    table's universe taken from the same files."""
    ranges = _ranges(rows)
    universe = observed_values(ranges, kind)
    keys = sort_keys(universe, kind)
    held: set[str] = set()
    for lo, hi, _, all_null in rows:
        if all_null or lo is None or hi is None:
            continue
        values = span_values(lo, hi, kind, universe, keys, MAX_SPAN)
        if values is not None and len(values) <= MAX_SPAN:
            held.update(v for v in values if v is not None)
    assert certain_values(ranges, kind) <= len(held)


def test_certain_values_count_the_union_of_narrow_integer_ranges() -> None:
    ranges = _ranges(
        [
            ("1", "3", False, False),
            ("2", "5", True, False),  # overlaps: 1..5 so far
            ("10", "10", False, False),
            ("0", str(MAX_SPAN), False, False),  # one more than MAX_SPAN values: not known
            ("20", "29", False, True),  # only nulls
            ("1e3", "1e3", False, False),  # not a plain integer
        ]
    )
    assert certain_values(ranges, "int64") == 6
    strings = _ranges([("a", "a", False, False), ("a", "a", True, False), ("b", "c", False, False)])
    assert certain_values(strings, "str") == 1
    assert certain_values(_ranges([("1.5", "1.5", False, False)]), "float") == 0


def _two_column_history(tmp_path: Path) -> str:
    """Four appends partitioned by date whose files span several countries and quantities,
    then a delete that removes some of them."""
    table = str(tmp_path / "t")
    for day in range(4):
        write_deltalake(
            table,
            pa.table(
                {
                    "date": [f"2024-01-0{day + 1}"] * 6,
                    "country": ["US", "DE", "FR", "US", "JP", "DE"][: 6 - day % 2]
                    + ["BR"] * (day % 2),
                    "qty": [day, day + 1, day + 2, 7, 8, 9],
                }
            ),
            mode="append",
            partition_by=["date"],
        )
    DeltaTable(table).delete("date = '2024-01-02'")
    return table


def test_the_relabeled_history_answers_as_the_relabeled_live_files(tmp_path: Path) -> None:
    """Looking a few pieces up (what a conflict rule does) finds exactly the pieces of the
    whole re-labelled snapshot with those paths, at every version; a path that is not a
    piece of a live file finds nothing."""
    rep = load(open_store(_two_column_history(tmp_path)), mode="history").replay
    history = Relabeler.for_table(["country", "qty"], rep).history()
    order = ["path", "dv_id"]
    for version in range(rep.end_version + 1):
        whole = history.live_files(version)
        assert whole.height > rep.live_files(version).height  # the files span several values
        some = whole["path"].gather_every(3)
        asked = pl.concat([some, pl.Series(["nowhere#country=US/qty=1", some[0] + "x"])])
        found = history.live_files_among(version, asked)
        expected = whole.filter(pl.col("path").is_in(some.implode()))
        assert found.sort(order).equals(expected.sort(order))


def test_layout_statistics_count_the_pieces_the_relabeled_snapshot_has(tmp_path: Path) -> None:
    """The counts taken from each live file's spans (without writing the pieces out) are those
    of the re-labelled snapshot's rows, for one and for two new columns."""
    rep = load(open_store(_two_column_history(tmp_path)), mode="history").replay
    for columns in (["country"], ["country", "qty"], ["date", "qty"]):
        relabeler = Relabeler.for_table(columns, rep)
        live = relabeler.history().live_files(rep.end_version)
        known = live.filter(~pl.col(UNKNOWN))
        stats = relabeler.layout_stats()
        assert stats.files_after == known.height > stats.files_before
        assert stats.partitions == known.select("partition_values").n_unique()
        assert stats.files_before == rep.live_files(rep.end_version).height
        assert stats.unknown_files == 0


def test_statistics_found_by_text_equal_a_fresh_read() -> None:
    """:meth:`StatRanges.of` (the history's statistics found again by text) gives every file
    the ranges a fresh read of its own statistics gives, on every corpus table's columns."""
    for table in [*corpus_tables(), *SAMPLE_LOGS.iterdir()]:
        try:
            rep = load(open_store(str(table)), mode="history").replay
        except DeltaForensicsError:
            continue
        md = rep.metadata_at(rep.end_version)
        statistics = StatRanges(rep)
        files = with_stats(rep.frames.files, statistics.add_stats)
        for column, dtype in md.column_types.items():
            key, kind = md.physical_name(column), kind_of_type(dtype) or "str"
            found = statistics.of(statistics.rows_of(files), key, kind)
            assert found.equals(stat_ranges(files, key, kind)), (
                table,
                column,
            )
