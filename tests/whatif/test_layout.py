"""The layout's shortcuts agree with the exact reads they replace: the vectorised "too many
values" decision with the per-file span, one statistics decode with four path reads."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import write_deltalake
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.analysis import load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.predicates.to_polars import kind_of_type
from deltaforensics.whatif.layout import (
    MAX_SPAN,
    Layout,
    Relabeler,
    _observed,
    _sort_key,
    _span,
    beyond_span,
)
from deltaforensics.whatif.statistics import stat_ranges
from tests.conftest import SAMPLE_LOGS, corpus_tables

_NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(0, 10**20).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.sampled_from(["007", "1e3", "5.0", "-0", " 5", "5_000", "abc", "", "1E+2", "inf"]),
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
    values = tuple(sorted(set(universe), key=lambda v: _sort_key(v, kind)))
    keys = [_sort_key(v, kind) for v in values]
    table = pl.DataFrame(
        {
            "_lo": [r[0] for r in rows],
            "_hi": [r[1] for r in rows],
            "_has_null": [False] * len(rows),
            "_all_null": [r[2] for r in rows],
        },
        schema={
            "_lo": pl.String,
            "_hi": pl.String,
            "_has_null": pl.Boolean,
            "_all_null": pl.Boolean,
        },
    )
    decided = beyond_span(table, kind, keys)
    assert len(decided) == len(rows)
    for (lo, hi, all_null), wide in zip(rows, decided, strict=True):
        if wide:  # only ever claims what _span would say: too many values
            assert not all_null and lo is not None and hi is not None
            assert _span(lo, hi, kind, values, keys, MAX_SPAN) is None


def test_beyond_span_decides_a_high_cardinality_column() -> None:
    values = tuple(str(i) for i in range(100_000))
    keys = [_sort_key(v, "int64") for v in values]
    table = pl.DataFrame(
        {
            "_lo": ["10", "5000", "5"],
            "_hi": ["90000", "5600", "900"],
            "_has_null": [False] * 3,
            "_all_null": [False] * 3,
        }
    )
    # a wide range is decided; an enumerable one (<= 1,000 integers) is left to _span
    assert beyond_span(table, "int64", keys) == [True, False, False]


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
    """The polars-sorted universe holds the same values, in non-decreasing ``_sort_key``
    order (the order bisection relies on), as Python's ``sorted`` with that key."""
    half = len(values) // 2
    ranges = pl.DataFrame(
        {"_lo": values[:half], "_hi": values[half : 2 * half]},
        schema={"_lo": pl.String, "_hi": pl.String},
    )
    got = _observed(ranges, kind)
    expected = sorted(set(values[: 2 * half]), key=lambda v: _sort_key(v, kind))
    assert sorted(got) == sorted(expected)
    keys = [_sort_key(v, kind) for v in got]
    assert keys == sorted(keys)


def test_a_two_column_layout_relabels_as_without_the_shared_statistics(tmp_path: Path) -> None:
    """Relabeler.for_table reuses the statistics read for the universe only while the rows are
    still the history's; with two new columns the second is read again after the first's
    join and explode. Either way the re-labelled history equals the plain, per-frame one."""
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
    rep = load(open_store(table), mode="history").replay
    columns = ["country", "qty"]
    shared = Relabeler.for_table(columns, rep).files
    plain = Relabeler(Layout.for_table(columns, rep), rep).files
    order = ["path", "dv_id", "version", "seq"]
    assert shared.height > rep.frames.files.height  # the files did span several values
    assert shared.sort(order).equals(plain.sort(order))
