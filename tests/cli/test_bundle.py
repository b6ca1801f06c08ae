"""The Databricks Asset Bundle of docs/ci-gate.md (examples/databricks/) runs this version's
console script with options the audit has: its task's parameters are run here, on a Volume
stand-in, with the polars engine instead of the cluster's Spark (no workspace in the tests)."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from deltaforensics.cli import main
from tests.conftest import REPO, SAMPLE_LOGS

BUNDLE = REPO / "examples" / "databricks"


def _task() -> tuple[dict[str, Any], dict[str, Any]]:
    bundle = yaml.safe_load((BUNDLE / "databricks.yml").read_text())
    (job,) = bundle["resources"]["jobs"].values()
    (task,) = job["tasks"]
    return bundle, task


def test_the_bundle_runs_the_console_script_of_this_package() -> None:
    bundle, task = _task()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    wheel = task["python_wheel_task"]
    assert wheel["package_name"] == "deltaforensics" and wheel["entry_point"] in scripts
    used = set(re.findall(r"\$\{var\.(\w+)\}", (BUNDLE / "databricks.yml").read_text()))
    assert used <= set(bundle["variables"])


def test_the_bundle_task_runs_and_gates_with_its_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, task = _task()
    volume = tmp_path / "volume"
    volume.mkdir()
    table = tmp_path / "optimize"
    shutil.copytree(SAMPLE_LOGS / "deltars_concurrent_optimize", table)  # two anomalies
    (volume / "audit.toml").write_text(
        f'output = "out"\nrecommendations = false\n[[tables]]\nname = "optimize"\nuri = "{table}"\n'
    )
    params = [
        p.replace("${var.volume}", str(volume)) for p in task["python_wheel_task"]["parameters"]
    ]
    at = params.index("--engine")
    del params[at : at + 2]  # the cluster's Spark; polars reads the same frames here
    (volume / "out").mkdir()
    baseline = params[params.index("--baseline") + 1]

    assert main([*params[: params.index("--baseline")], "--write-baseline", baseline]) == 1
    assert main(params) == 0  # the accepted anomalies no longer fail the job
    capsys.readouterr()
    junit = Path(params[params.index("--junit-xml") + 1])
    assert junit.is_file() and 'skipped="2"' in junit.read_text()
    summary = json.loads((volume / "out" / "summary.json").read_text())
    assert summary["tables"][0]["status"] == "ok"
