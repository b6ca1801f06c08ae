"""``explain``/``whatif --failures-from``: the smallest wiring — a harvested failure on the
table is read as an ``--error`` text (real Spark 4.2 event log and driver log, their table)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.sources.codecs import decoded_pieces
from tests.sources.support import FIXTURES, WRITTEN_AT

EVENTLOG = FIXTURES / "eventlogs" / "local-1795858444023.zstd"


def _moved(tmp_path: Path) -> tuple[Path, Path]:
    """The zstd application's log and its table t0, the table moved under ``tmp_path`` and the
    log's paths with it (the plan and the message name where the table lies)."""
    table = tmp_path / "tables" / "zstd_t0"
    shutil.copytree(FIXTURES / "tables" / "zstd_t0", table)
    with EVENTLOG.open("rb") as stream:
        text = b"".join(decoded_pieces(stream))
    log = tmp_path / "logs" / "local-1795858444023"
    log.parent.mkdir()
    log.write_bytes(text.replace(WRITTEN_AT.encode(), str(tmp_path / "tables").encode()))
    return table, log.parent


def _message(tmp_path: Path) -> str:
    """The failures of table t0, as a person would paste them."""
    log = (tmp_path / "logs" / "local-1795858444023").read_text()
    messages = (
        json.loads(line)["errorMessage"]
        for line in log.splitlines()
        if "SQLExecutionEnd" in line and "zstd_t0`" in line
    )
    return "\n".join(messages)


def test_explain_reports_each_harvested_failure_once_with_its_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _moved(tmp_path)
    args = ["explain", str(table), "--failures-from", str(logs), "--format", "json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    found = [c for c in doc["conflicts"] if c["source"] == "eventlog"]
    assert [(c["winner_version"], c["exception"], c["code"]) for c in found] == [
        (2, "ConcurrentDeleteReadException", "DC011"),
        (3, "ConcurrentAppendException", "DC010"),
        (4, "MetadataChangedException", "DC002"),
    ]
    for c in found:
        assert c["app_id"] == "local-1795858444023"
        assert c["started_at"] <= c["failed_at"]
        assert c["loser"]["statement"]
        assert c["records"] == [str(logs / "local-1795858444023")]
    for fmt in ("markdown", "html", "rich"):  # every format says where it was seen
        assert main([*args[:-2], "--format", fmt]) == 0
        shown = capsys.readouterr().out
        assert shown.count("local-1795858444023") >= 3, fmt
        if fmt != "html":
            assert "from the event log of local-1795858444023 at 2026-11-28" in shown
    # the same failure also pasted with --error is one finding, naming both records
    pasted = tmp_path / "pasted.log"
    pasted.write_text(_message(tmp_path))
    assert main([*args, "--error", str(pasted)]) == 0
    again = json.loads(capsys.readouterr().out)["conflicts"]
    assert [c["source"] for c in again] == ["eventlog"] * 3
    assert all(c["records"][-1] == str(pasted) for c in again), again


def test_a_failure_of_another_table_is_never_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One application failed three times on each of three tables: each table gets its own
    three conflicts, none of its siblings' (same winner versions and exceptions)."""
    _, logs = _moved(tmp_path)
    seen = {}
    for name in ("zstd_t0", "zstd_t1", "zstd_t2"):
        table = tmp_path / "tables" / name
        if not table.exists():
            shutil.copytree(FIXTURES / "tables" / name, table)
        args = ["explain", str(table), "--failures-from", str(logs), "--format", "json"]
        assert main(args) == 0
        doc = json.loads(capsys.readouterr().out)
        seen[name] = {
            (c["winner_version"], c["exception"], c["started_at"]) for c in doc["conflicts"]
        }
        assert len(seen[name]) == 3
    assert not seen["zstd_t0"] & seen["zstd_t1"] and not seen["zstd_t1"] & seen["zstd_t2"]


def test_a_message_naming_another_location_is_not_this_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fixture table where it lies, its log naming where Spark wrote it
    (/tmp/sparkfail/tables): the message names another table, so nothing is this one's."""
    table = FIXTURES / "tables" / "zstd_t0"
    args = ["explain", str(table), "--failures-from", str(EVENTLOG), "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["conflicts"] == []


def test_until_keeps_the_failures_of_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--until just after the first failure: only that one is in the window."""
    table, logs = _moved(tmp_path)
    args = ["explain", str(table), "--failures-from", str(logs), "--format", "json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)["conflicts"][0]
    assert main([*args, "--until", str(first["failed_at"] + 1)]) == 0
    kept = json.loads(capsys.readouterr().out)["conflicts"]
    assert [(c["winner_version"], c["failed_at"]) for c in kept] == [
        (first["winner_version"], first["failed_at"])
    ]


def test_the_gate_counts_harvested_conflicts_and_a_baseline_accepts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _moved(tmp_path)
    args = ["explain", str(table), "--failures-from", str(logs), "--format", "json"]
    assert main([*args, "--fail-on", "conflict"]) == 1
    baseline = tmp_path / "baseline.json"
    assert main([*args, "--write-baseline", str(baseline)]) == 0
    assert main([*args, "--fail-on", "conflict", "--baseline", str(baseline)]) == 0
    assert main(["explain", str(table), "--fail-on", "conflict", "--format", "json"]) == 0
    capsys.readouterr()


def test_whatif_reads_the_harvested_failures_as_it_reads_the_pasted_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _moved(tmp_path)
    args = ["whatif", str(table), "--partition-by", "country", "--format", "json"]
    assert main([*args, "--failures-from", str(logs)]) == 0
    harvested = json.loads(capsys.readouterr().out)
    pasted = tmp_path / "pasted.log"
    pasted.write_text(_message(tmp_path))
    assert main([*args, "--error", str(pasted)]) == 0
    # whatif counts neither as seen conflicts yet (the answers issue): only equal reading here
    assert json.loads(capsys.readouterr().out) == harvested


def test_a_damaged_part_is_a_w503_naming_it_and_the_rest_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _moved(tmp_path)
    damaged = logs / "local-1795858490825.lz4"
    data = (FIXTURES / "eventlogs" / damaged.name).read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    args = ["explain", str(table), "--failures-from", str(logs), "--format", "json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["conflicts"]) == 3
    (w503,) = [d for d in doc["diagnostics"] if d["code"] == "W503"]
    assert str(damaged) in w503["message"]


def test_failures_from_an_unreadable_source_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, _ = _moved(tmp_path)
    missing = tmp_path / "no-logs"
    code = main(["explain", str(table), "--failures-from", str(missing), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 3
    assert str(missing) in err
