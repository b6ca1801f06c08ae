"""The evaluation set (races, evidence, writer matrix), the JSON contract and scenarios as data."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from deltaforensics.analysis import ConflictAnalysis, analyze, observed_attempts, open_store
from deltaforensics.attempts.specs import AttemptSpec
from deltaforensics.errors import UsageError
from deltaforensics.report.validate import validate
from deltaforensics.whatif.scenario import (
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    Scenario,
    SeparateSchedules,
    change_from_dict,
)
from tests.conftest import SAMPLE_LOGS
from tests.whatif.helpers import whatif_json

SAMPLES = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
MERGE_SAMPLE = "merge_without_partition_literal"


@cache
def sample(name: str) -> ConflictAnalysis:
    return analyze(open_store(str(SAMPLE_LOGS / name)))


def _cell(doc: dict[str, Any], loser: str, winner: str) -> dict[str, Any]:
    return next(
        c for c in doc["writer_matrix"] if (c["writer_a"], c["writer_b"]) == (loser, winner)
    )


def _id(change: Any) -> str:
    params = [v for k, v in change.to_dict().items() if k != "kind"]
    shown = ["+".join(v) or "none" if isinstance(v, list) else str(v) for v in params]
    return "-".join([change.kind, *shown]).replace(" ", "_")


ALL_KINDS = [
    PartitionBy(["date"]),
    PartitionBy([]),
    IsolationChange("WriteSerializable"),
    IsolationChange("Serializable"),
    DeletionVectors(),
    Liquid(["date"]),
    ExplicitMergePredicates(),
    SeparateSchedules("job orders_ingest", "job orders_status_merge"),
    MarkBlindAppends("delta-rs WRITE Append"),
]


@pytest.mark.parametrize("change", ALL_KINDS, ids=_id)
def test_every_change_round_trips_through_its_dict(change: Any) -> None:
    assert change_from_dict(change.to_dict()) == change
    assert Scenario.from_dict(Scenario.of(change).to_dict()) == Scenario.of(change)


def test_a_change_is_the_documented_dict() -> None:
    assert PartitionBy(["date"]).to_dict() == {"kind": "partition-by", "columns": ["date"]}
    assert IsolationChange("writeSerializable").to_dict() == {
        "kind": "isolation",
        "level": "writeSerializable",
    }


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown what-if change kind"):
        change_from_dict({"kind": "vacuum-more"})


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("change", ALL_KINDS, ids=_id)
def test_every_document_matches_the_whatif_schema(name: str, change: Any) -> None:
    analysis = sample(name)
    replay = analysis.loaded.replay
    schema = {c.lower() for c in replay.metadata_at(replay.end_version).column_types}
    if any(c.lower() not in schema for c in getattr(change, "columns", ())):
        with pytest.raises(UsageError, match="has no column"):  # issue #31 item 4
            whatif_json(analysis, Scenario.of(change))
        return
    doc = whatif_json(analysis, Scenario.of(change))
    validate(doc, "whatif")
    assert doc["result"]["conflicts"] == (
        doc["baseline"]["conflicts"] - doc["conflicts_avoided"] + doc["conflicts_introduced"]
    )


def test_the_writer_matrix_finds_the_order_dependent_merge_conflicts() -> None:
    """The sample's README: had the UPDATE (or the retention DELETE) committed while the MERGE
    ran, the MERGE — reading the whole table — would have failed (§E 9, 11)."""
    doc = whatif_json(sample(MERGE_SAMPLE), Scenario.of(ExplicitMergePredicates()))
    update = _cell(doc, "job orders_status_merge", "user analyst@example.com")
    retention = _cell(doc, "job orders_status_merge", "job orders_retention")
    assert (update["before"], update["after"]) == ("ConcurrentAppendException", "commits")
    assert (retention["before"], retention["after"]) == ("ConcurrentDeleteReadException", "commits")
    assert doc["by_source"]["writer-matrix"]["avoided"] == 2
    assert doc["conflicts_introduced"] == 0
    # the reverse direction never conflicted: the UPDATE reads only its own partition
    assert _cell(doc, "user analyst@example.com", "job orders_status_merge")["before"] == "commits"


def test_serializable_turns_the_survived_races_into_introduced_conflicts() -> None:
    doc = whatif_json(sample(MERGE_SAMPLE), Scenario.of(IsolationChange("Serializable")))
    races = [p for p in doc["pairs"] if p["source"] == "race"]
    flipped = sorted(p["loser"]["version"] for p in races if p["after"] != "commits")
    assert flipped == [5, 10, 18, 25, 34]  # the README's "OK under WriteSerializable only"
    assert doc["conflicts_avoided"] == 0
    assert any(d["code"] == "W603" and "Serializable" in d["message"] for d in doc["diagnostics"])


def test_undoing_the_change_is_not_counted_as_fragility() -> None:
    """With literals in ON, "a wider predicate would conflict" is the change undone, not a new
    fragility: the fragile count must not grow."""
    doc = whatif_json(sample(MERGE_SAMPLE), Scenario.of(ExplicitMergePredicates()))
    assert doc["result"]["fragile_races"] <= doc["baseline"]["fragile_races"]


def test_separate_schedules_avoid_the_duplicate_streaming_query() -> None:
    query = "streaming query 024115e4-9195-4d9d-9ddc-cf2d39850d17"
    doc = whatif_json(
        sample("duplicate_streaming_query"), Scenario.of(SeparateSchedules(query, query))
    )
    cell = _cell(doc, query, query)
    assert cell["before"] == "ConcurrentTransactionException"
    assert cell["after"] == "commits"
    assert "scheduled apart" in cell["reason"]


def test_deletion_vectors_outside_databricks_are_said_to_change_nothing() -> None:
    doc = whatif_json(sample("deltars_concurrent_optimize"), Scenario.of(DeletionVectors()))
    assert doc["conflicts_avoided"] == 0
    assert any(
        d["code"] == "W603" and "only on Databricks" in d["message"] for d in doc["diagnostics"]
    )


def test_unpartitioning_a_partitioned_table_without_row_level_concurrency_introduces_conflicts() -> (
    None
):
    """The folklore "unpartition + liquid" increases conflicts where there is no row-level
    concurrency (users-and-peers §0.4)."""
    doc = whatif_json(sample(MERGE_SAMPLE), Scenario.of(PartitionBy([])))
    assert doc["conflicts_introduced"] > 0


def test_the_matrix_can_be_left_out() -> None:
    doc = whatif_json(sample(MERGE_SAMPLE), Scenario.of(ExplicitMergePredicates()), samples=0)
    assert doc["writer_matrix"] == []
    assert doc["evaluated_on"]["writer_pairs"] == 0


@pytest.mark.parametrize(
    ("source", "known"),
    [
        ("updates s", False),  # which partitions a table's rows cover is not in the statement
        ("(SELECT * FROM VALUES (1, '2024-03-01') AS v(id, date)) s", True),
    ],
)
def test_an_attempted_merge_gets_its_literal_from_an_inline_source(
    source: str, known: bool
) -> None:
    """Real Delta 4.4.0 replay (scripts/whatif_replay_spark.py): a MERGE whose ON equates
    ``t.date = s.date`` over literal source rows touches only their dates, so the literal the
    change adds is those dates; from a table the what-if says unknown rather than guess."""
    store = open_store(str(SAMPLE_LOGS / MERGE_SAMPLE))
    sql = (
        f"MERGE INTO t USING {source} ON t.id = s.id AND t.date = s.date "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    at = analyze(
        store, to_version=9, attempts=[AttemptSpec(sql=sql, read_version=4)], recommendations=False
    )
    doc = whatif_json(
        at, Scenario.of(ExplicitMergePredicates()), attempts=observed_attempts(at), samples=0
    )
    [pair] = [p for p in doc["pairs"] if p["source"] == "attempt"]
    assert pair["known"] is known, pair["reason"]
    if known:
        assert "partition [date=2024-03-01]" in pair["reason"], pair["reason"]
