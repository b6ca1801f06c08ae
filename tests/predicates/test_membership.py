"""An OR of equalities of one column is evaluated as one membership test (issue #19: a DELETE
listing 5,000 ids took half a minute): the answers are those of the equalities one by one."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltaforensics.predicates import Predicate, evaluate, parse_predicate
from deltaforensics.predicates.ir import Column, Compare, In, Literal, Not, Or
from deltaforensics.predicates.membership import Members, gather_members
from tests.predicates.test_stats import may
from tests.predicates.test_to_polars import (
    COLUMNS,
    TYPES,
    literals_st,
    polars_matches,
    rows_st,
)


def test_equalities_of_a_column_met_twice_are_gathered_and_the_rest_kept_in_order() -> None:
    x, y = Column("x"), Column("y")
    parts = (
        Compare("=", x, Literal(1)),
        Compare(">", x, Literal(3)),
        Compare("=", Literal(2), x),
        In(x, (Literal(1), Literal(4))),
        Compare("=", y, Literal(1)),
        In(y, (Literal(5),), negated=True),
    )
    gathered, rest = gather_members(parts)
    assert gathered == [Members(x, (Literal(1), Literal(2), Literal(4)))]
    assert rest == [parts[1], parts[4], parts[5]]


def _equalities(names: list[str]) -> st.SearchStrategy[Predicate]:
    col = st.sampled_from(names).map(Column)
    lits = literals_st()
    return st.one_of(
        st.builds(Compare, st.just("="), col, lits),
        st.builds(Compare, st.just("="), lits, col),
        st.builds(In, col, st.lists(lits, min_size=1, max_size=3).map(tuple)),
        st.builds(Compare, st.sampled_from(["<", "!=", "<=>"]), col, lits),
    )


def _ors(names: list[str]) -> st.SearchStrategy[Predicate]:
    ors = st.lists(_equalities(names), min_size=2, max_size=10).map(lambda ps: Or(tuple(ps)))
    return st.one_of(ors, ors.map(Not))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ors(["n", "d", "p", "f"]), st.lists(rows_st(COLUMNS), min_size=1, max_size=6))
def test_a_gathered_or_over_partition_values_agrees_with_the_naive_evaluator(
    pred: Predicate, rows: list[dict[str, str | None]]
) -> None:
    expected = [evaluate(pred, row, TYPES) is True for row in rows]
    assert polars_matches(pred, rows, TYPES) == expected, pred.to_sql()


def _file(lo: object, hi: object, nulls: int = 0, rows: int = 3) -> str:
    minimum = {} if lo is None else {"x": lo, "s": lo if isinstance(lo, str) else str(lo)}
    maximum = {} if hi is None else {"x": hi, "s": hi if isinstance(hi, str) else str(hi)}
    return json.dumps(
        {
            "numRecords": rows,
            "minValues": minimum,
            "maxValues": maximum,
            "nullCount": {"x": nulls, "s": nulls},
        }
    )


FILES = [
    ("a", _file(5, 10)),
    ("a", _file(11, 11)),
    ("a", _file(None, 7)),  # no minimum
    ("a", _file(20, None)),  # no maximum
    ("a", _file(None, None)),
    ("a", _file(1, 3, nulls=3)),  # every row NULL: matches no equality
    ("a", _file("b", "c" * 40)),  # truncated string maximum: unknown
    ("a", json.dumps({"numRecords": 2})),
    ("a", None),
]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["x", "s"]),
    st.lists(
        st.one_of(st.integers(-2, 25), st.sampled_from(["7", "b", "bb", "d", "x", None])),
        min_size=2,
        max_size=12,
    ),
)
def test_a_gathered_or_over_statistics_decides_as_the_equalities_one_by_one(
    column: str, values: list[int | str | None]
) -> None:
    terms = [Compare("=", Column(column), Literal(v)) for v in values]
    one_by_one = [may(t, FILES) for t in terms]
    expected = [any(verdicts) for verdicts in zip(*one_by_one, strict=True)]
    assert may(Or(tuple(terms)), FILES) == expected
    assert may(In(Column(column), tuple(Literal(v) for v in values)), FILES) == expected


def test_five_thousand_ids_decide_as_fifty_do() -> None:
    files = [("a", _file(5, 10)), ("a", _file(1000, 2000)), ("a", _file(6000, 7000))]
    fifty = " OR ".join(f"x = {i}" for i in range(0, 5000, 100))
    five_thousand = " OR ".join(f"x = {i}" for i in range(5000))
    assert may(parse_predicate(fifty), files) == [False, True, False]
    assert may(parse_predicate(five_thousand), files) == [True, True, False]
