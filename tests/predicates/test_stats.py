"""may_match_stats: FALSE only when partition values or min/max statistics rule a file out."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.predicates import Predicate, evaluate, may_match_stats, parse_predicate
from tests.predicates.test_to_polars import predicates_st

TYPES = {"p": "string", "x": "integer", "s": "string", "d": "date"}


def stats(rows: list[dict[str, str | None]]) -> str:
    """Delta-style statistics for the data columns of one file's rows."""
    out: dict[str, object] = {
        "numRecords": len(rows),
        "minValues": {},
        "maxValues": {},
        "nullCount": {},
    }
    for col in ("x", "s", "d"):
        texts = [v for r in rows if (v := r.get(col)) is not None]
        values: list[int] | list[str] = [int(v) for v in texts] if col == "x" else texts
        out["nullCount"][col] = len(rows) - len(values)  # type: ignore[index]
        if values:
            out["minValues"][col] = min(values)  # type: ignore[index]
            out["maxValues"][col] = max(values)  # type: ignore[index]
    return json.dumps(out)


def may(sql_or_pred: str | Predicate, files: Sequence[tuple[str | None, str | None]]) -> list[bool]:
    pred = parse_predicate(sql_or_pred) if isinstance(sql_or_pred, str) else sql_or_pred
    frame = pl.DataFrame(
        {"partition_values": [{"p": p} for p, _ in files], "stats": [s for _, s in files]},
        schema={"partition_values": pl.Struct({"p": pl.String}), "stats": pl.String},
    )
    return frame.with_columns(m=may_match_stats(pred, ["p"], types=TYPES))["m"].to_list()


FILE = stats([{"x": "5", "s": "b", "d": "2024-01-02"}, {"x": "10", "s": "d", "d": None}])


def test_min_max_rule_files_out() -> None:
    files = [("a", FILE)]
    assert may("x = 7", files) == [True]
    assert may("x = 11", files) == [False]
    assert may("x > 10", files) == [False]
    assert may("x >= 10", files) == [True]
    assert may("x < 5 OR s > 'd'", files) == [False]
    assert may("NOT (x <= 10)", files) == [False]
    assert may("x IN (1, 2, 12)", files) == [False]
    assert may("d < '2024-01-02'", files) == [False]


def test_partition_values_are_exact_and_combine_with_stats() -> None:
    files = [("a", FILE), ("b", FILE)]
    assert may("p = 'a' AND x = 7", files) == [True, False]
    assert may("p = 'b' OR x = 7", files) == [True, True]
    assert may("p = 'b' OR x = 70", files) == [False, True]


def test_null_counts_decide_is_null() -> None:
    files = [("a", FILE)]
    assert may("x IS NULL", files) == [False]
    assert may("d IS NULL", files) == [True]
    assert may("d IS NOT NULL", files) == [True]


def test_missing_or_unparseable_stats_may_match() -> None:
    files = [("a", None), ("a", "not json"), ("a", '{"numRecords": 3}')]
    assert may("x = 11", files) == [True, True, True]


def test_unknowns_are_conservative() -> None:
    files = [("a", FILE)]
    assert may("my_udf(x) = 1", files) == [True]
    assert may("NOT (my_udf(x) = 1)", files) == [True]
    assert may("x = s", files) == [True]
    assert may("other = 11", files) == [True]  # untyped column vs text: order unknown


def test_truncated_string_maximum_is_ignored() -> None:
    long = "m" * 32
    files = [
        ("a", json.dumps({"numRecords": 1, "minValues": {"s": "a"}, "maxValues": {"s": long}}))
    ]
    assert may("s > 'zzz'", files) == [True]
    short = [("a", json.dumps({"numRecords": 1, "minValues": {"s": "a"}, "maxValues": {"s": "m"}}))]
    assert may("s > 'zzz'", short) == [False]


def test_an_all_null_column_matches_no_comparison() -> None:
    files = [("a", json.dumps({"numRecords": 2, "nullCount": {"x": 2}}))]
    assert may("x = 1 OR x != 1", files) == [False]
    assert may("x IS NULL", files) == [True]


ROW = st.fixed_dictionaries(
    {
        "p": st.sampled_from(["a", "b", "", None]),
        "x": st.sampled_from(["-3", "0", "5", "10", None]),
        "s": st.sampled_from(["a", "b", "ba", "z", None]),
        "d": st.sampled_from(["2024-01-01", "2024-01-02", "2023-12-31", None]),
    }
)


@settings(max_examples=200, deadline=None)
@given(
    predicates_st(["p", "x", "s", "d"]),
    st.lists(st.lists(ROW, min_size=1, max_size=4), min_size=1, max_size=4),
)
def test_a_file_holding_a_matching_row_always_may_match(
    pred: Predicate, files: list[list[dict[str, str | None]]]
) -> None:
    """Sound: stats pruning never rules out a file that has a row satisfying the predicate."""
    # Every row of a file shares its partition value, as in a real table.
    files = [[{**r, "p": rows[0]["p"]} for r in rows] for rows in files]
    result = may(pred, [(rows[0]["p"], stats(rows)) for rows in files])
    for rows, verdict in zip(files, result, strict=True):
        if any(evaluate(pred, r, TYPES) is True for r in rows):
            assert verdict, (pred.to_sql(), rows)
