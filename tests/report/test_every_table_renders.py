"""Every report of every real table and sample renders in every format: exit 0, 1 or 3, never a
traceback (issue #19: the terminal report crashed on a recommendation with no statement).

One pass per table, to stay within about a minute on two cores: ``explain``, ``whatif``,
``history`` and ``snapshot`` run once each through the real CLI (``deltaforensics.cli.main``,
in-process) as JSON, and each document is then written in every other format by the functions
the CLI's ``--format`` calls (``write_report``, ``whatif_to_markdown``, ``history_text``,
``snapshot_text``), the terminal report to a StringIO at a fixed width.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main
from deltaforensics.cli.options import ExplainFormat
from deltaforensics.cli.output import write_report
from deltaforensics.report.document import (
    ExplainDocument,
    HistoryDocument,
    SnapshotDocument,
    WhatIfDocument,
)
from deltaforensics.report.to_markdown import whatif_to_markdown
from deltaforensics.report.to_text import history_text, snapshot_text
from tests.conftest import CORPUS, SAMPLE_LOGS

ALLOWED = {0, 1, 3}  # 4 is a crash; 2 a usage error, which these command lines are not
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _tables() -> list[Path]:
    found = []
    for root in (CORPUS, SAMPLE_LOGS):
        if root.is_dir():
            found += sorted(p for p in root.iterdir() if (p / "_delta_log").is_dir())
    return found


TABLES = _tables()


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert code in ALLOWED, f"deltaforensics {' '.join(argv)} exited {code}:\n{err.getvalue()}"
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue()


def _document(*argv: str) -> dict[str, Any] | None:
    """The command's JSON document, or None when it stopped on a bad log (exit 3)."""
    code, out = _cli(*argv, "--format", "json")
    if code == 3:
        return None
    doc: dict[str, Any] = json.loads(out)
    return doc


def _printed(render: Any, *args: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        text = render(*args)
    return out.getvalue() + (text or "")


def test_the_corpus_and_the_samples_are_all_here() -> None:
    assert len([t for t in TABLES if t.parent == CORPUS]) >= 80, CORPUS
    assert len([t for t in TABLES if t.parent == SAMPLE_LOGS]) >= 6, SAMPLE_LOGS


@pytest.mark.parametrize("table", TABLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_report_renders_in_every_format(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TERM", "dumb")
    for key in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS"):
        monkeypatch.delenv(key, raising=False)
    t = str(table)
    human: list[str] = []
    explain = _document("explain", t)
    if explain is not None:
        for fmt in (ExplainFormat.rich, ExplainFormat.markdown, ExplainFormat.html):
            human.append(_printed(write_report, ExplainDocument.from_dict(explain), fmt, None))
    whatif = _document("whatif", t, "--isolation", "WriteSerializable")
    if whatif is not None:
        human.append(whatif_to_markdown(WhatIfDocument.from_dict(whatif)))
    history = _document("history", t)
    if history is not None:
        human.append(history_text(HistoryDocument.from_dict(history)))
    snapshot = _document("snapshot", t)
    if snapshot is not None:
        human.append(snapshot_text(SnapshotDocument.from_dict(snapshot)))
    for text in human:
        assert text.strip()
        assert not CONTROL.search(text), CONTROL.search(text)
