"""Every command offers the formats its peers do (issue #32, item 9): ``history`` and
``snapshot`` write Markdown (cells escaped and cut at 120 characters), ``whatif`` writes a
standalone HTML page escaped like the explain page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli.app import main
from tests.strategies import PROTOCOL, metadata, write_log

LONG = "id = 1 OR " * 40 + "`x` | <script>alert(1)</script>"
HOSTILE_PATH = "part-<b>x</b>|`y`.parquet"


def _commit(
    version: int, operation: str, params: dict[str, Any], path: str
) -> list[dict[str, Any]]:
    info = {
        "timestamp": 1_700_000_000_000 + version,
        "operation": operation,
        "operationParameters": params,
        "isolationLevel": "Serializable",
        "isBlindAppend": False,
        **({"readVersion": 0} if version else {}),
    }
    add = {
        "path": path,
        "partitionValues": {},
        "size": 4,
        "modificationTime": 1,
        "dataChange": True,
    }
    return [{"commitInfo": info}, {"add": add}]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    write_log(
        tmp_path,
        [
            [
                {"protocol": PROTOCOL},
                {"metaData": metadata(False)},
                *_commit(0, "WRITE", {}, "a.parquet"),
            ],
            _commit(1, "DELETE", {"predicate": json.dumps([LONG])}, HOSTILE_PATH),
            _commit(2, "DELETE", {"predicate": json.dumps(["id = 2"])}, "c.parquet"),
        ],
    )
    return tmp_path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_history_markdown_escapes_and_cuts_cells_at_120(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(["history", str(table), "--format", "markdown"], capsys)
    rows = [line for line in out.splitlines() if line.startswith("| 1 |")]
    assert len(rows) == 1
    cells = rows[0].split(" | ")
    predicate = next(c for c in cells if c.startswith("predicate"))
    assert predicate.endswith("…") and "<script>" not in out
    assert len(predicate.replace("\\", "")) <= 120
    assert "| version | timestamp | operation |" in out


def test_snapshot_markdown_escapes_paths(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["snapshot", str(table), "--format", "markdown"], capsys)
    assert "| path | partition | size | deletion vector |" in out
    assert "part-&lt;b&gt;x&lt;/b&gt;\\|\\`y\\`.parquet" in out
    assert "<b>" not in out


def test_whatif_html_is_a_standalone_escaped_page(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(
        ["whatif", str(table), "--isolation", "WriteSerializable", "--format", "html"], capsys
    )
    assert out.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in out
    assert "<script" not in out and "<h2>Pairs</h2>" in out
    assert "What if" in out and "</html>" in out
