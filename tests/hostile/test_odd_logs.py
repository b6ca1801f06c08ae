"""Issue #32, items 1–5: the last crash, hang and injection a hostile or odd ``_delta_log``
could cause. Each test runs the real CLI in-process on a log written here."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.evidence.bounded import read_bounded
from tests.hostile.test_damaged_logs import METADATA, PROTOCOL, add, lines, run

REPO = Path(__file__).resolve().parents[2]

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


def race_log(
    root: Path, *, operation: str = "UPDATE", ts: Any = None, at: int = 1_700_000_000_000
) -> Path:
    """v0 CREATE TABLE, v1 a WRITE that read v0, v2 ``operation`` that read v0; every commit
    at ``at`` but v1 at ``ts`` when given."""
    log = root / "_delta_log"
    log.mkdir(parents=True)
    commits = [
        [commit_info("CREATE TABLE", None, at), PROTOCOL, METADATA],
        [commit_info("WRITE", 0, at if ts is None else ts), add("a")],
        [commit_info(operation, 0, at), add("b")],
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


# --- 2. a commit time no date shows ---------------------------------------------------------

NOW_MS = int(time.time() * 1000) - 3_600_000  # an hour ago: inside --since 7d


def _w207(diagnostics: list[dict[str, Any]]) -> list[int | None]:
    return [d["version"] for d in diagnostics if d["code"] == "W207"]


@pytest.mark.parametrize("ts", [1764300000000000001, 2**63, 1e300], ids=["ns", "2^63", "1e300"])
def test_a_time_no_date_shows_is_a_missing_time_with_a_warning_in_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, ts: Any
) -> None:
    root = race_log(tmp_path / "t", ts=ts, at=NOW_MS)
    t = str(root)
    for command in (
        ("history", "--since", "7d"),
        ("history",),
        ("explain", "--since", "7d", "--format", "markdown"),
        ("whatif", t, "--since", "7d", "--isolation", "WriteSerializable"),
    ):
        argv = command if command[0] == "whatif" else (command[0], t, *command[1:])
        code, out, err = run(capsys, *argv)
        assert code in (0, 1), (command, err)
        assert "W207" in out + err, (command, out[-500:], err)
    code, out, err = run(capsys, "history", t, "--format", "json")
    doc = json.loads(out)
    assert [c["timestamp"] for c in doc["commits"]] == [NOW_MS, None, NOW_MS]
    assert _w207(doc["diagnostics"]) == [1]
    assert "(version 1)" in run(capsys, "history", t)[2]
    code, out, err = run(capsys, "explain", t, "--format", "json")
    assert _w207(json.loads(out)["diagnostics"]) == [1]
    at = datetime.fromtimestamp(NOW_MS / 1000, UTC).isoformat()
    code, out, err = run(capsys, "snapshot", t, "--at", at)
    assert code == 0, err
    assert "v1: a time no date shows, read as none (W207)" in out, out


# --- 3. what is not a regular file, and evidence without end --------------------------------


def _cli(*argv: str, stdin: Any = None) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process: a read that blocks ends the child, not the suite."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "deltaforensics", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=stdin,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_entries_of_the_log_that_are_not_regular_files_are_skipped_never_read(
    tmp_path: Path,
) -> None:
    """A FIFO named as the next commit (reading it blocked ``snapshot`` forever), a socket and
    a link to ``/dev/zero`` (an endless read): listed as junk (W106), never opened."""
    root = race_log(tmp_path / "t")
    log = root / "_delta_log"
    os.mkfifo(log / f"{3:020d}.json")
    (log / f"{4:020d}.json").symlink_to("/dev/zero")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(log / "_last_checkpoint"))
        done = _cli("snapshot", str(root), "--format", "json")
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        assert doc["version"] == 2
        (junk,) = [d["message"] for d in doc["diagnostics"] if d["code"] == "W106"]
        for name in (f"{3:020d}.json", f"{4:020d}.json", "_last_checkpoint"):
            assert f"{name} (not a regular file)" in junk, junk
        for command in (("history",), ("explain", "--format", "json")):
            done = _cli(command[0], str(root), *command[1:])
            assert done.returncode in (0, 1), (command, done.stderr)


def test_an_endless_error_file_is_read_to_64_mb_with_a_warning(tmp_path: Path) -> None:
    root = race_log(tmp_path / "t")
    started = time.monotonic()
    done = _cli("explain", str(root), "--error", "/dev/zero", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert "--error /dev/zero: only its first 64 MB were read" in done.stderr
    assert time.monotonic() - started < 60


def test_evidence_is_read_no_further_than_the_bound() -> None:
    class Endless(io.RawIOBase):
        served = 0

        def readinto(self, buffer: Any) -> int:
            buffer[:] = b"a" * len(buffer)
            self.served += len(buffer)
            return len(buffer)

        def readable(self) -> bool:
            return True

    stream = Endless()
    text, more = read_bounded(stream, limit=5_000_000)  # type: ignore[arg-type]
    assert (len(text), more) == (5_000_000, True)
    assert stream.served <= 5_000_000 + 1
    assert read_bounded(io.BytesIO(b"abc\xff"), limit=4) == ("abc\ufffd", False)
    assert read_bounded(io.BytesIO(b"abcd"), limit=4) == ("abcd", False)


# --- 5. the report's own line breaks stay breaks ---------------------------------------------


def test_piped_snapshot_at_breaks_its_header_into_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = race_log(tmp_path / "t", at=NOW_MS)
    at = datetime.fromtimestamp(NOW_MS / 1000, UTC).isoformat()
    code, out, err = run(capsys, "snapshot", str(root), "--at", at)
    assert code == 0, err
    assert "\\x0a" not in out, out
    head = out.splitlines()[1]
    assert head.startswith("versions 0..2 = "), out
    code, out, err = run(capsys, "history", str(root), "--since", "7d")
    assert code == 0, err
    assert "\\x0a" not in out and out.startswith("versions 0..2 = "), out


# --- 4. wrong types, refused alike by every command -----------------------------------------


@pytest.mark.parametrize(
    ("where", "change", "field"),
    [
        (2, {"add": {**add("b")["add"], "path": 12345}}, "add.path: an int, expected a string"),
        (0, {"partitionColumns": "d"}, 'metaData.partitionColumns: "d" is not a list'),
        (0, {"configuration": ["a", "b"]}, "metaData.configuration: a list, expected an object"),
    ],
    ids=["integer-add-path", "string-partition-columns", "list-configuration"],
)
def test_a_wrong_type_is_exit_3_naming_file_version_and_field_in_every_command(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    where: int,
    change: dict[str, Any],
    field: str,
) -> None:
    root = race_log(tmp_path / "t")
    log = root / "_delta_log"
    name = f"{where:020d}.json"
    actions = [json.loads(line) for line in (log / name).read_text().splitlines()]
    if where == 0:
        actions[2] = {"metaData": {**actions[2]["metaData"], **change}}
    else:
        actions[1] = change
    (log / name).write_bytes(lines(*actions))
    for command in (
        ("history",),
        ("history", "--format", "json"),
        ("snapshot",),
        ("explain", "--format", "json"),
        ("whatif", "--isolation", "WriteSerializable"),
    ):
        code, out, err = run(capsys, command[0], str(root), *command[1:])
        assert code == 3, (command, err)
        assert out == "" and "Traceback" not in err
        first = err.strip().splitlines()[0]
        for needle in (name, f"version {where}", field):
            assert needle in first, (command, needle, first)
