"""The issue #23 benchmark runs end to end at its smallest setting, so it cannot rot.

Only the shape of the output is checked (every row ran, each ratio has both sides, the window
read its newest checkpoint), never a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("deltalake")

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"

pytestmark = [pytest.mark.slow, pytest.mark.engine]


@pytest.mark.heavy(25)
def test_quick_run_prints_every_row_and_ratio(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    args = ["--quick", "--scratch", str(tmp_path), "--json", str(figures)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_bounded.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for label in ("floor 300", "explain 300", "deltalake history 300", "history 300"):
        assert f" {label} " in f" {out} ", label
    assert "files=300 rows=" in out  # the floor read and parsed every commit file
    # the window (the last 300 of 3,000 commits, checkpoints at 850 and 1,700) starts from the
    # newest checkpoint before its lookback and reads only the commits after it
    assert "checkpoint v1700 + 1,299 commit files (v1701..); window v2700..v2999" in out
    # the window's floor read the same checkpoint and commit files
    assert "checkpoint=" in out and "(7,668 rows) commits=" in out and "(1,299 files)" in out
    assert " deltalake DeltaTable(), 3,000 " in out and "version=2999" in out
    ratios = [line for line in out.splitlines() if " / " in line]
    assert len(ratios) == 5
    # a wall and a CPU ratio on every line, so both sides of each pair ran
    assert all(len(re.findall(r" \d+\.\d\dx ", line)) == 2 for line in ratios)
    data = json.loads(figures.read_text())
    assert set(data) == {"explain-300", "history-300", "window"}
    assert data["window"]["ours"]["status"] == 0
