"""Every on-disk predicate form parses to the IR we expect, and nothing makes the parser raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.predicates import (
    TRUE,
    And,
    Column,
    Compare,
    In,
    IsNull,
    Like,
    Literal,
    Not,
    Opaque,
    Or,
    Predicate,
    Unknown,
    parse_operation_predicates,
    parse_predicate,
)
from deltaforensics.predicates import parse as parse_module
from deltaforensics.predicates.ir import column_refs, walk
from tests.predicates.test_to_polars import LITERAL_VALUES

C, L = Column, Literal


def eq(col: str, value: object, qualifier: str | None = None, inferred: bool = False) -> Compare:
    return Compare("=", C(col, qualifier), L(value, inferred))  # type: ignore[arg-type]


CASES = [
    # Spark >= 2.4 simpleString, JSON array inside a string (semantics doc B.1.3, B.1.4)
    pytest.param('["(id#1234L = 5)"]', eq("id", 5), id="array-of-simplestring"),
    pytest.param("[]", TRUE, id="empty-array"),
    pytest.param("", TRUE, id="empty-string"),
    pytest.param(None, TRUE, id="none"),
    pytest.param(
        ["(id#1 = 5)", "(p#2 = b)"],
        And((eq("id", 5), eq("p", "b", inferred=True))),
        id="decoded-list",
    ),
    pytest.param(
        '["(country#12 = US)"]', eq("country", "US", inferred=True), id="bare-word-literal"
    ),
    pytest.param(
        '["(date#1 = 2024-01-01)"]', eq("date", "2024-01-01", inferred=True), id="bare-date"
    ),
    pytest.param(
        '["(ts#3 = 2024-01-01 00:00:00)"]',
        eq("ts", "2024-01-01 00:00:00", inferred=True),
        id="bare-ts",
    ),
    pytest.param(
        '["(name#40 = New York)"]', eq("name", "New York", inferred=True), id="bare-words"
    ),
    pytest.param('["(p#1 = 0L)"]', eq("p", 0), id="long-suffix"),
    pytest.param('["(\'key = a)"]', eq("key", "a", inferred=True), id="unresolved-attribute"),
    pytest.param('["isnotnull(x#1)"]', IsNull(C("x"), negated=True), id="isnotnull"),
    pytest.param('["(a#1 IN (1,2))"]', In(C("a"), (L(1), L(2))), id="in-parens"),
    pytest.param('["c#1 IN (US,FR)"]', In(C("c"), (L("US", True), L("FR", True))), id="in-words"),
    pytest.param('["NOT (p#1 = a)"]', Not(eq("p", "a", inferred=True)), id="not"),
    pytest.param('["(name#1 LIKE a%)"]', Like(C("name"), "a%"), id="like-simplestring"),
    pytest.param(
        '["(d#1 = cast(2024-01-01 as date))"]', eq("d", "2024-01-01", inferred=True), id="cast-bare"
    ),
    pytest.param(
        '["(id#480L = cast(id#482 as bigint))"]',
        Compare("=", C("id"), C("id")),
        id="join-simplestring",
    ),
    pytest.param(
        '["((id#191844 = user_id) AND (new_token#192017 = token#191847))"]',
        And((eq("id", "user_id", inferred=True), Compare("=", C("new_token"), C("token")))),
        id="dbr-14.3-merge",
    ),
    # Spark .sql form (0.x - 2.3)
    pytest.param(
        '["(spark_catalog.delta.`/p`.part = 0L)"]',
        eq("part", 0, qualifier="spark_catalog.delta.`/p`"),
        id="qualified-2.2",
    ),
    pytest.param(
        "(oldData.`id` = newData.`id`)",
        Compare("=", C("id", "oldData"), C("id", "newData")),
        id="merge-0.7",
    ),
    pytest.param("(s.id = 1L)", eq("id", 1, qualifier="s"), id="clause-2.2"),
    # delta-rs SQL (field notes 2.3)
    pytest.param(
        "country = 'FR' OR country = 'IT' OR value >= 1 AND value <= 2",
        Or(
            (
                eq("country", "FR"),
                eq("country", "IT"),
                And((Compare(">=", C("value"), L(1)), Compare("<=", C("value"), L(2)))),
            )
        ),
        id="delta-rs-or-and",
    ),
    pytest.param(
        "country != 'US' AND date = '2024-01-02'",
        And((Compare("!=", C("country"), L("US")), eq("date", "2024-01-02"))),
        id="delta-rs-neq",
    ),
    pytest.param(
        "user_id IS NULL OR country LIKE 'U%'",
        Or((IsNull(C("user_id")), Like(C("country"), "U%"))),
        id="delta-rs-isnull-like",
    ),
    pytest.param("t.date = '2024-01-01'", eq("date", "2024-01-01", qualifier="t"), id="alias"),
    pytest.param("`my col` <> 'x'", Compare("!=", C("my col"), L("x")), id="backticks"),
    pytest.param("x = CAST(0 AS BIGINT)", eq("x", 0), id="cast-literal"),
    pytest.param("x = DATE '2024-01-01'", eq("x", "2024-01-01"), id="typed-literal"),
    pytest.param(
        "x BETWEEN 1 AND 2",
        And((Compare(">=", C("x"), L(1)), Compare("<=", C("x"), L(2)))),
        id="between",
    ),
    pytest.param("x NOT IN (1)", In(C("x"), (L(1),), negated=True), id="not-in"),
    pytest.param("x IS DISTINCT FROM 1", Not(Compare("<=>", C("x"), L(1))), id="distinct-from"),
    pytest.param("x = -5", eq("x", -5), id="negative"),
    pytest.param("flag", eq("flag", True), id="boolean-column"),
    pytest.param('"id = 1"', eq("id", 1), id="json-string"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_on_disk_forms_parse_to_the_expected_ir(text: object, expected: Predicate) -> None:
    assert parse_predicate(text) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("t.date = s.date AND rand() > 0.5", "nondeterministic"),
        ("x IN (SELECT id FROM other)", "subquery"),
        ("my_udf(p) = 1", "udf"),
        ('["(a#1 IN (1,2,... 5 more fields))"]', "truncated"),
        ('["((`id` % CAST(2 AS BIGINT)) = CAST(0 AS BIGINT))"]', "expression"),
        ('["((id#697L % cast(2 as bigint)) = cast(0 as bigint))"]', "expression"),
    ],
)
def test_what_cannot_be_evaluated_is_opaque_with_a_kind(text: str, kind: str) -> None:
    opaque = [n for n in walk(parse_predicate(text)) if isinstance(n, Opaque)]
    assert [o.kind for o in opaque] == [kind]


def test_opaque_keeps_the_columns_it_references() -> None:
    (opaque,) = [n for n in walk(parse_predicate("my_udf(t.p, q) = 1")) if isinstance(n, Opaque)]
    assert opaque.refs == (C("p", "t"), C("q"))


@pytest.mark.parametrize("text", ["select 1", "((((", "'", "a = ", "x = 1; y = 2", "[1, 2]", "5"])
def test_garbage_is_unknown_not_an_exception(text: str) -> None:
    result = parse_predicate(text)
    assert any(isinstance(n, Unknown) for n in walk(result)), result


def test_only_deep_nesting_is_refused_not_many_parentheses() -> None:
    deep = parse_predicate("(" * 41 + "a = 1" + ")" * 41)
    assert isinstance(deep, Unknown) and "nested deeper" in deep.reason
    wide = parse_predicate(" AND ".join(f"(c{i} = {i})" for i in range(45)))  # 45 "(" at depth 1
    assert isinstance(wide, And) and len(wide.parts) == 45
    assert not any(isinstance(n, Unknown) for n in walk(wide))


@pytest.mark.parametrize(
    ("pred", "refs"),
    [
        (Compare("=", C("a", "t"), C("b")), (C("a", "t"), C("b"))),
        (Compare("=", Literal(1), C("b")), (C("b"),)),
        (Compare("<", C("a"), Literal("x")), (C("a"),)),
        (Compare("=", Literal(1), Literal(2)), ()),
        (
            And((Compare("=", Literal(1), C("b")), Compare("=", C("a"), C("c")))),
            (C("b"), C("a"), C("c")),
        ),
    ],
)
def test_column_refs_in_order_of_appearance(pred: Predicate, refs: tuple[Column, ...]) -> None:
    assert column_refs(pred) == refs


def test_non_string_values_are_unknown() -> None:
    assert isinstance(parse_predicate(5), Unknown)
    assert isinstance(parse_predicate({"predicate": "x"}), Unknown)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_parser_never_raises_on_arbitrary_text(text: str) -> None:
    parse_predicate(text)


SQLISH = st.text(alphabet="()'\"`#=<>!,. abcdpLN01925-%_[]\\", max_size=40)


@settings(max_examples=400, deadline=None)
@given(SQLISH)
def test_parser_never_raises_on_sql_shaped_noise(text: str) -> None:
    result = parse_predicate(text)
    assert result.to_sql() is not None
    _ = result.columns(), hash(result)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10) | SQLISH,
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["DELETE", "UPDATE", "MERGE", "WRITE", "OPTIMIZE", "TRUNCATE", "x", "", None]),
    st.dictionaries(
        st.sampled_from(
            [
                "predicate",
                "mergePredicate",
                "matchedPredicates",
                "notMatchedPredicates",
                "notMatchedBySourcePredicates",
                "mode",
                "isDynamicPartitionOverwrite",
            ]
        ),
        JSON,
    )
    | JSON,
)
def test_operation_parser_never_raises_on_any_json(operation: str | None, params: object) -> None:
    parse_operation_predicates(operation, params)
    parse_operation_predicates(operation, json.dumps(params))


# --- to_sql round trip -------------------------------------------------------------------------
NAMES = st.builds(
    str.__add__, st.sampled_from("abcdeilnstx_"), st.text("abcdeilnstx_019", max_size=5)
) | st.sampled_from(["date", "my col", "a`b", "select", "Value", "current_date", "1x"])
ROUND_COLUMNS = st.builds(C, NAMES, st.sampled_from([None, "t", "s", "spark_catalog.delta.`/p`"]))
ROUND_LITERALS = st.sampled_from(LITERAL_VALUES).map(L) | st.text(max_size=6).map(L)


def round_trip_leaves() -> st.SearchStrategy[Predicate]:
    ops = st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "<=>"])
    return st.one_of(
        st.builds(Compare, ops, ROUND_COLUMNS, ROUND_LITERALS),
        st.builds(Compare, ops, ROUND_COLUMNS, ROUND_COLUMNS),
        st.builds(
            In, ROUND_COLUMNS, st.lists(ROUND_LITERALS, max_size=3).map(tuple), st.booleans()
        ),
        st.builds(IsNull, ROUND_COLUMNS, st.booleans()),
        st.builds(Like, ROUND_COLUMNS, st.text(max_size=5), st.booleans(), st.booleans()),
    )


def _flat(parts: list[Predicate], kind: type[And] | type[Or]) -> Predicate:
    flat = tuple(q for p in parts for q in (p.parts if isinstance(p, kind) else (p,)))
    return kind(flat)


ROUND_TRIP = st.recursive(
    round_trip_leaves(),
    lambda kids: st.one_of(
        st.lists(kids, min_size=2, max_size=3).map(lambda ps: _flat(ps, And)),
        st.lists(kids, min_size=2, max_size=3).map(lambda ps: _flat(ps, Or)),
        kids.filter(lambda k: not isinstance(k, In | IsNull | Like)).map(Not),
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(ROUND_TRIP)
def test_to_sql_parses_back_to_the_same_predicate(pred: Predicate) -> None:
    assert parse_predicate(pred.to_sql()) == pred, pred.to_sql()


# --- the shared corpus -------------------------------------------------------------------------
def corpus_commit_infos(corpus: Path) -> list[tuple[str, dict[str, object]]]:
    found = []
    for path in sorted(corpus.glob("*/_delta_log/*.json")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                action = json.loads(line)
            except ValueError:
                continue
            info = action.get("commitInfo") if isinstance(action, dict) else None
            if isinstance(info, dict) and "operationParameters" in info:
                found.append((f"{path.parent.parent.name}/{path.name}", info))
    return found


@pytest.mark.corpus
def test_every_corpus_predicate_parses_without_unknown(corpus_dir: Path) -> None:
    infos = corpus_commit_infos(corpus_dir)
    assert len(infos) > 100
    seen = 0
    for where, info in infos:
        read = parse_operation_predicates(str(info.get("operation")), info["operationParameters"])
        preds = [read.predicate, *read.clause_predicates]
        seen += not all(p == TRUE for p in preds)
        for p in preds:
            assert not any(isinstance(n, Unknown) for n in walk(p)), (where, p)
            assert all(c.name and "#" not in c.name for c in column_refs(p)), (where, p)
    assert seen > 150


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            '["((birthyear#132 = 1995) AND (age#133 < 30))"]',
            And((eq("birthyear", 1995), Compare("<", C("age"), L(30)))),
        ),
        ('["(name#40 = Dennis)"]', eq("name", "Dennis", inferred=True)),
        ('["id#1065 IN (2,3,4)"]', In(C("id"), (L(2), L(3), L(4)))),
        ("p = 'b'", eq("p", "b")),
        (
            '["(spark_catalog.delta.`/tmp/table-with-dv-small`.value IN (0, 9))"]',
            In(C("value", "spark_catalog.delta.`/tmp/table-with-dv-small`"), (L(0), L(9))),
        ),
    ],
)
def test_known_corpus_predicates(corpus_dir: Path, raw: str, expected: Predicate) -> None:
    params = [info["operationParameters"] for _, info in corpus_commit_infos(corpus_dir)]
    assert any(isinstance(p, dict) and p.get("predicate") == raw for p in params), raw
    assert parse_predicate(raw) == expected


# --- the per-shape shortcut gives exactly what the general parser gives -----------------------
_NAMES = st.sampled_from(
    [
        "date",
        "country",
        "id",
        "p",
        "Year",
        "current_date",
        "true",
        "null",
        "and",
        "in",
        "not",
        "like",
        "between",
        "is",
        "interval",
        "timestamp",
        "x_1",
        "_c",
        "case",
        "end",
        "select",
    ]
)
_OPERANDS = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="'\\", codec="utf-8"), max_size=12).map(
        lambda s: f"'{s}'"
    ),
    st.integers(min_value=0, max_value=10**20).map(str),
    st.sampled_from(["007", "0", "1e3", "-5", "5.0", "TRUE", "NULL", "'a''b'"]),
)
_COMPARISONS = st.tuples(
    _NAMES,
    st.sampled_from(["=", "!=", "<>", "<", "<=", ">", ">="]),
    _OPERANDS,
    st.sampled_from(["", " ", "  "]),
).map(lambda t: f"{t[0]}{t[3]}{t[1]}{t[3]}{t[2]}")
_CONJUNCTIONS = st.lists(_COMPARISONS, min_size=1, max_size=4).flatmap(
    lambda parts: st.sampled_from([" AND ", " and ", " OR ", "  AND\n"]).map(
        lambda sep: sep.join(parts)
    )
)


@settings(max_examples=400, deadline=None)
@given(_CONJUNCTIONS)
def test_shape_shortcut_equals_the_general_parser(text: str) -> None:
    assert parse_module._parse_sql.__wrapped__(text) == parse_module._parse_general.__wrapped__(
        text
    )


@pytest.mark.parametrize(
    "text",
    [
        "date = '2024-05-10' AND country = 'US'",
        "current_date = '2024-01-01'",
        "true = 'x' AND id = 5",
        "id = 007",
        "a <> 'b' and c >= 10",
    ],
)
def test_shape_shortcut_on_known_shapes(text: str) -> None:
    assert parse_module._parse_sql.__wrapped__(text) == parse_module._parse_general.__wrapped__(
        text
    )
    assert parse_module._SIMPLE_CONJUNCTION.fullmatch(text)


@pytest.mark.corpus
def test_shape_shortcut_equals_the_general_parser_on_the_corpus(corpus_dir: Path) -> None:
    texts = {
        v
        for _, info in corpus_commit_infos(corpus_dir)
        for v in (info["operationParameters"] or {}).values()
        if isinstance(v, str)
    }
    shortcut = [t for t in texts if parse_module._SIMPLE_CONJUNCTION.fullmatch(t.strip())]
    assert shortcut, "the corpus has simple conjunctions"
    for t in shortcut:
        assert parse_module._parse_sql.__wrapped__(
            t.strip()
        ) == parse_module._parse_general.__wrapped__(t.strip()), t
