"""The scale benchmark scripts run end to end at their smallest setting, so they cannot rot.

Only the shape of the output is checked (figure lines, deltalake's cross-check), never a time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("deltalake")

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"

pytestmark = [pytest.mark.slow, pytest.mark.engine]


def _run(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _rows(out: str, scenario: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if (
            len(cells) > 3
            and cells[0] == scenario
            and cells[2] in {"history", "snapshot", "explain"}
        ):
            rows[cells[2]] = cells
    return rows


def test_commits_quick_reports_every_command_against_deltalake(tmp_path: Path) -> None:
    out = _run(str(BENCH / "bench_scale.py"), "commits", "--quick", "--scratch", str(tmp_path))
    assert out.startswith("machine: ")
    rows = _rows(out, "commits")
    assert set(rows) == {"history", "snapshot", "explain"}
    for cells in rows.values():
        assert cells[1] == "300"
        assert cells[11:13] == ["files", "ok"]  # deltalake agrees on the live files
        assert cells[9].endswith("x")  # a ratio, so both sides ran
        assert cells[10].endswith("x")
    assert "no explain in deltalake" in out
    assert "load average" in out


@pytest.mark.heavy(40)
def test_checkpoint_quick_runs_multipart_and_v2_with_growth_over_sizes(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    out = _run(
        str(BENCH / "bench_scale.py"),
        "checkpoint",
        "--quick",
        "--sizes",
        "1000,2000",
        "--scratch",
        str(tmp_path),
        "--json",
        str(figures),
    )
    for kind in ("multipart", "v2"):
        rows = _rows(out, f"checkpoint/{kind}")
        assert set(rows) == {"history", "snapshot"}
        assert all(cells[11:13] == ["files", "ok"] for cells in rows.values())
    assert "growth" in out
    data = json.loads(figures.read_text())
    assert {(f["scenario"], f["size"]) for f in data} == {
        (f"checkpoint/{k}", s) for k in ("multipart", "v2") for s in (1000, 2000)
    }


def test_generated_v2_checkpoint_table_is_read_alike_by_deltalake_and_deltaforensics(
    tmp_path: Path,
) -> None:
    out_dir = tmp_path / "t"
    _run(
        str(BENCH / "gen_checkpoint_log.py"),
        "--files",
        "500",
        "--commits",
        "20",
        "--kind",
        "v2",
        "--sidecars",
        "3",
        "--out",
        str(out_dir),
        "--verify",
        "--quiet",
    )
    manifest = json.loads((out_dir / "synthetic_manifest.json").read_text())
    assert len(list((out_dir / "_delta_log" / "_sidecars").glob("*.parquet"))) == 3
    doc = json.loads(_run("-m", "deltaforensics", "snapshot", str(out_dir), "--format", "json"))
    assert doc["num_files"] == manifest["live_files"]
    assert doc["version"] == manifest["last_version"]
