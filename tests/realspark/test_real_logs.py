"""Logs real Delta-Spark releases wrote in the harness, kept as test data (no data files).

``python scripts/fidelity.py keep`` copied each pair's ``_delta_log`` as Spark left it on a
local path (Hadoop's ``.N.json.crc`` checksums, Delta's ``N.crc``, the empty ``_commits/``
folder of 3.x/4.x) with the engine's record: the real outcome and, for a loser that failed,
the exception text. They are read here without Spark, in every run. Those of ``cases.misses()`` are the classes
of miss issue #34 found (data skipping, OPTIMIZE's read set, REORG … APPLY (PURGE), an engine
error outside the checker), each run on purpose with the harness; those of
``cases.dataframe_writes()`` each DataFrame write mode as a loser, its attempt given as the
DataFrame call itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from tests.realspark.cases import dataframe_writes, matrix, misses
from tests.realspark.checks import check
from tests.realspark.engines import DELTA_SPARK, by_key

LOGS = Path(__file__).with_name("logs")
KEPT = sorted(p for p in LOGS.glob("delta-*/*") if (p / "record.json").is_file())


def _report(table: Path, tmp_path: Path) -> dict:
    out = tmp_path / "report.json"
    assert main(["explain", str(table), "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def test_every_release_left_real_logs() -> None:
    engines = {p.parent.name for p in KEPT}
    assert {e.key for e in DELTA_SPARK} <= engines
    outcomes = {json.loads((p / "record.json").read_text())["outcome"] for p in KEPT}
    assert {"commits", "ConcurrentAppendException", "ConcurrentDeleteReadException"} <= outcomes


@pytest.mark.parametrize("table", KEPT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_real_spark_log_reads_clean_and_its_pair_is_explained(
    table: Path, tmp_path: Path
) -> None:
    record = json.loads((table / "record.json").read_text())
    engine = by_key(table.parent.name)
    report = _report(table, tmp_path)
    junk = [d for d in report["diagnostics"] if d["code"] == "W106"]
    assert not junk, "Spark's own files are not junk: " + junk[0]["message"] if junk else ""
    release = engine.delta.rsplit(".", 1)[0]
    assert all(f"delta-spark {release}" in r["profile"] for r in report["races"]), report["races"]
    release = engine.major_minor
    cases = matrix(release) + misses(release) + dataframe_writes(release)
    case = next(c for c in cases if c.id == record["id"])
    record = {**record, "table": str(table), "raced": True, "message": ""}
    for verdict in check(case, record):
        assert verdict.agrees, f"{verdict.check}: engine {verdict.real}, model {verdict.predicted}"
