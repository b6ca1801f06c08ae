"""``audit --engine spark`` with ``[[failures]]`` sources: the failures are read on the driver
before the job and each table's are reported on the executors exactly as the polars engine
reports them (the real Spark 4.2 event log and tables of tests/sources/fixtures/spark-4.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deltaforensics.audit.failure_sources import cursor_path
from tests.audit.test_audit_failures import SPLIT, _fleet
from tests.engines.test_spark_audit import assert_same_outputs, assert_same_summary, audit

pytestmark = pytest.mark.spark


def test_harvested_conflicts_are_the_same_on_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, folder, lines = _fleet(tmp_path)
    (folder / folder.name.replace("eventlog_v2_", "events_1_")).write_text("".join(lines[:SPLIT]))
    states = {e: tmp_path / f"state-{e}" for e in ("polars", "spark")}
    first = {
        e: audit(capsys, config, tmp_path / e, e, "--state", str(s), "--fail-on", "conflict")
        for e, s in states.items()
    }
    assert first["spark"][0] == first["polars"][0] == 1
    assert first["spark"][1]["totals"]["conflicts"] == 2
    assert_same_summary(first["polars"][1], first["spark"][1])
    assert_same_outputs(tmp_path / "polars", tmp_path / "spark")
    cursors = [cursor_path(s).read_text() for s in states.values()]
    assert cursors[0] == cursors[1]
