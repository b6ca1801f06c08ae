"""The golden cases: which CLI runs are pinned, and how their output is made comparable.

Shared by ``tests/golden/test_golden.py`` (compare) and ``scripts/update_golden.py`` (rewrite),
so that both run exactly the same commands the same way: the real CLI (``deltaforensics.cli.main``)
with stdout captured, the terminal report at a fixed width and without colour.

Normalised, because they are not the report's content: the checkout's absolute path (it is in
``table.uri`` and in SQL the recommendations print) becomes ``<repo>``, the tool version becomes
``<version>``, and a ``generated_at`` timestamp (none today) would become ``<generated-at>``.
Nothing else is touched. ``--redact`` cases read a copy of ``sample_logs/`` in a temporary folder:
a checkout under ``/home/<user>/`` or ``/Users/<user>/`` is itself something ``--redact`` removes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltaforensics.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = REPO / "sample_logs"
GOLDEN = Path(__file__).resolve().parent
WIDTHS = (80, 160)  # columns of the rendered terminal views: the narrowest supported, and wide
UPDATE_COMMAND = "python scripts/update_golden.py"

SAMPLES = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
# Which sample each error text in sample_logs/errors/ belongs to (the README walkthrough).
ERROR_SAMPLES = {"orders_merge_failed.log": "merge_without_partition_literal"}
README_ATTEMPTS = [  # the README walkthrough: the failed MERGE and the fixed one
    "--to-version",
    "9",
    "--read-version",
    "6",
    "--attempt",
    "MERGE INTO orders t USING updates s ON t.order_id = s.order_id AND t.date = s.date "
    "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    "--attempt",
    "MERGE INTO orders t USING updates s ON t.order_id = s.order_id AND t.date = s.date "
    "AND t.date = '2024-03-04' WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One pinned CLI run: ``deltaforensics <argv>`` must print ``tests/golden/<path>``."""

    path: str  # relative to tests/golden/
    argv: tuple[str, ...]
    width: int | None = None  # a terminal of this many columns; None: stdout is a pipe

    @property
    def redacts(self) -> bool:
        return "--redact" in self.argv

    @property
    def file(self) -> Path:
        return GOLDEN / self.path

    @property
    def is_json(self) -> bool:
        return self.path.endswith(".json")

    @property
    def is_human(self) -> bool:
        """Whether the case is a human view (terminal or Markdown), not JSON."""
        return not self.is_json


def _table(sample: str) -> str:
    return str(SAMPLE_LOGS / sample)


def _at_widths(path: str, argv: tuple[str, ...]) -> list[Case]:
    """``argv`` at a terminal of each width in :data:`WIDTHS` (``<path>-80.txt`` …)."""
    return [Case(path=f"{path}-{w}.txt", argv=argv, width=w) for w in WIDTHS]


