"""Scenarios rewrite (loser, winners) pairs; the same checker then decides (Delta-Spark rules,
semantics doc §E). Logs are LogBuilder timelines; a loser that failed is an attempt."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from deltaforensics.conflicts.checker import check
from deltaforensics.predicates.ir import And, Column, Compare, Literal, Or
from deltaforensics.report.validate import validate
from deltaforensics.whatif.footprint import pinned_values
from deltaforensics.whatif.scenario import (
    ExplicitMergePredicates,
    IsolationChange,
    PartitionBy,
    Scenario,
)
from deltaforensics.whatif.transform import Rewriter, apply
from tests.support import LogBuilder
from tests.whatif.helpers import analysis_until, lost, whatif_json

APPEND = "ConcurrentAppendException"
DELREAD = "ConcurrentDeleteReadException"


def _merge_race(tmp_path: Path) -> Path:
    """§E 9: an UPDATE in B wins; a MERGE without a literal (read at v1) touching only A loses."""
    b = LogBuilder(
        tmp_path / "t",
        columns={"id": "long", "date": "string"},
        partition_by=["date"],
        writer="databricks-14.3",
    )
    b.create()
    b.write(add=[b.file("date=A"), b.file("date=B")])
    fa, fb = b.live_files("date=A")[0], b.live_files("date=B")[0]
    b.update("date = 'B' AND id = 1", remove=[fb["path"]], add=[b.file("date=B")])
    b.merge(
        "t.id = s.id AND t.date = s.date",
        remove=[fa["path"]],
        add=[b.file("date=A")],
        read_version=1,
    )
    return b.path


def test_explicit_merge_predicates_turn_scenario_9_into_scenario_10(tmp_path: Path) -> None:
    path = _merge_race(tmp_path)
    analysis = analysis_until(path, 2)
    merge = lost(path, 3, analysis, APPEND, "MERGE")
    doc = whatif_json(analysis, Scenario.of(ExplicitMergePredicates()), attempts=[merge])
    validate(doc, "whatif")
    [pair] = [p for p in doc["pairs"] if p["source"] == "attempt"]
    assert (pair["before"], pair["after"], pair["winner_version"]) == (APPEND, "commits", 2)
    assert "date = 'A'" in pair["reason"]
    assert doc["by_source"]["attempt"] == {
        "avoided": 1,
        "introduced": 0,
        "unknown": 0,
        "excluded": 0,
    }


def test_isolation_does_not_help_against_a_non_blind_winner(tmp_path: Path) -> None:
    path = _merge_race(tmp_path)
    analysis = analysis_until(path, 2)
    merge = lost(path, 3, analysis, APPEND, "MERGE")
    doc = whatif_json(analysis, Scenario.of(IsolationChange("WriteSerializable")), attempts=[merge])
    assert doc["by_source"]["attempt"]["avoided"] == 0
    assert [p["after"] for p in doc["pairs"] if p["source"] == "attempt"] == [APPEND]


def test_applying_a_scenario_leaves_its_inputs_untouched(tmp_path: Path) -> None:
    path = _merge_race(tmp_path)
    analysis = analysis_until(path, 2)
    merge = lost(path, 3, analysis, APPEND, "MERGE")
    before = (
        merge.loser.read.reads.partition_predicate,
        merge.loser.written.added.clone(),
        merge.winners[-1].written.added.clone(),
    )
    pair = apply(
        Scenario.of(ExplicitMergePredicates(), PartitionBy(["date"])),
        merge.loser,
        merge.winners,
        analysis.loaded.replay,
    )
    assert pair.loser is not merge.loser
    assert merge.loser.read.reads.partition_predicate == before[0]
    assert merge.loser.written.added.equals(before[1])
    assert merge.winners[-1].written.added.equals(before[2])


# -- partitioning an unpartitioned table by a data column -----------------------------------


def _unpartitioned(tmp_path: Path, *, stats: bool = True) -> LogBuilder:
    b = LogBuilder(
        tmp_path / ("t" if stats else "nostats"),
        columns={"id": "long", "date": "date"},
        writer="spark-3.2.0",
    )

    def spans(lo: str, hi: str, first: int, last: int) -> dict[str, object]:
        return (
            {
                "minValues": {"date": lo, "id": first},
                "maxValues": {"date": hi, "id": last},
                "nullCount": {"date": 0, "id": 0},
            }
            if stats
            else {}
        )

    b.create()
    b.write(add=[b.file(stats=spans("2024-01-01", "2024-01-02", 0, 99))])  # v1: one file, 2 days
    b.write(add=[b.file(stats=spans("2024-01-03", "2024-01-03", 100, 199))])  # v2
    old = b.live_files()[0]
    b.update(  # v3: rewrites the two-day file for one row of 2024-01-01
        "date = DATE'2024-01-01' AND id = 1",
        remove=[old["path"]],
        add=[b.file(stats=spans("2024-01-01", "2024-01-02", 0, 99))],
    )
    b.delete(  # v4, read at v2: one row of 2024-01-02 in the same old file -> DC010 (unpartitioned)
        "date = DATE'2024-01-02' AND id = 50",
        remove=[old],  # an add dict: removed although v3 already removed it (it read v2)
        add=[b.file(stats=spans("2024-01-01", "2024-01-02", 0, 99))],
        read_version=2,
    )
    return b


def test_partitioning_by_a_data_column_uses_the_files_value_ranges(tmp_path: Path) -> None:
    b = _unpartitioned(tmp_path)
    analysis = analysis_until(b.path, 3)
    delete = lost(b.path, 4, analysis, APPEND, "DELETE")
    assert check(delete.loser, delete.winners, history=analysis.loaded.replay).outcome == APPEND
    doc = whatif_json(analysis, Scenario.of(PartitionBy(["date"])), attempts=[delete])
    validate(doc, "whatif")
    [pair] = [p for p in doc["pairs"] if p["source"] == "attempt"]
    assert (pair["before"], pair["after"]) == (APPEND, "commits")
    assert doc["confidence"] == "medium"  # the footprint comes from statistics
    assert any(d["code"] == "W601" for d in doc["diagnostics"])


def test_the_new_layout_splits_files_and_keeps_only_the_partitions_a_commit_reads(
    tmp_path: Path,
) -> None:
    b = _unpartitioned(tmp_path)
    analysis = analysis_until(b.path, 3)
    rw = Rewriter(Scenario.of(PartitionBy(["date"])), analysis.loaded.replay)
    update = next(t for t in analysis.transactions if t.version == 3)
    new, unknown = rw.transaction(update)
    assert unknown is None
    assert new.table.partition_columns == ("date",)
    dates = new.written.removed["partition_values"].struct.field("date").to_list()
    assert dates == ["2024-01-01"]  # the old file spanned 01-01..01-02; the UPDATE reads 01-01
    live = rw.history.live_files(2)
    assert sorted(live["partition_values"].struct.field("date").to_list()) == [
        "2024-01-01",
        "2024-01-02",
        "2024-01-03",
    ]
    assert all("#date=" in p for p in live["path"].to_list())


def test_predicates_decide_the_footprints_statistics_cannot(tmp_path: Path) -> None:
    """Without statistics the old files' spans are unknown, but the DELETE's and the winning
    UPDATE's own conditions pin them to one date each: the pair is decided, and its reason
    says so."""
    b = _unpartitioned(tmp_path, stats=False)
    analysis = analysis_until(b.path, 3)
    delete = lost(b.path, 4, analysis, APPEND, "DELETE")
    doc = whatif_json(analysis, Scenario.of(PartitionBy(["date"])), attempts=[delete])
    [pair] = [p for p in doc["pairs"] if p["source"] == "attempt"]
    assert pair["known"] is True and pair["counted"] is True
    assert (pair["before"], pair["after"]) == (APPEND, "commits")
    assert "recorded predicate (date = '2024-01-01')" in pair["reason"]
    assert doc["conflicts_avoided"] == 1 and doc["unknown"] == 0


def test_an_open_condition_leaves_the_footprint_unknown() -> None:
    date = Column("date")
    assert pinned_values(Compare("=", date, Literal("2024-01-01")), ["date"]) == [
        {"date": "2024-01-01"}
    ]
    either = Or((Compare("=", date, Literal("a")), Compare("=", date, Literal("b"))))
    assert pinned_values(And((either, Compare("=", Column("id"), Literal(1)))), ["date"]) == [
        {"date": "a"},
        {"date": "b"},
    ]
    open_ = Or((Compare("=", date, Literal("a")), Compare("=", Column("id"), Literal(1))))
    assert pinned_values(open_, ["date"]) is None
    assert pinned_values(Compare("<", date, Literal("a")), ["date"]) is None


def test_a_high_cardinality_layout_is_flagged(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path / "t", columns={"id": "long", "date": "string"}, writer="spark-3.2.0")
    b.create()
    b.write(
        add=[
            b.file(stats={"minValues": {"id": i * 500}, "maxValues": {"id": i * 500 + 499}})
            for i in range(4)
        ]
    )
    b.delete("id = 7", remove=[b.live_files()[0]["path"]], add=[b.file()])
    analysis = analysis_until(b.path, 2)
    doc = whatif_json(analysis, Scenario.of(PartitionBy(["id"])))
    [w601] = [d for d in doc["diagnostics"] if d["code"] == "W601"]
    assert w601["severity"] == "warning"
    assert "1500 partition(s)" in w601["message"]  # 3 files x 500 ids; the 4th has no stats


def test_a_rewritten_frame_keeps_the_file_schema(tmp_path: Path) -> None:
    b = _unpartitioned(tmp_path)
    analysis = analysis_until(b.path, 3)
    rw = Rewriter(Scenario.of(PartitionBy(["date"])), analysis.loaded.replay)
    t = next(t for t in analysis.transactions if t.version == 3)
    new, _ = rw.transaction(t)
    assert set(t.written.added.columns) <= set(new.written.added.columns)
    assert new.written.added.schema["partition_values"] == pl.Struct({"date": pl.String})
