"""Recommendations: measured on the table's own history, engine-aware, never folklore."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import analyze, observed_attempts, open_store
from deltaforensics.model.ids import Severity
from deltaforensics.report.document import explain_document
from deltaforensics.report.validate import validate
from deltaforensics.whatif import assess
from deltaforensics.whatif.assess import surely_too_many_partitions
from deltaforensics.whatif.evaluation import Evaluation
from deltaforensics.whatif.layout import Layout
from deltaforensics.whatif.recommendations.budget import NOTHING_TO_PREVENT, advise
from deltaforensics.whatif.recommendations.candidates import Recommendation, recommend
from deltaforensics.whatif.recommendations.instructions import TableFacts, apply_text
from deltaforensics.whatif.scenario import (
    DeletionVectors,
    ExplicitMergePredicates,
    MarkBlindAppends,
    PartitionBy,
    Scenario,
)
from deltaforensics.whatif.statistics import StatRanges
from tests.conftest import REPO
from tests.support import LogBuilder
from tests.whatif.helpers import analysis_until, lost, whatif_json
from tests.whatif.test_evaluation import SAMPLES, sample

ROW_LEVEL = {"deletion-vectors", "liquid"}


def _kinds(recs: list[dict[str, Any]]) -> list[str]:
    return [r.change.kind for r in recs]


@pytest.fixture(scope="module")
def recommendations() -> dict[str, list[dict[str, Any]]]:
    return {name: recommend(sample(name)) for name in SAMPLES}


def test_a_merge_without_a_partition_literal_counts_only_what_was_seen(
    recommendations: dict[str, list[Recommendation]],
) -> None:
    """Nothing failed in this log: explicit literals avoid writer pairs that *could* conflict
    (hypothetical exposure), never a seen conflict; no recommendation headline claims one."""
    for r in recommendations["merge_without_partition_literal"]:
        assert r.conflicts_avoided == 0
        assert r.rationale.startswith("Seen: no conflict")
    doc = whatif_json(
        sample("merge_without_partition_literal"), Scenario.of(ExplicitMergePredicates())
    )
    assert doc["conflicts_avoided"] == 0 and doc["baseline"]["conflicts"] == 0
    assert doc["hypothetical"]["avoided"] >= 2 and doc["hypothetical"]["introduced"] == 0
    facts = TableFacts.of(sample("merge_without_partition_literal").loaded.replay, [])
    shown = apply_text(
        ExplicitMergePredicates(), facts, sample("merge_without_partition_literal").transactions
    )
    assert shown is not None and (
        "t.order_id = s.order_id AND t.date = s.date AND t.date IN ('2024-03-03', '2024-03-04')"
        in shown
    )


@pytest.mark.parametrize("name", SAMPLES)
def test_no_recommendation_without_a_race_error_or_attempt(name: str) -> None:
    analysis = sample(name)
    advice = advise(analysis)
    if not analysis.races:
        assert advice.entries == () and advice.note == NOTHING_TO_PREVENT


@pytest.mark.parametrize("name", SAMPLES)
def test_serializable_is_never_a_fix(
    recommendations: dict[str, list[Recommendation]], name: str
) -> None:
    for r in recommendations[name]:
        if r.change.kind == "isolation":
            assert r.change.level.lower() != "serializable"


@pytest.mark.parametrize("name", SAMPLES)
def test_row_level_concurrency_is_offered_only_when_every_writer_is_databricks(
    recommendations: dict[str, list[Recommendation]], name: str
) -> None:
    engines = set(
        sample(name).transactions[-1:]
        and {
            t.provenance.profile.engine
            for t in sample(name).transactions
            if t.version and not t.read.reads.blind
        }
    )
    if engines != {"databricks"}:
        assert not ROW_LEVEL & set(_kinds(recommendations[name]))


@pytest.mark.parametrize("name", SAMPLES)
def test_recommendations_avoid_something_and_introduce_nothing_unless_said(
    recommendations: dict[str, list[Recommendation]], name: str
) -> None:
    for r in recommendations[name]:
        exposure = r.hypothetical["avoided"] if r.hypothetical["overlapped"] else 0
        assert r.conflicts_avoided + r.fragile_races_avoided + exposure >= 1
        if r.conflicts_introduced:
            assert "trade-off" in r.rationale
            assert r.conflicts_avoided > r.conflicts_introduced


@pytest.mark.parametrize("name", SAMPLES)
def test_recommendations_fit_the_explain_report(
    recommendations: dict[str, list[Recommendation]], name: str
) -> None:
    doc = explain_document(sample(name))
    validate(replace(doc, recommendations=tuple(recommendations[name])), "explain")


def test_marking_delta_rs_appends_blind_is_exposure_not_a_seen_conflict(
    recommendations: dict[str, list[Recommendation]],
) -> None:
    """Nothing failed and no writer pair it flips ever overlapped: the change shows as
    hypothetical exposure, and nothing is recommended."""
    assert recommendations["mixed_writer_appends"] == []
    doc = whatif_json(
        sample("mixed_writer_appends"), Scenario.of(MarkBlindAppends("delta-rs WRITE Append"))
    )
    assert doc["conflicts_avoided"] == 0 and doc["hypothetical"]["avoided"] >= 1


# -- isolation advice per engine -------------------------------------------------------------


def _append_then_update(tmp_path: Path, writer: str) -> list[Any]:
    """A blind append wins over an UPDATE of its partition read before it (§E 5): the UPDATE
    failed under Serializable; WriteSerializable would have let it commit (§E 6)."""
    b = LogBuilder(
        tmp_path / writer,
        columns={"id": "long", "date": "string"},
        partition_by=["date"],
        writer=writer,
    )
    b.create()
    b.write(add=[b.file("date=A")])
    b.write(add=[b.file("date=A")], isolation="Serializable")
    old = b.live_files("date=A")[0]
    b.update(
        "date = 'A' AND id = 5",
        remove=[old["path"]],
        add=[b.file("date=A")],
        read_version=1,
        isolation="Serializable",
    )
    analysis = analysis_until(b.path, 2)
    return [analysis, lost(b.path, 3, analysis, "ConcurrentAppendException", "UPDATE")]


def test_open_source_delta_cannot_set_write_serializable(tmp_path: Path) -> None:
    analysis, update = _append_then_update(tmp_path, "spark-3.2.0")
    [iso] = [r for r in recommend(analysis, attempts=[update]) if r.change.kind == "isolation"]
    assert iso.conflicts_avoided == 1
    assert iso.apply is None and iso.applicable is False
    assert "refuses to set" in iso.rationale


def test_databricks_gets_the_alter_table_statement(tmp_path: Path) -> None:
    analysis, update = _append_then_update(tmp_path, "databricks-14.3")
    [iso] = [r for r in recommend(analysis, attempts=[update]) if r.change.kind == "isolation"]
    assert iso.apply.endswith("SET TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable')")


@pytest.mark.engine
def test_delta_rs_writers_get_the_camel_case_spelling(tmp_path: Path) -> None:
    from tests.whatif.test_measured import ISOLATION_STEPS, _isolated
    from tests.whatif.workload import evidence, run

    results = run(tmp_path / "t", _isolated(None), ISOLATION_STEPS, tmp_path / "shadows")
    analysis, observed = evidence(tmp_path / "t", results)
    recs = recommend(analysis, attempts=observed)
    [iso] = [r for r in recs if r.change.kind == "isolation"]
    assert iso.change.level == "writeSerializable"
    assert '"delta.isolationLevel": "writeSerializable"' in iso.apply
    assert "'WriteSerializable'" not in iso.apply
    assert iso.conflicts_avoided == 2  # measured in test_measured: the two marked appends
    assert not ROW_LEVEL & set(_kinds(recs))


# -- row-level concurrency on Databricks ----------------------------------------------------


def _dml_vs_dml(tmp_path: Path, writer: str) -> Any:
    b = LogBuilder(tmp_path / writer, columns={"id": "long"}, writer=writer)
    b.create()
    b.write(add=[b.file(), b.file()])
    for i in range(3):  # two jobs correcting different single rows, one after the other
        for job, first in (("fix_a", 0), ("fix_b", 100)):
            old = b.live_files()[0]
            b.update(
                f"id = {first + i}",
                remove=[old["path"]],
                add=[b.file()],
                commit_info_extra={"job": {"jobId": job, "jobName": job}},
            )
    return analysis_until(b.path, b.version)


def test_databricks_dml_on_an_unpartitioned_table_gets_deletion_vectors(tmp_path: Path) -> None:
    """The two jobs never overlapped: their conflict is hypothetical exposure (fix_a would lose
    to fix_b and the other way round), so it is measured but not recommended."""
    analysis = _dml_vs_dml(tmp_path, "databricks-14.3")
    assert recommend(analysis) == []
    doc = whatif_json(analysis, Scenario.of(DeletionVectors()))
    assert doc["conflicts_avoided"] == 0
    assert doc["hypothetical"]["avoided"] == 2 and doc["hypothetical"]["overlapped"] == 0


def test_the_same_table_on_open_source_delta_gets_no_row_level_advice(tmp_path: Path) -> None:
    recs = recommend(_dml_vs_dml(tmp_path, "spark-3.2.0"))
    assert not ROW_LEVEL & set(_kinds(recs))


def test_a_high_cardinality_partition_column_is_decided_before_any_pair(tmp_path: Path) -> None:
    """``layout_warning`` (which lets recommend skip comparing the pairs) says exactly what the
    full comparison's W601 says, for a high- and a low-cardinality column; the high one is
    never recommended."""
    b = LogBuilder(tmp_path / "t", columns={"id": "long", "day": "string"}, writer="spark-3.2.0")
    b.create()
    b.write(
        add=[
            b.file(
                stats={
                    "minValues": {"id": i * 500, "day": "a"},
                    "maxValues": {"id": i * 500 + 499, "day": "b"},
                }
            )
            for i in range(4)
        ]
    )
    b.delete("id = 7 AND day = 'a'", remove=[b.live_files()[0]["path"]], add=[b.file()])
    analysis = analysis_until(b.path, 2)
    evaluation = Evaluation(analysis.transactions, analysis.races, analysis.loaded.replay)
    for column, high in (("id", True), ("day", False)):
        change = PartitionBy((column,))
        compared = evaluation.compare(Scenario.of(change))
        [w601] = [d for d in compared.diagnostics if d.code == "W601"]
        assert (w601.severity is Severity.WARNING) is high
        assert evaluation.layout_warning(change) is high
    recs = recommend(analysis)
    assert not [r for r in recs if getattr(r.change, "columns", None) == ("id",)]


def test_a_sample_deciding_high_cardinality_changes_no_recommendation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a generated history whose user_id a sample of live files shows to be an id-like
    column, the recommendations are the same as when every column's layout is counted in
    full (a sample of no files decides nothing)."""
    table = tmp_path / "t"
    generate = [sys.executable, str(REPO / "benchmarks" / "gen_synthetic_log.py")]
    subprocess.run([*generate, "--commits", "1000", "--out", str(table), "--quiet"], check=True)
    analysis = analyze(open_store(str(table)), recommendations=False)
    rep = analysis.loaded.replay
    assert surely_too_many_partitions(Layout.for_table(["user_id"], rep, {}), StatRanges(rep))
    sampled = recommend(analysis, attempts=observed_attempts(analysis))
    monkeypatch.setattr(assess, "SAMPLE_FILES", 0)
    assert not surely_too_many_partitions(Layout.for_table(["user_id"], rep, {}), StatRanges(rep))
    counted = recommend(analysis, attempts=observed_attempts(analysis))
    assert sampled == counted


