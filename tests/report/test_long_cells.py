"""Issue #32 item 7: a table cell shows at most 120 characters of a log's (or a user's)
string, marked ``…``; the JSON report keeps it whole. Before, ``history`` at a terminal
printed a 50 MB predicate as 694,452 lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.report.plain import MAX_CELL, cut
from tests.hostile.test_damaged_logs import METADATA, PROTOCOL, add, lines
from tests.hostile.test_odd_logs import commit_info

PREDICATE = "id IN (" + ", ".join(str(i) for i in range(100_000)) + ")"  # ~590 kB


def _log(root: Path) -> Path:
    """v2 a DELETE that read v0 with a huge predicate, by a user with a long name."""
    big = commit_info("DELETE", 0)
    big["commitInfo"]["operationParameters"] = {"predicate": json.dumps([PREDICATE])}
    big["commitInfo"]["userName"] = "u" * 500
    log = root / "_delta_log"
    log.mkdir(parents=True)
    commits = [
        [commit_info("CREATE TABLE", None), PROTOCOL, METADATA],
        [commit_info("WRITE", 0), add("a")],
        [big, add("b")],
    ]
    for v, actions in enumerate(commits):
        (log / f"{v:020d}.json").write_bytes(lines(*actions))
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return out


def test_cut_marks_what_it_leaves_out() -> None:
    assert cut("x" * MAX_CELL) == "x" * MAX_CELL
    assert cut("x" * (MAX_CELL + 1)) == "x" * (MAX_CELL - 1) + "…"
    assert len(cut("y" * 10_000_000)) == MAX_CELL


@pytest.mark.parametrize("columns", ["80", "160"])
def test_history_at_a_terminal_shows_a_huge_predicate_in_a_few_lines(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    columns: str,
) -> None:
    root = str(_log(tmp_path / "t"))
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", columns)
    out = _run(capsys, "history", root)
    assert len(out.splitlines()) < 20, len(out.splitlines())
    assert 'predicate=["id IN (0, 1, 2' in out and "…" in out
    assert "u" * 110 in out.replace("\n", "").replace(" ", "")
    # the JSON keeps every character
    doc = json.loads(_run(capsys, "history", root, "--format", "json"))
    assert json.loads(doc["commits"][2]["operation_parameters"]["predicate"]) == [PREDICATE]
    assert doc["commits"][2]["user_name"] == "u" * 500


def test_a_markdown_table_cuts_a_long_attempt_statement(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = str(_log(tmp_path / "t"))
    statement = "DELETE FROM t WHERE id IN (" + ", ".join(map(str, range(2000))) + ")"
    out = _run(
        capsys,
        *("explain", root, "--attempt", statement, "--read-version", "0"),
        *("--format", "markdown", "--no-recommendations"),
    )
    (row,) = [r for r in out.splitlines() if r.startswith("| `DELETE FROM t")]
    assert len(row) < MAX_CELL + 200 and "…" in row, len(row)
