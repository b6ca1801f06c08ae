"""The command line and the Python API give the same document for every selection form.

Each case runs the real CLI (``deltaforensics.cli.main``, its output as ``--format json``
writes it) and the API function of the same command, and compares the CLI's text with the
API's ``to_json()``: versions (``--from-version/--to-version``), a time window
(``--since/--until``), an ``--error`` text with a time and no version (the window around it),
and for ``snapshot`` ``--version`` and ``--at``. A failure must fail both ways with the same
message.

On the samples and a dozen corpus tables by default (CI); ``DELTAFORENSICS_PARITY_FULL=1``
covers every corpus table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from deltaforensics import api
from deltaforensics.cli import main
from deltaforensics.errors import DeltaForensicsError
from tests.conftest import CORPUS, SAMPLE_LOGS

FULL = os.environ.get("DELTAFORENSICS_PARITY_FULL") == "1"
# a dozen corpus tables of different kinds: checkpoints, deletion vectors, column mapping,
# restores, V2 checkpoints, damaged logs
DOZEN = (
    "dat__column_mapping",
    "dat__multi_partitioned",
    "delta__basic-dv-with-checkpoint",
    "delta__basic-with-inserts-merge",
    "delta__basic-with-inserts-overwrite-restore",
    "delta__checkpoint",
    "delta__corrupted-last-checkpoint-kernel",
    "delta__delta-0.1.0",
    "delta__dv-partitioned-with-checkpoint",
    "delta__log-replay-latest-metadata-protocol",
    "delta__multi-part-checkpoint",
    "delta__only-checkpoint-files",
)


def _tables() -> list[Path]:
    found = sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
    if CORPUS.is_dir():
        corpus = sorted(p for p in CORPUS.iterdir() if (p / "_delta_log").is_dir())
        found += corpus if FULL else [p for p in corpus if p.name in DOZEN]
    return found


TABLES = _tables()


@dataclass(frozen=True, slots=True)
class Case:
    """One command with one selection: its CLI arguments and the same call of the API."""

    name: str
    argv: list[str]
    call: Callable[[], api.NotebookView]


def _commits(table: Path) -> list[tuple[int, int]]:
    """``(version, commit time in ms)`` of the table's JSON commits: commitInfo's timestamp,
    else the file's modification time."""
    out = []
    for path in sorted((table / "_delta_log").glob("*.json")):
        if not path.stem.isdigit():
            continue
        stamp = int(path.stat().st_mtime * 1000)
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                info = json.loads(line).get("commitInfo")
            except ValueError:
                continue
            if isinstance(info, dict) and isinstance(info.get("timestamp"), int):
                stamp = info["timestamp"]
                break
        out.append((int(path.stem), stamp))
    return out


def _error_text(at_ms: int) -> str:
    """A driver log line at ``at_ms`` with a conflict that names no winning version."""
    from datetime import UTC, datetime

    when = datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S,000")
    return (
        f"{when} ERROR job: batch failed\n"
        "io.delta.exceptions.ConcurrentAppendException: Files were added to the root of the "
        "table by a concurrent update. Please try the operation again.\n"
    )


def cases(table: Path, error_file: Path) -> list[Case]:
    t = str(table)
    commits = _commits(table)
    versions = [v for v, _ in commits] or [0]
    first, last = versions[len(versions) // 2], versions[-1]
    times = [ms for _, ms in commits] or [0]
    since, until = str(times[len(times) // 2]), str(times[-1])
    text = _error_text(times[-1])
    error_file.write_text(text, encoding="utf-8")
    errors = [(str(error_file), text)]
    quick = ["--no-recommendations"]
    return [
        Case(
            "explain-versions",
            ["explain", t, "--from-version", str(first), "--to-version", str(last), *quick],
            lambda: api.explain(t, from_version=first, to_version=last, recommendations=False),
        ),
        Case(
            "explain-since-until",
            ["explain", t, "--since", since, "--until", until, *quick],
            lambda: api.explain(t, since=since, until=until, recommendations=False),
        ),
        Case(
            "explain-error",
            ["explain", t, "--error", str(error_file), *quick],
            lambda: api.explain(t, errors=errors, recommendations=False),
        ),
        Case(
            "whatif-versions",
            [
                *("whatif", t, "--isolation", "Serializable"),
                *("--from-version", str(first), "--to-version", str(last)),
            ],
            lambda: api.whatif(t, isolation="Serializable", from_version=first, to_version=last),
        ),
        Case(
            "whatif-since-until",
            ["whatif", t, "--isolation", "Serializable", "--since", since, "--until", until],
            lambda: api.whatif(t, isolation="Serializable", since=since, until=until),
        ),
        Case(
            "whatif-error",
            ["whatif", t, "--isolation", "Serializable", "--error", str(error_file)],
            lambda: api.whatif(t, isolation="Serializable", errors=errors),
        ),
        Case(
            "history-versions",
            ["history", t, "--from-version", str(first), "--to-version", str(last)],
            lambda: api.history(t, from_version=first, to_version=last),
        ),
        Case(
            "history-since-until",
            ["history", t, "--since", since, "--until", until],
            lambda: api.history(t, since=since, until=until),
        ),
        Case(
            "snapshot-version",
            ["snapshot", t, "--version", str(last)],
            lambda: api.snapshot(t, version=last),
        ),
        Case("snapshot-at", ["snapshot", t, "--at", until], lambda: api.snapshot(t, at=until)),
    ]


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_the_cli_and_the_api_agree(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checked = []
    for case in cases(table, tmp_path / "driver.log"):
        code = main([*case.argv, "--format", "json"])
        out, err = capsys.readouterr()
        try:
            got = case.call().to_json()
        except DeltaForensicsError as exc:
            assert code != 0, f"{case.name}: the API failed ({exc}), the CLI did not"
            assert str(exc) in err, f"{case.name}: the CLI said {err!r}, the API {exc}"
            checked.append(case.name)
            continue
        assert code == 0, f"{case.name}: the CLI failed ({err.strip()}), the API did not"
        assert out == got + "\n", f"{case.name}: the CLI's JSON differs from the API's"
        checked.append(case.name)
    assert len(checked) == 10
