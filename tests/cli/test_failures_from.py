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
    log = (tmp_path / "logs" / "local-1795858444023").read_text()
    messages = (
        json.loads(line)["errorMessage"]
        for line in log.splitlines()
        if "SQLExecutionEnd" in line and "concurrent" in line.lower()
    )
    return "\n".join(messages)


@pytest.mark.parametrize("command", ["explain", "whatif"])
def test_failures_from_reads_the_tables_conflicts_as_error_texts(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _moved(tmp_path)
    change = ["--partition-by", "country"] if command == "whatif" else []
    args = [command, str(table), *change, "--failures-from", str(logs), "--format", "json"]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    doc = json.loads(out)
    if command == "explain":
        found = [c for c in doc["conflicts"] if c.get("source") == "error"]
        assert sorted(c["winner_version"] for c in found) == [2, 3, 4]
    else:
        # harvested failures count as seen conflicts as pasted --error texts do (issue #31
        # item 2): here no text names a job of the log, so the three are seen, unmeasured
        assert doc["evaluated_on"]["errors"] == 3 and doc["unknown"] == 3
        pasted = tmp_path / "pasted.log"
        pasted.write_text(_message(tmp_path))
        assert main([command, str(table), *change, "--error", str(pasted), "--format", "json"]) == 0
        from_text = json.loads(capsys.readouterr().out)
        # the event log repeats each failure in its nested executions: pasted, every
        # repetition is a conflict seen (the harvest de-duplicates them)
        assert from_text["evaluated_on"]["errors"] == from_text["unknown"] >= 3
        assert from_text["writer_matrix"] == doc["writer_matrix"]


def test_failures_from_an_unreadable_source_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, _ = _moved(tmp_path)
    missing = tmp_path / "no-logs"
    code = main(["explain", str(table), "--failures-from", str(missing), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 3
    assert str(missing) in err
