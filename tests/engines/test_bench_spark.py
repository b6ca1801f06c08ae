"""``benchmarks/bench_spark.py --quick`` runs end to end and prints every figure (never timed)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.spark

LINES = [
    r"^generated: 4 tables x 5 commits .* one log of 2,000 commits ",
    r"^fleet audit: 4 tables, 20 commits$",
    r"^  polars engine +\d+\.\d\d s$",
    r"^  spark local\[2\], first job in the session +\d+\.\d\d s$",
    r"^  spark local\[2\], warm +\d+\.\d\d s$",
    r"^  spark warm / polars +\d+\.\d\dx$",
    r"^  reports identical, every table ok +yes$",
    r"^one log: 2,000 commits, [\d,]+ actions$",
    r"^  polars engine, load\(history\) +\d+\.\d\d s$",
    r"^  spark local\[2\], load\(history\), parse on driver +\d+\.\d\d s$",
    r"^  spark local\[2\], fleet_frames, parse on executor +\d+\.\d\d s$",
    r"^  spark \(driver parse\) / polars +\d+\.\d\dx$",
    r"^  spark \(executor parse\) / polars +\d+\.\d\dx$",
    r"^  frames identical +yes$",
    r"^spark session start \(local\[2\]\): \d+\.\d\d s$",
    r"^cross-checks: ok$",
]


def test_the_quick_benchmark_prints_every_figure(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location(
        "bench_spark", REPO / "benchmarks" / "bench_spark.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = tmp_path / "figures.json"
    code = bench.main(["--quick", "--json", str(figures), "--workdir", str(tmp_path / "work")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(out)
    assert len(out) == len(LINES), "\n".join(out)
    for pattern, printed in zip(LINES, out, strict=True):
        assert re.search(pattern, printed), (pattern, printed)
    doc = json.loads(figures.read_text())
    assert doc["fleet"]["races"] >= 0
    assert set(doc["big"]) >= {"polars_s", "spark_driver_parse_s", "spark_executor_parse_s"}