def _cases() -> list[Case]:
    cases = []
    for sample in SAMPLES:
        table = _table(sample)
        cases += [
            Case(path=f"{sample}/explain.json", argv=("explain", table, "--format", "json")),
            Case(path=f"{sample}/explain.md", argv=("explain", table, "--format", "markdown")),
            Case(path=f"{sample}/history.json", argv=("history", table, "--format", "json")),
            *_at_widths(f"{sample}/explain", ("explain", table)),
            *_at_widths(f"{sample}/history", ("history", table)),
            *_at_widths(f"{sample}/snapshot", ("snapshot", table)),
            *_at_widths(f"{sample}/whatif", ("whatif", table, "--isolation", "Serializable")),
        ]
    for error, sample in sorted(ERROR_SAMPLES.items()):
        stem = Path(error).stem
        evidence = ("--error", str(SAMPLE_LOGS / "errors" / error))
        cases.append(
            Case(
                path=f"{sample}/explain-error-{stem}.json",
                argv=("explain", _table(sample), *evidence, "--format", "json"),
            )
        )
        cases += _at_widths(
            f"{sample}/explain-error-{stem}", ("explain", _table(sample), *evidence)
        )
    walkthrough = _table("merge_without_partition_literal")
    cases += [
        *_at_widths("rules/rules", ("rules",)),
        *_at_widths("rules/rules-DC010", ("rules", "DC010")),
        *_at_widths(
            "merge_without_partition_literal/explain-attempts",
            ("explain", walkthrough, *README_ATTEMPTS),
        ),
        Case(
            path="merge_without_partition_literal/explain-attempts.json",
            argv=("explain", walkthrough, *README_ATTEMPTS, "--format", "json"),
        ),
        # redaction is part of the contract: pseudonyms, their order and what is kept
        Case(
            path="merge_without_partition_literal/explain-redacted.json",
            argv=(
                "explain",
                walkthrough,
                "--error",
                str(SAMPLE_LOGS / "errors" / "orders_merge_failed.log"),
                "--format",
                "json",
                "--redact",
            ),
        ),
        Case(
            path="duplicate_streaming_query/history-redacted.json",
            argv=("history", _table("duplicate_streaming_query"), "--format", "json", "--redact"),
        ),
    ]
    return cases


CASES = _cases()


@contextlib.contextmanager
def _plain_terminal(width: int | None) -> Iterator[None]:
    """A fixed-width terminal without colour for rich, whatever the caller's environment says;
    with ``width`` stdout counts as a terminal (``TTY_COMPATIBLE=1``, as rich reads it), so the
    commands draw their terminal views, else as a pipe."""
    wanted = {"COLUMNS": str(width or WIDTHS[0]), "LINES": "50", "TERM": "dumb"}
    if width is not None:
        wanted["TTY_COMPATIBLE"] = "1"
    dropped = tuple(
        k
        for k in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS")
        if k not in wanted
    )
    saved = {k: os.environ.get(k) for k in (*wanted, *dropped)}
    os.environ.update(wanted)
    for k in dropped:
        os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run(case: Case) -> str:
    """What ``deltaforensics <case.argv>`` prints on stdout, normalised.

    Every case runs on a copy of sample_logs at a path of fixed length (``/tmp/golden-XXXXXXXX``):
    the terminal report wraps lines that hold the table path, so the checkout's own path
    length must not matter, and a checkout under ``/home/<user>`` would itself be redacted.
    """
    with tempfile.TemporaryDirectory(prefix="golden-", dir="/tmp") as tmp:
        root = Path(tmp).resolve()
        shutil.copytree(SAMPLE_LOGS, root / SAMPLE_LOGS.name)
        argv = tuple(a.replace(str(REPO), str(root)) for a in case.argv)
        return _run(argv, root, as_json=case.is_json, width=case.width)


def _run(argv: tuple[str, ...], root: Path, *, as_json: bool, width: int | None = None) -> str:
    out, err = io.StringIO(), io.StringIO()
    with _plain_terminal(width), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    if code != 0:
        raise AssertionError(f"deltaforensics {' '.join(argv)} exited {code}:\n{err.getvalue()}")
    return normalise(out.getvalue(), root, as_json=as_json)


def normalise(text: str, root: Path = REPO, *, as_json: bool) -> str:
    """``text`` with the checkout's path (``root``), the version and timestamps masked."""
    text = text.replace(root.as_uri(), "file://<repo>").replace(str(root), "<repo>")
    if not as_json:
        return text
    doc = json.loads(text)
    _mask(doc)
    return json.dumps(doc, indent=2) + "\n"


def _mask(value: Any) -> None:
    if isinstance(value, dict):
        generator = value.get("generator")
        if isinstance(generator, dict) and "version" in generator:
            generator["version"] = "<version>"
        for key in value:
            if key == "generated_at":
                value[key] = "<generated-at>"
            else:
                _mask(value[key])
    elif isinstance(value, list):
        for item in value:
            _mask(item)
