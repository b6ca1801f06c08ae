"""``benchmarks/bench_spark.py --quick`` runs end to end and prints every figure (never timed).

The fleet's Spark runs start two more local sessions (``local[1]``, ``local[2]``), each in a
process of its own, beside the test session, which the benchmark's huge-log read reuses.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.spark, pytest.mark.heavy(170)]

TIMED = r"\d+\.\d\d s +\d+\.\d cpu-s +load \d+\.\d$"  # wall, CPU of the process tree, load
NUMBER = r"-?\d+\.\d+"
LINES = [
    r"^generated: 4 tables x 5 commits .* one log of 2,000 commits ",
    r"^fleet audit: 4 tables, 20 commits; also the first 1 \(load \d+\.\d\)$",
    rf"^  polars engine --jobs 1, 4 tables +{TIMED}",
    rf"^  polars engine --jobs 1, 1 tables +{TIMED}",
    rf"^  polars engine --jobs 2, 4 tables +{TIMED}",
    rf"^  polars engine --jobs 2, 1 tables +{TIMED}",
    *(
        row
        for master in (r"local\[1\]", r"local\[2\]")
        for row in (
            rf"^  spark {master}: session start +\d+\.\d\d s$",
            rf"^  spark {master}: first job, 1 tables +{TIMED}",
            rf"^  spark {master}: 4 tables +{TIMED}",
            rf"^  spark {master}: 1 tables +{TIMED}",
        )
    ),
    r"^  reports identical, every table ok +yes$",
    r"^scale-out \(best runs\):$",
    rf"^  spark on 1 core\(s\): 4 tables per second +{NUMBER}$",
    rf"^  spark on 2 core\(s\): 4 tables per second +{NUMBER}$",
    rf"^  throughput gain, 1 -> 2 core\(s\) +{NUMBER}x$",
    rf"^  CPU seconds, same runs +{NUMBER} +{NUMBER}$",
    rf"^  per table: polars --jobs 1 +{NUMBER} s$",
    rf"^  per table: polars --jobs 2 +{NUMBER} s$",
    rf"^  per table: spark on 1 core\(s\) +{NUMBER} s$",
    rf"^  fixed per run: spark on 1 core\(s\) +{NUMBER} s$",
    rf"^  per table: spark on 2 core\(s\) +{NUMBER} s$",
    rf"^  fixed per run: spark on 2 core\(s\) +{NUMBER} s$",
    rf"^  per-table overhead: spark 1 core - polars --jobs 1 +{NUMBER} s$",
    rf"^  model: per table on the driver, on executors +{NUMBER} +{NUMBER} s$",
    rf"^  model: session start \+ JIT warm-up +{NUMBER} s$",
    r"^extrapolated, not measured: fleet size where spark on C cores beats --jobs C$",
    *(
        rf"^  C={c}: session running, session started by the run +([\d,]+|never) +([\d,]+|never)$"
        for c in (2, 4, 8, 16, 32, 64)
    ),
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
    assert {s["cores"] for s in doc["fleet"]["spark"].values()} == {1, 2}
    assert set(doc["scale_out"]) >= {"gain", "per_table_overhead_s", "model", "overtakes"}
    assert set(doc["big"]) >= {"polars_s", "spark_driver_parse_s", "spark_executor_parse_s"}