def test_a_long_log_is_sampled_within_the_budget_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recommending = sys.modules[advise.__module__]  # the package exports a function by its name
    analysis = sample("merge_without_partition_literal")
    assert len(analysis.races) > 3
    monkeypatch.setattr(recommending, "RACE_BUDGET", 3)
    advice = advise(analysis)
    assert advice.note is not None and "3 of the 9 races" in advice.note
    for entry in advice.entries:
        assert entry.evaluated_on["races"] == 3


def test_only_the_best_few_are_shown_and_the_rest_counted() -> None:
    analysis = sample("optimize_vs_delete")
    every = advise(analysis, limit=None)
    assert every.entries and every.more == 0
    cut = advise(analysis, limit=0)
    assert cut.entries == () and cut.more == len(every.entries)


def test_writer_names_are_short_and_carry_no_paths(tmp_path: Path) -> None:
    from deltaforensics.whatif.writers import MAX_NAME, writer_of

    b = LogBuilder(tmp_path / "t", columns={"id": "long", "path": "string"}, writer="spark-3.2.0")
    b.create()
    b.write(add=[b.file()])
    long_condition = " AND ".join(f"id <> {i}" for i in range(30))
    b.delete(
        f"path = '/tmp/staging-1234/x.parquet' AND {long_condition}",
        remove=[b.live_files()[0]["path"]],
        add=[b.file()],
    )
    analysis = analysis_until(b.path, b.version)
    name = writer_of(analysis.transactions[-1])
    assert len(name) <= MAX_NAME
    assert "/tmp" not in name and "1234" not in name


@pytest.mark.parametrize("name", SAMPLES)
def test_every_counted_pair_really_overlapped(name: str) -> None:
    """A counted pair's winner committed after the loser's read version and before its
    commit; the writer matrix's sampled overlaps are never counted as seen."""
    analysis = sample(name)
    by_version = {t.version: t for t in analysis.transactions}
    replay = analysis.loaded.replay
    dated = "date" in replay.metadata_at(replay.end_version).column_types
    changes = (ExplicitMergePredicates(), *([PartitionBy(("date",))] if dated else []))
    for change in (*changes, DeletionVectors()):
        doc = whatif_json(analysis, Scenario.of(change))
        for p in doc["pairs"]:
            if p["source"] != "race" or not p["counted"]:
                continue
            loser = by_version[p["loser"]["version"]]
            assert loser.read.version < p["winner_version"] < loser.version
        seen = sum(
            1
            for p in doc["pairs"]
            if p["counted"] and (p["before"] == "commits") != (p["after"] == "commits")
        )
        assert doc["conflicts_avoided"] + doc["conflicts_introduced"] == seen
