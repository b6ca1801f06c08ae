"""parse_operation_predicates: what each operation's parameters say it read (A.2, B.2, B.4)."""

from __future__ import annotations

import json

import pytest

from deltaforensics.predicates import (
    FALSE,
    TRUE,
    Column,
    Compare,
    Literal,
    Unknown,
    parse_operation_predicates,
)

DATE_A = Compare("=", Column("date"), Literal("A"))


@pytest.mark.parametrize(
    ("operation", "params", "predicate", "whole_table", "reads"),
    [
        pytest.param(
            "DELETE",
            {"predicate": '["(date#1 = A)"]'},
            Compare("=", Column("date"), Literal("A", True)),
            False,
            True,
            id="spark-delete",
        ),
        pytest.param(
            "DELETE", {"predicate": "date = 'A'"}, DATE_A, False, True, id="delta-rs-delete"
        ),
        pytest.param("DELETE", {"predicate": "[]"}, TRUE, True, True, id="delete-everything"),
        pytest.param("DELETE", {}, TRUE, True, True, id="delta-rs-delete-no-predicate"),
        pytest.param(
            "UPDATE",
            {"predicate": ["(date#1 = A)"]},
            Compare("=", Column("date"), Literal("A", True)),
            False,
            True,
            id="double-decoded",
        ),
        pytest.param(
            "OPTIMIZE",
            {"predicate": "[]", "zOrderBy": "[]", "auto": False},
            TRUE,
            False,
            True,
            id="optimize",
        ),
        pytest.param(
            "OPTIMIZE",
            {"predicate": '["(date#1 = A)"]', "auto": True},
            Compare("=", Column("date"), Literal("A", True)),
            False,
            True,
            id="optimize-where",
        ),
        pytest.param(
            "REORG", {"predicate": "[]", "applyPurge": True}, TRUE, False, True, id="reorg"
        ),
        pytest.param("TRUNCATE", {}, TRUE, True, True, id="truncate"),
        pytest.param(
            "WRITE", {"mode": "Append", "partitionBy": "[]"}, FALSE, False, False, id="append"
        ),
        pytest.param(
            "WRITE", {"mode": "Overwrite", "partitionBy": "[]"}, TRUE, True, True, id="overwrite"
        ),
        pytest.param(
            "WRITE",
            {"mode": "Overwrite", "predicate": "date = 'A'"},
            DATE_A,
            False,
            True,
            id="replace-where",
        ),
        pytest.param(
            "CREATE OR REPLACE TABLE AS SELECT",
            {"isManaged": "false"},
            TRUE,
            True,
            True,
            id="replace-table",
        ),
        pytest.param(
            "STREAMING UPDATE",
            {"outputMode": "Append", "epochId": "3"},
            FALSE,
            False,
            False,
            id="stream-append",
        ),
        pytest.param(
            "STREAMING UPDATE", {"outputMode": "Complete"}, TRUE, True, True, id="stream-complete"
        ),
        pytest.param(
            "ADD CONSTRAINT", {"name": "c", "expr": "x > 0"}, TRUE, True, True, id="add-constraint"
        ),
        pytest.param("SET TBLPROPERTIES", {"properties": "{}"}, FALSE, False, False, id="ddl"),
        pytest.param(
            "VACUUM START", {"retentionCheckEnabled": "true"}, FALSE, False, False, id="vacuum"
        ),
    ],
)
def test_operations_read_what_delta_says(
    operation: str, params: dict[str, object], predicate: object, whole_table: bool, reads: bool
) -> None:
    info = parse_operation_predicates(operation, params)
    assert (info.predicate, info.whole_table, info.reads) == (predicate, whole_table, reads)
    assert info.operation == operation


def test_parameters_may_arrive_as_json_text() -> None:
    params = json.dumps({"predicate": "date = 'A'"})
    assert parse_operation_predicates("delete", params).predicate == DATE_A


def test_spark_merge_reads_its_on_condition_and_records_clauses() -> None:
    info = parse_operation_predicates(
        "MERGE",
        {
            "predicate": '["(id#6739L = id#6741L)"]',
            "matchedPredicates": '[{"predicate":"(id#6739L = 1)","actionType":"update"},'
            '{"predicate":"(id#6739L = 3)","actionType":"delete"}]',
            "notMatchedPredicates": "[]",
            "notMatchedBySourcePredicates": "[]",
        },
    )
    assert info.predicate == info.merge_condition == Compare("=", Column("id"), Column("id"))
    assert [p.to_sql() for p in info.clause_predicates] == ["id = 1", "id = 3"]
    assert info.matched_only and not info.has_not_matched_by_source and not info.whole_table


def test_spark_merge_with_not_matched_by_source() -> None:
    info = parse_operation_predicates(
        "MERGE",
        {
            "predicate": '["(id#5058 = id#5062)"]',
            "matchedPredicates": [{"actionType": "update"}],  # double-decoded list
            "notMatchedPredicates": '[{"actionType":"insert"}]',
            "notMatchedBySourcePredicates": '[{"predicate":"(id#482 < 10)","actionType":"delete"}]',
        },
    )
    assert info.has_not_matched_by_source and not info.matched_only
    assert info.clause_predicates == (TRUE,)


def test_delta_rs_merge_reads_its_derived_predicate_or_everything() -> None:
    base = {
        "mergePredicate": "t.user_id = s.user_id AND t.date = s.date",
        "matchedPredicates": '[{"actionType":"update"}]',
        "notMatchedPredicates": '[{"actionType":"insert"}]',
        "notMatchedBySourcePredicates": "[]",
    }
    info = parse_operation_predicates("MERGE", base)
    assert info.predicate == TRUE and info.whole_table
    assert info.merge_condition is not None and "t.date = s.date" in info.merge_condition.to_sql()
    derived = parse_operation_predicates("MERGE", {**base, "predicate": "date = 'A'"})
    assert derived.predicate == DATE_A and not derived.whole_table


def test_old_merge_without_clause_lists_is_not_matched_only() -> None:
    info = parse_operation_predicates("MERGE", {"predicate": "(oldData.`id` = newData.`id`)"})
    assert not info.matched_only
    assert any("clause lists missing" in d for d in info.diagnostics)


def test_unparseable_predicates_are_reported() -> None:
    info = parse_operation_predicates("DELETE", {"predicate": "(((("})
    assert isinstance(info.predicate, Unknown)
    assert any("not understood" in d for d in info.diagnostics)
    assert parse_operation_predicates("MERGE", {}).diagnostics


def test_dynamic_partition_overwrite_points_to_its_written_partitions() -> None:
    info = parse_operation_predicates(
        "WRITE", {"mode": "Overwrite", "isDynamicPartitionOverwrite": "true"}
    )
    assert info.source == "written-partitions" and info.reads
    assert any("written_partitions_predicate" in d for d in info.diagnostics)
