"""Progress bars go to stderr only when it is a terminal (a real pty here) and not --quiet."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE_LOGS

TABLE = str(SAMPLE_LOGS / "optimize_vs_delete")


def run(args: list[str], *, tty: bool) -> tuple[int, bytes, bytes]:
    """Run the CLI with stdout piped and stderr on a pseudo-terminal (or a pipe)."""
    if not tty:
        done = subprocess.run(
            [sys.executable, "-m", "deltaforensics", *args],
            check=False,
            capture_output=True,
            cwd=REPO,
        )
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deltaforensics", *args],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=REPO,
    )
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.wait()
    os.close(master)
    return proc.returncode, out, err


COMMANDS = [
    ["explain", TABLE, "--format", "json"],
    ["history", TABLE, "--format", "json"],
    ["snapshot", TABLE, "--format", "json"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_terminal_gets_a_progress_bar_and_stdout_stays_json(args: list[str]) -> None:
    code, out, err = run(args, tty=True)
    assert code == 0, err
    assert b"reading the log" in err and b"log files" in err
    json.loads(out)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_quiet_or_a_non_terminal_stderr_gets_none(args: list[str]) -> None:
    code, out, err = run(["--quiet", *args], tty=True)
    assert code == 0 and err == b""
    code, out2, err = run(args, tty=False)
    assert code == 0 and b"reading the log" not in err and b"\x1b[" not in err
    assert json.loads(out) == json.loads(out2)


def test_the_audit_shows_its_tables_on_a_terminal(tmp_path: Path) -> None:
    config = tmp_path / "audit.toml"
    config.write_text(
        f'[[tables]]\nuri = "{TABLE}"\n[[tables]]\nuri = "{SAMPLE_LOGS / "mixed_writer_appends"}"\n'
    )
    code, out, err = run(["audit", str(config), "--format", "json"], tty=True)
    assert code == 0, err
    assert b"auditing" in err
    assert json.loads(out)["totals"]["ok"] == 2
    code, _, err = run(["--quiet", "audit", str(config)], tty=True)
    assert code == 0 and err == b""
