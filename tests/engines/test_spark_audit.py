"""``audit --engine spark`` writes what the polars engine writes, table for table.

Both engines audit the same configs through the CLI: every corpus table and sample log (one
Spark job for all of them), then the samples and a few corpus tables with recommendations and a
state directory, twice, with commits added and a table left unchanged in between. Per table the
reports, the datasets, the kept state and the summary entry must be identical.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from deltalake import write_deltalake
from polars.testing import assert_frame_equal

from deltaforensics.audit.datasets import DATASETS
from deltaforensics.cli import main
from tests.audit.test_audit import failing_fleet_config, write_config
from tests.conflicts.deltars_harness import rows
from tests.conftest import CORPUS, SAMPLE_LOGS, corpus_tables
from tests.engines.test_spark_fleet import Recorded

pytestmark = pytest.mark.spark

SAMPLES = sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
# a checkpoint, a multi-part one, V2 with sidecars, deletion vectors, a table that cannot be
# rebuilt (a gap), and a log whose commits before its checkpoint were cleaned up
SOME_CORPUS = [
    "deltars__simple_table_with_checkpoint",
    "delta__multi-part-checkpoint",
    "kernelrs__v2-checkpoints-parquet-with-sidecars",
    "delta__table-with-dv-small",
    "delta__versions-not-contiguous",
    "deltars__checkpoints_vacuumed",
]
VARYING = {"started_at", "finished_at", "engine", "config", "state"}  # the run, not the tables


def audit(
    capsys: pytest.CaptureFixture[str], config: Path, out: Path, engine: str, *extra: str
) -> tuple[int, dict[str, Any]]:
    args = ["--quiet", "audit", str(config), "--output", str(out), "--format", "json", *extra]
    with Recorded("deltaforensics.audit.on_spark") as redone:
        code = main([*args, "--engine", engine] if engine == "spark" else args)
    stdout, _ = capsys.readouterr()
    summary = json.loads(stdout)
    if engine == "spark":  # every table reached Spark; none was audited on the driver
        assert redone.messages == [], redone.messages
    return code, summary


def assert_same_outputs(polars_out: Path, spark_out: Path) -> None:
    files = sorted(p.relative_to(polars_out) for p in polars_out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(spark_out) for p in spark_out.rglob("*") if p.is_file())
    for rel in files:
        if rel.suffix == ".parquet":
            assert_frame_equal(pl.read_parquet(spark_out / rel), pl.read_parquet(polars_out / rel))
        elif rel.name == "dashboard.html":  # the same page but for the run's own start time
            assert _without_run_time(spark_out / rel) == _without_run_time(polars_out / rel)
        elif rel.name != "summary.json":
            assert (spark_out / rel).read_text() == (polars_out / rel).read_text(), rel


def _without_run_time(page: Path) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "<run time>", page.read_text())


def _state_files(state: Path) -> dict[Path, Path]:
    """Each state file by its name with the publishing run's mark taken out: a part is
    ``part-<end>-<run>.parquet``, and two runs never share a run mark."""
    return {
        p.relative_to(state).with_name(re.sub(r"^(part-\d+)-[^.]+(\.parquet)$", r"\1\2", p.name)): p
        for p in state.rglob("*")
        if p.is_file()
    }


def assert_same_state(polars_state: Path, spark_state: Path) -> None:
    polars_files, spark_files = _state_files(polars_state), _state_files(spark_state)
    assert sorted(polars_files) == sorted(spark_files)
    for rel, polars_file in polars_files.items():
        spark_file = spark_files[rel]
        if rel.suffix == ".parquet":
            assert_frame_equal(pl.read_parquet(spark_file), pl.read_parquet(polars_file))
        elif rel.suffix == ".json":
            meta = [json.loads(f.read_text()) for f in (polars_file, spark_file)]
            for doc in meta:
                doc.pop("updated_at_ms")
                doc.pop("run", None)
            assert meta[0] == meta[1], rel


def assert_same_summary(polars: dict[str, Any], spark: dict[str, Any]) -> None:
    assert spark["engine"] == "spark"
    assert polars["engine"] == "polars"
    for key in set(polars) - VARYING:
        assert spark[key] == polars[key], key


@pytest.mark.heavy(40)
def test_every_table_audited_on_spark_gives_the_polars_outputs(
    spark: Any, corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = [{"name": p.name, "uri": str(p)} for p in corpus_tables()]
    tables += [{"name": f"sample.{p.name}", "uri": str(p)} for p in SAMPLES]
    config = write_config(tmp_path / "all.toml", tables, recommendations=False)
    code_p, polars = audit(capsys, config, tmp_path / "polars", "polars")
    code_s, spark_summary = audit(capsys, config, tmp_path / "spark", "spark")
    assert (code_s, code_p) == (3, 3)  # the corpus holds tables that cannot be rebuilt
    assert_same_summary(polars, spark_summary)
    assert spark_summary["totals"]["ok"] >= len(tables) - 3
    assert_same_outputs(tmp_path / "polars", tmp_path / "spark")


def _grow(table: Path, start: int, count: int) -> None:
    for i in range(start, start + count):
        write_deltalake(
            str(table), rows(f"2024-01-0{1 + i % 3}", range(10 * i, 10 * i + 5)), mode="append"
        )


def test_an_audit_with_state_and_recommendations_is_the_same_on_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grows = tmp_path / "lake" / "events"
    write_deltalake(str(grows), rows("2024-01-01", range(5)), partition_by=["date"])
    _grow(grows, 1, 3)
    tables = [{"name": "events", "uri": str(grows)}]
    tables += [{"name": p.name, "uri": str(p)} for p in SAMPLES]
    tables += [
        {"name": name, "uri": str(CORPUS / name)}
        for name in SOME_CORPUS
        if (CORPUS / name).is_dir()
    ]
    config = write_config(tmp_path / "a.toml", tables, fail_on=["anomaly"])
    states = {e: tmp_path / f"state-{e}" for e in ("polars", "spark")}
    first = {}
    for engine, state in states.items():
        first[engine] = audit(capsys, config, tmp_path / engine, engine, "--state", str(state))
    assert first["spark"][0] == first["polars"][0]
    assert_same_summary(first["polars"][1], first["spark"][1])
    assert_same_outputs(tmp_path / "polars", tmp_path / "spark")
    assert_same_state(states["polars"], states["spark"])

    _grow(grows, 4, 2)  # two new commits; every other table is unchanged
    second = {}
    for engine, state in states.items():
        second[engine] = audit(
            capsys, config, tmp_path / f"{engine}-2", engine, "--state", str(state)
        )
    reads = {t["name"]: t["read"] for t in second["spark"][1]["tables"] if t["status"] == "ok"}
    assert reads["events"]["mode"] == "incremental"
    assert reads["events"]["commit_files_read"] == 2
    assert {r["mode"] for n, r in reads.items() if n != "events"} == {"unchanged"}
    assert second["spark"][0] == second["polars"][0]
    assert_same_summary(second["polars"][1], second["spark"][1])
    assert_same_outputs(tmp_path / "polars-2", tmp_path / "spark-2")
    assert_same_state(states["polars"], states["spark"])
    assert set(DATASETS) <= {p.name for p in (tmp_path / "spark-2" / "datasets").iterdir()}


def test_failures_on_the_executors_are_reported_like_the_polars_engine_reports_them(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = failing_fleet_config(tmp_path)
    code_p, polars = audit(capsys, config, tmp_path / "polars", "polars")
    code_s, on_spark = audit(capsys, config, tmp_path / "spark", "spark")
    assert code_s == code_p == 3
    assert_same_summary(polars, on_spark)
    assert [t["status"] for t in on_spark["tables"]] == ["failed", "failed", "ok"]
    assert "version 3" in on_spark["tables"][1]["error"]
    assert_same_outputs(tmp_path / "polars", tmp_path / "spark")


def test_a_redacted_audit_names_each_writer_by_the_same_pseudonym_on_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "a.toml", [{"name": p.name, "uri": str(p)} for p in SAMPLES])
    code_p, polars = audit(capsys, config, tmp_path / "polars", "polars", "--redact")
    code_s, on_spark = audit(capsys, config, tmp_path / "spark", "spark", "--redact")
    assert code_s == code_p
    assert_same_summary(polars, on_spark)
    assert_same_outputs(tmp_path / "polars", tmp_path / "spark")
    written = "".join(p.read_text() for p in (tmp_path / "spark" / "reports").glob("*.json"))
    assert "svc-etl@example.com" not in written  # the samples' busiest writer
    assert "svc-etl@example.com" in "".join(
        p.read_text(errors="replace") for p in SAMPLE_LOGS.glob("*/_delta_log/*.json")
    )
