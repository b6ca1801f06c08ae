"""The audit's ``[[failures]]`` sources (issue #33): every conflict Spark recorded on the audited
tables reported once, with its winner and rule; an incremental run reports only new ones.

Real components: the event log Spark 4.2.0 wrote (rolled layout, Delta 4.4.0) while three
tables conflicted, and those tables' own ``_delta_log`` (tests/sources/fixtures/spark-4.2); the
tables are copied under the test's folder and the log's paths moved with them, as the
plans and messages name where the tables lie."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from deltaforensics.audit.failure_sources import cursor_path
from deltaforensics.sources.codecs import decoded_pieces
from tests.audit.test_audit import run, summary_of
from tests.sources.support import FIXTURES, WRITTEN_AT, truth

APP = "local-1795858564300"
ROLLED = FIXTURES / "eventlogs" / f"eventlog_v2_{APP}" / f"events_1_{APP}.zstd"
SPLIT = 68  # part 1 ends after t0's second failure, inside its third statement


def _fleet(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Three tables, the rolled event log's folder (empty yet), and the log's lines."""
    for i in range(3):
        shutil.copytree(FIXTURES / "tables" / f"rolled_t{i}", tmp_path / "tables" / f"t{i}")
    with ROLLED.open("rb") as stream:
        text = b"".join(decoded_pieces(stream)).decode()
    text = text.replace(f"{WRITTEN_AT}/rolled_t", f"{tmp_path}/tables/t")
    folder = tmp_path / "spark-events" / f"eventlog_v2_{APP}"
    folder.mkdir(parents=True)
    config = tmp_path / "audit.toml"
    lines = ['output = "out"', 'state = "state"']
    for i in range(3):
        lines += ["[[tables]]", f'name = "t{i}"', f'uri = "tables/t{i}"']
    lines += ["[[failures]]", 'path = "spark-events"', 'kind = "eventlog"']
    config.write_text("\n".join(lines) + "\n")
    return config, folder, text.splitlines(keepends=True)


def _conflicts(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        name: json.loads((out / "reports" / f"{name}.json").read_text())["conflicts"]
        for name in ("t0", "t1", "t2")
    }


def _expected(table: int) -> list[tuple[int, str]]:
    return sorted(
        (int(str(r["tried_after"])), str(r["outcome"]))
        for r in truth()
        if r["table"] == f"{WRITTEN_AT}/rolled_t{table}" and r["outcome"] != "commits"
    )


def test_audit_reports_each_recorded_conflict_once_then_only_new_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, folder, lines = _fleet(tmp_path)
    out = tmp_path / "out"
    (folder / f"events_1_{APP}").write_text("".join(lines[:SPLIT]))

    code, _, err = run(capsys, "audit", str(config), "--fail-on", "conflict")
    assert code == 1, err  # the conflicts fail the gate
    summary = summary_of(out)
    first = _conflicts(out)
    assert [(c["winner_version"], c["exception"]) for c in first["t0"]] == _expected(0)[:2]
    assert first["t1"] == first["t2"] == []
    for c in first["t0"]:
        assert c["source"] == "eventlog" and c["app_id"] == APP and c["code"]
        assert c["loser"]["statement"] and c["started_at"] <= c["failed_at"]
    assert summary["totals"]["conflicts"] == 2
    assert [e["fail_on_hits"] for e in summary["tables"]] == [["conflict"], [], []]
    rows = pl.read_parquet(out / "datasets" / "conflicts" / "table=t0" / "part-0.parquet")
    assert rows["source"].to_list() == ["eventlog", "eventlog"]
    assert rows["app_id"].to_list() == [APP, APP]
    assert rows["winner_version"].to_list() == [v for v, _ in _expected(0)[:2]]
    cursor = cursor_path(tmp_path / "state").read_text()
    assert "Transaction conflict" not in cursor and "DELETE" not in cursor  # no text kept

    # nothing new: nothing reported again
    code, _, err = run(capsys, "audit", str(config))
    assert code == 0, err
    assert all(c == [] for c in _conflicts(out).values())
    assert summary_of(out)["failures"][0]["logs_unchanged"] == 1

    # Spark rolls the log: the new part holds t0's third failure (its statement started in
    # part 1) and t1's and t2's; only those are reported, each once, with its start
    (folder / f"events_2_{APP}").write_text("".join(lines[SPLIT:]))
    code, _, err = run(capsys, "audit", str(config), "--fail-on", "conflict")
    assert code == 1, err
    second = _conflicts(out)
    assert [(c["winner_version"], c["exception"]) for c in second["t0"]] == _expected(0)[2:]
    assert second["t0"][0]["started_at"] is not None
    for i in (1, 2):
        assert [(c["winner_version"], c["exception"]) for c in second[f"t{i}"]] == _expected(i)
        assert all(c["code"] and c["reason"] for c in second[f"t{i}"])
    summary = summary_of(out)
    assert summary["totals"]["conflicts"] == 7
    assert summary["failures"][0]["failures_seen_before"] == 2


def test_an_unreadable_failures_source_fails_the_run_not_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, folder, _ = _fleet(tmp_path)
    shutil.rmtree(folder.parent)
    code, _, _ = run(capsys, "audit", str(config))
    summary = summary_of(tmp_path / "out")
    assert code == 3
    assert summary["failures"][0]["status"] == "failed"
    assert "spark-events" in summary["failures"][0]["error"]
    assert [e["status"] for e in summary["tables"]] == ["ok"] * 3
