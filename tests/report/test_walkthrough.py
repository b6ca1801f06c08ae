"""The README walkthrough's answer in every format (issue #31, item 6): its two ``--attempt``
statements, run as the README runs them, give one line each, the failing MERGE and the fixed
one that commits, and the JSON's read predicate and whole-table flag agree."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _walkthrough_args() -> list[str]:
    """The README's ``explain … --attempt … --attempt …`` command, as its arguments."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    (command,) = [b for b in blocks if "--attempt" in b and b.lstrip().startswith("deltaforensics")]
    args = shlex.split(command.replace("\\\n", " "))
    assert args[:2] == ["deltaforensics", "explain"] and args.count("--attempt") == 2
    return args[1:]


def _run(args: list[str], fmt: str) -> str:
    if "--format" in args:
        at = args.index("--format")
        args = args[:at] + args[at + 2 :]
    run = subprocess.run(
        [sys.executable, "-m", "deltaforensics", *args, "--format", fmt],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "200", "PATH": "", "PYTHONPATH": str(REPO)},
    )
    return run.stdout


@pytest.mark.parametrize("fmt", ["rich", "markdown", "html"])
def test_every_format_gives_one_line_per_attempt(fmt: str) -> None:
    out = " ".join(_run(_walkthrough_args(), fmt).replace("\\_", "_").split())  # Markdown escapes
    assert (
        "✗ attempt 1 fails with ConcurrentAppendException (DELTA_CONCURRENT_APPEND · DC010) "
        "against v7: reads the whole table" in out
    )
    committed = "✓ attempt 2 commits: reads date = {q}2024-03-04{q}, no rule fires against v7–v9"
    assert committed.format(q="'") in out or committed.format(q="&#x27;") in out


def test_the_json_read_predicate_and_whole_table_flag_agree() -> None:
    attempts = json.loads(_run(_walkthrough_args(), "json"))["attempts"]
    assert [(a["read_predicate"], a["read_whole_table"]) for a in attempts] == [
        ("TRUE", True),
        ("date = '2024-03-04'", False),
    ]
