"""Issue #32, items 1–5: the last crash, hang and injection a hostile or odd ``_delta_log``
could cause. Each test runs the real CLI in-process on a log written here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.test_damaged_logs import METADATA, PROTOCOL, add, lines, run

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def commit_info(operation: str, read: int | None, ts: Any = 1_700_000_000_000) -> dict[str, Any]:
    info: dict[str, Any] = {
        "timestamp": ts,
        "operation": operation,
        "operationParameters": {},
        "isolationLevel": "Serializable",
        "isBlindAppend": False,
        "engineInfo": "Apache-Spark/3.5.0 Delta-Lake/3.1.0",
    }
    if read is not None:
        info["readVersion"] = read
    return {"commitInfo": info}


def race_log(root: Path, *, operation: str = "UPDATE", ts: Any = 1_700_000_000_000) -> Path:
    """v0 CREATE TABLE, v1 a WRITE that read v0, v2 ``operation`` (at ``ts``) that read v0."""
    log = root / "_delta_log"
    log.mkdir(parents=True)
    commits = [
        [commit_info("CREATE TABLE", None), PROTOCOL, METADATA],
        [commit_info("WRITE", 0, ts), add("a")],
        [commit_info(operation, 0), add("b")],
    ]
    for v, actions in enumerate(commits):
        (log / f"{v:020d}.json").write_bytes(lines(*actions))
    return root


# --- 1. the explain timeline's row label -------------------------------------------------


def test_the_timeline_label_shows_a_hostile_operation_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default view at a terminal: ``ESC[2J``, an OSC title and U+202E in the operation
    name of a race are written visibly in the timeline's row label, as everywhere else."""
    root = race_log(tmp_path / "t", operation="UPDATE\u001b[2J\u001b]0;pwned\u0007\u202e")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, err = run(capsys, "explain", str(root))
    assert code in (0, 1), err
    assert "Timeline" in out
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out)  # the report's own styles (bold, dim)
    assert not RAW_CONTROL.search(shown), repr(RAW_CONTROL.search(shown))
    label = next(line for line in shown.splitlines() if line.startswith("v0→v2"))
    assert label.startswith("v0→v2 UPDATE\\x1b[2J"), label
