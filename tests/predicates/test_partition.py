"""Partition read predicates the way Delta-Spark extracts them (semantics doc A.2, A.6, E)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.predicates import (
    TRUE,
    And,
    Predicate,
    evaluate,
    parse_operation_predicates,
    parse_predicate,
    partition_read_predicate,
    partition_read_predicate_for,
    written_partitions_predicate,
)
from deltaforensics.predicates.ir import column_refs
from tests.predicates.test_to_polars import RAW_VALUES, leaves_st, predicates_st, rows_st

P = ["date"]


def extract(sql: str, partition_columns: list[str] = P, **kw: object) -> Predicate:
    return partition_read_predicate(parse_predicate(sql), partition_columns, **kw).predicate  # type: ignore[arg-type]


def reads(operation: str, params: Mapping[str, object], partition_columns: list[str] = P) -> str:
    info = parse_operation_predicates(operation, params)
    return partition_read_predicate_for(info, partition_columns).predicate.to_sql()


def hits(pred: Predicate, date: str) -> bool:
    return evaluate(pred, {"date": date}, {"date": "string"}) is True


def test_scenario_9_merge_join_on_partition_without_literal_reads_the_whole_table() -> None:
    result = partition_read_predicate(
        parse_predicate("t.id = s.id AND t.date = s.date"), P, merge=True
    )
    assert result.predicate == TRUE and result.whole_table
    assert any("t.date = s.date" in r for r in result.reasons)
    assert hits(result.predicate, "B")  # the winner's add in date=B conflicts


def test_scenario_10_a_literal_on_the_target_partition_column_narrows_the_merge() -> None:
    pred = extract("t.id = s.id AND t.date = s.date AND t.date = 'A'", merge=True)
    assert pred.to_sql() == "date = 'A'"
    assert not hits(pred, "B") and hits(pred, "A")


def test_scenario_28_replace_where_reads_its_partition_conjuncts() -> None:
    loser = reads("WRITE", {"mode": "Overwrite", "predicate": "date >= 'B'"})
    assert loser == "date >= 'B'"
    assert hits(parse_predicate(loser), "C")
    disjoint = parse_predicate(reads("WRITE", {"mode": "Overwrite", "predicate": "date > 'C'"}))
    assert not hits(disjoint, "C")  # the winner wrote (B, C]: no conflict


def test_scenario_29_or_with_a_data_column_widens_to_true() -> None:
    result = partition_read_predicate_for(
        parse_operation_predicates("DELETE", {"predicate": "date='A' OR amount > 100"}), P
    )
    assert result.predicate == TRUE
    assert result.reasons == (
        "`date = 'A' OR amount > 100` mixes data columns: no partition predicate",
    )
    assert hits(result.predicate, "E")


def test_partition_predicates_are_extracted_from_or_of_ands() -> None:
    sql = "(p = 'a' AND x > 1) OR (p = 'b' AND y < 2)"
    assert extract(sql, ["p"]).to_sql() == "p = 'a' OR p = 'b'"
    assert reads("UPDATE", {"predicate": sql}, ["p"]) == "p = 'a' OR p = 'b'"


def test_merge_and_replace_where_do_not_extract_from_mixed_disjunctions() -> None:
    sql = "(p = 'a' AND x > 1) OR (p = 'b' AND y < 2)"
    assert extract(sql, ["p"], merge=True) == TRUE
    assert reads("WRITE", {"mode": "Overwrite", "predicate": sql}, ["p"]) == "TRUE"


def test_data_conjuncts_are_dropped_and_partition_conjuncts_kept() -> None:
    result = partition_read_predicate(
        parse_predicate('["((date#1 = 2024-01-01) AND (id#2 > 5))"]'), P
    )
    assert result.predicate.to_sql() == "date = '2024-01-01'"
    assert [d.to_sql() for d in result.dropped] == ["id > 5"]
    assert result.reasons == ()


def test_matching_is_case_insensitive_and_ignores_qualifiers() -> None:
    assert extract("DATE = 'A' AND t.Date <> 'B'").to_sql() == "date = 'A' AND date != 'B'"
    assert extract('["(spark_catalog.delta.`/p`.part = 0L)"]', ["part"]).to_sql() == "part = 0"


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("date = 'A' OR rand() > 0.5", "nondeterministic"),
        ("date IN (SELECT d FROM x)", "subquery"),
        ("my_udf(date) = 1", "udf"),
    ],
)
def test_nondeterministic_udf_and_subquery_parts_widen_to_true(sql: str, kind: str) -> None:
    result = partition_read_predicate(parse_predicate(sql), P)
    assert result.predicate == TRUE
    assert any(f"Delta widens {kind}" in r for r in result.reasons)


def test_widening_inside_an_and_keeps_the_rest() -> None:
    assert extract("date = 'A' AND (date = 'B' OR rand() < 1)").to_sql() == "date = 'A'"


def test_deterministic_functions_we_cannot_evaluate_widen_and_say_so() -> None:
    result = partition_read_predicate(parse_predicate("substring(date, 1, 4) = '2024'"), P)
    assert result.predicate == TRUE
    assert any("cannot evaluate" in r for r in result.reasons)


def test_merge_with_not_matched_by_source_reads_everything() -> None:
    params = {
        "predicate": '["((id#1 = id#2) AND (date#3 = 2024-01-01))"]',
        "matchedPredicates": '[{"actionType":"update"}]',
        "notMatchedPredicates": "[]",
        "notMatchedBySourcePredicates": '[{"predicate":"(id#482 < 10)","actionType":"delete"}]',
    }
    assert reads("MERGE", params) == "TRUE"
    params["notMatchedBySourcePredicates"] = "[]"
    assert reads("MERGE", params) == "date = '2024-01-01'"


def test_matched_only_merge_adds_target_only_parts_of_its_clauses() -> None:
    clauses = (
        '[{"predicate":"t.date = \'A\'","actionType":"update"},'
        '{"predicate":"t.date = \'B\' AND s.x > 1","actionType":"delete"}]'
    )
    params = {
        "predicate": "t.id = s.id",
        "matchedPredicates": clauses,
        "notMatchedPredicates": "[]",
        "notMatchedBySourcePredicates": "[]",
    }
    assert reads("MERGE", params) == "date = 'A' OR date = 'B'"
    params["notMatchedPredicates"] = '[{"actionType":"insert"}]'
    assert reads("MERGE", params) == "TRUE"  # not matched-only: clauses do not count
    unconditional = '[{"predicate":"t.date = \'A\'","actionType":"update"},{"actionType":"delete"}]'
    params |= {"notMatchedPredicates": "[]", "matchedPredicates": unconditional}
    assert reads("MERGE", params) == "TRUE"


def test_merge_bare_words_may_be_source_columns_so_they_are_dropped() -> None:
    sql = '["((id#191844 = user_id) AND (date#192017 = 2024-01-01))"]'
    assert extract(sql, ["id", "date"], merge=True).to_sql() == "date = '2024-01-01'"
    assert extract(sql, ["id", "date"]).to_sql() == "id = 'user_id' AND date = '2024-01-01'"


def test_merge_target_alias_can_be_given() -> None:
    sql = "tgt2.date = 'A' AND src.date = 'B'"
    assert extract(sql, merge=True) == TRUE
    assert extract(sql, merge=True, target_alias="TGT2").to_sql() == "date = 'A'"


def test_delta_rs_merge_is_modelled_on_its_on_condition() -> None:
    params = {
        "mergePredicate": "t.user_id = s.user_id AND t.date = '2024-01-01' AND t.date = s.date",
        "predicate": "date = '2024-01-01'",
        "matchedPredicates": '[{"actionType":"update"}]',
        "notMatchedPredicates": "[]",
        "notMatchedBySourcePredicates": "[]",
    }
    assert reads("MERGE", params) == "date = '2024-01-01'"


def test_unknown_and_unpartitioned_read_the_whole_table() -> None:
    unknown = partition_read_predicate(parse_predicate("(((("), P)
    assert unknown.whole_table and "not understood" in unknown.reasons[0]
    unpartitioned = partition_read_predicate(parse_predicate("date = 'A'"), [])
    assert unpartitioned.whole_table and "unpartitioned" in unpartitioned.reasons[0]


def test_commands_without_reads_read_nothing() -> None:
    assert reads("WRITE", {"mode": "Append", "partitionBy": '["date"]'}) == "FALSE"
    assert reads("SET TBLPROPERTIES", {"properties": "{}"}) == "FALSE"
    assert reads("WRITE", {"mode": "Overwrite"}) == "TRUE"
    assert reads("DELETE", {}) == "TRUE"


def test_written_partitions_predicate_reads_exactly_the_written_partitions() -> None:
    pred = written_partitions_predicate([{"date": "A", "h": "1"}, {"date": "", "h": None}])
    assert pred.to_sql() == "(date = 'A' AND h = '1') OR (date IS NULL AND h IS NULL)"
    info = parse_operation_predicates(
        "WRITE", {"mode": "Overwrite", "isDynamicPartitionOverwrite": True}
    )
    assert info.source == "written-partitions"


# --- properties --------------------------------------------------------------------------------
PARTS = ["p", "n"]
ALL = ["p", "n", "d", "f"]  # d and f play data columns here
TYPES = {"p": "string", "n": "integer", "d": "date", "f": "double"}


@settings(max_examples=200, deadline=None)
@given(predicates_st(ALL), st.lists(rows_st(ALL), min_size=1, max_size=5))
def test_extraction_never_narrows_what_the_condition_reads(
    pred: Predicate, rows: list[dict[str, str | None]]
) -> None:
    """Sound: every row the full condition selects lies in a partition the extract matches."""
    extracted = partition_read_predicate(pred, PARTS).predicate
    assert {c.key for c in column_refs(extracted)} <= set(PARTS)
    for row in rows:
        if evaluate(pred, row, TYPES) is True:
            assert evaluate(extracted, row, TYPES) is True, (pred.to_sql(), extracted.to_sql(), row)


@settings(max_examples=200, deadline=None)
@given(
    predicates_st(ALL),
    leaves_st(PARTS, opaque=False),
    st.lists(rows_st(PARTS), min_size=1, max_size=5),
    st.booleans(),
)
def test_adding_a_partition_conjunct_never_widens(
    pred: Predicate, conjunct: Predicate, rows: list[dict[str, str | None]], merge: bool
) -> None:
    before = partition_read_predicate(pred, PARTS, merge=merge).predicate
    after = partition_read_predicate(And((pred, conjunct)), PARTS, merge=merge).predicate
    for row in rows:
        if evaluate(after, row, TYPES) is True:
            assert evaluate(before, row, TYPES) is True


def test_raw_values_cover_nulls() -> None:
    assert None in RAW_VALUES["p"] and "" in RAW_VALUES["p"]
