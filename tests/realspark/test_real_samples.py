"""The sample logs a real Delta-Spark wrote (sample_logs/, scripts/real_spark_samples.py): the
model judged against what the engine did, with the checks of checks.py, in every run.

Their ``expected.json`` holds the engine's records: every held statement that committed behind
the table (``survived-race``) and every one that failed (``failed-race``, with the exception
text a driver log shows and the winner that text names). For each, through the CLI's JSON:
(a) a survived race says ``commits`` with no W401; (b) ``explain --error`` with the real text
names the same exception and winner; (c) ``explain --attempt`` of the statement at its read
version predicts the real outcome (and winner).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main

SAMPLE_LOGS = Path(__file__).resolve().parents[2] / "sample_logs"
# sample -> the engineInfo every commit of it carries
REAL = {"schema_change_during_writes": "Apache-Spark/3.5.3 Delta-Lake/3.3.2"}


def _facts(sample: str) -> dict[str, Any]:
    facts: dict[str, Any] = json.loads((SAMPLE_LOGS / sample / "expected.json").read_text())
    return facts


def _races(kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(s, f) for s in REAL for f in _facts(s)["findings"] if f["kind"] == kind]


def _explain(sample: str, tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    table = str(SAMPLE_LOGS / sample)
    assert main(["explain", table, "--format", "json", "--output", str(out), *args]) == 0
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def _id(case: tuple[str, dict[str, Any]]) -> str:
    sample, f = case
    return f"{sample}-r{f['read_version']}-" + str(f.get("version", f.get("winner_version")))


def test_every_real_sample_was_written_by_its_engine_and_has_both_kinds_of_race() -> None:
    for sample, engine in REAL.items():
        kinds = {f["kind"] for f in _facts(sample)["findings"]}
        assert {"survived-race", "failed-race"} <= kinds, sample
        for commit in sorted((SAMPLE_LOGS / sample / "_delta_log").glob("*.json")):
            info = json.loads(commit.read_text().splitlines()[0])["commitInfo"]
            assert info["engineInfo"] == engine, commit.name
        data = [p for p in (SAMPLE_LOGS / sample).rglob("*.parquet") if "_delta_log" not in p.parts]
        assert not data, "a log only (its checkpoints), no data files"


@pytest.mark.parametrize("case", _races("survived-race"), ids=_id)
def test_a_race_the_engine_let_commit_commits_in_explain(
    case: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    sample, f = case
    report = _explain(sample, tmp_path)
    race = next(r for r in report["races"] if r["version"] == f["version"])
    assert (race["read_version"], race["outcome"]) == (f["read_version"], "commits")
    assert not [d for d in report["diagnostics"] if d["code"] == "W401"]
    attempt = _explain(sample, tmp_path, "--attempt", f["statement"], "--read-version",
                       str(f["read_version"]), "--to-version", str(f["version"] - 1))  # fmt: skip
    assert attempt["attempts"][0]["outcome"] == "commits", attempt["attempts"][0]["reason"]


@pytest.mark.parametrize("case", _races("failed-race"), ids=_id)
def test_a_race_the_engine_failed_is_named_from_its_error_and_predicted_from_its_sql(
    case: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    sample, f = case
    real = (f["exception"], f["winner_version"])
    error = tmp_path / "driver.log"
    error.write_text(f["error_text"])
    named = _explain(sample, tmp_path, "--error", str(error))
    found = [c for c in named["conflicts"] if c.get("source") == "error"]
    assert found and (found[0]["exception"], found[0]["winner_version"]) == real, found
    attempt = _explain(sample, tmp_path, "--attempt", f["statement"], "--read-version",
                       str(f["read_version"]), "--to-version", str(f["winner_version"]))  # fmt: skip
    predicted = attempt["attempts"][0]
    assert (predicted["outcome"], predicted["winner_version"]) == real, predicted["reason"]
