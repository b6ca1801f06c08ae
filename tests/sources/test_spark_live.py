"""One live run: a real Delta 4.4 / Spark 4.2 application writes its event log and driver log
while the gated log store forces conflicts on three tables; the harvest, given only the log
folders and the tables, must find every conflict the application caught, with the right
table, winner and exception, and report no other failure as a conflict (tests/sources/
spark_failures.py; the committed fixtures come from the same script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.sources import harvest
from tests.realspark.engines import by_key, install
from tests.realspark.harness import run_in_engine
from tests.sources.support import expected_conflicts, fixture_tables

SCRIPT = Path(__file__).with_name("spark_failures.py")


@pytest.mark.spark
@pytest.mark.heavy(120)
def test_a_live_application_s_conflicts_are_all_harvested(tmp_path: Path) -> None:
    installed = install(by_key("delta-4.4.0"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([{"name": "live", "codec": "zstd"}]))
    out = tmp_path / "truth.jsonl"
    run_in_engine(installed, [SCRIPT, plan, out, tmp_path], tmp_path / "run.log", timeout=600)
    expected = expected_conflicts(tmp_path)
    assert len(expected) == 9, (tmp_path / "run.log").read_text()[-3000:]
    tables = fixture_tables(tmp_path, str(tmp_path / "tables"))
    result = harvest([str(tmp_path / "eventlogs"), str(tmp_path / "driver")], tables)
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == expected
    assert len(result.conflicts) == len(expected)
    assert result.unmatched == () and result.diagnostics == ()
    assert all(len(c.sources) == 2 for c in result.conflicts)  # event log and driver log
