"""Record, or compare against a recording, every report the CLI makes of every real table.

    python scripts/check_outputs.py record DIR            # run every case, write DIR/<case>.out
    python scripts/check_outputs.py compare DIR           # run again, list cases that differ
    python scripts/check_outputs.py compare DIR --only T  # just the tables whose name holds T

A refactoring that must not change behaviour is checked with it: ``record`` at the first commit,
``compare`` at the last. Each case is one CLI run (the real ``deltaforensics.cli.main``, in a
fresh worker process per table so no state carries over): ``explain`` in every format,
``history``, ``snapshot``, ``whatif`` with each kind of change, on every table of the corpus
(``tests/corpus``, or ``$DELTAFORENSICS_CORPUS``) and of ``sample_logs/``. A case's file holds its
exit code, stdout and stderr, with the table's own path masked as ``<table>`` and the tool
version as ``<version>``, so two checkouts in different folders compare equal.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _corpus() -> Path:
    env = os.environ.get("DELTAFORENSICS_CORPUS")
    if env:
        return Path(env)
    for candidate in (REPO / "tests" / "corpus", REPO.parent / "shared" / "corpus"):
        if any(p.is_dir() and (p / "_delta_log").is_dir() for p in candidate.iterdir()):
            return candidate
    raise SystemExit("no corpus found under tests/corpus")


def tables() -> list[tuple[str, Path]]:
    """``(name, folder)`` of every corpus table and sample, sorted by name."""
    found = [
        (f"corpus/{p.name}", p) for p in sorted(_corpus().iterdir()) if (p / "_delta_log").is_dir()
    ]
    found += [
        (f"sample/{p.name}", p)
        for p in sorted((REPO / "sample_logs").iterdir())
        if (p / "_delta_log").is_dir()
    ]
    return found


def _first_column(table: Path) -> str | None:
    """The first column of the newest schema a JSON commit records (None when none does)."""
    commits = sorted((table / "_delta_log").glob("*.json"), reverse=True)
    for commit in commits:
        for line in commit.read_text(encoding="utf-8", errors="replace").splitlines():
            if '"metaData"' not in line:
                continue
            try:
                schema = json.loads(json.loads(line)["metaData"]["schemaString"])
                return str(schema["fields"][0]["name"])
            except (ValueError, KeyError, IndexError, TypeError):
                continue
    return None


def cases(table: Path) -> list[tuple[str, list[str]]]:
    """The CLI runs made of one table, each with a short name."""
    t = str(table)
    runs = [
        ("explain.json", ["explain", t, "--format", "json"]),
        ("explain.txt", ["explain", t, "--format", "rich"]),
        ("explain.md", ["explain", t, "--format", "markdown"]),
        ("explain.html", ["explain", t, "--format", "html"]),
        ("history.json", ["history", t, "--format", "json"]),
        ("history.txt", ["history", t, "--format", "table"]),
        ("snapshot.json", ["snapshot", t, "--format", "json"]),
        ("whatif-serializable.json", ["whatif", t, "--isolation", "Serializable"]),
        (
            "whatif-dv-merge.json",
            ["whatif", t, "--deletion-vectors", "--explicit-merge-predicates"],
        ),
        (
            "whatif-writeserializable.md",
            ["whatif", t, "--isolation", "WriteSerializable", "--format", "markdown"],
        ),
    ]
    column = _first_column(table)
    if column:
        runs += [
            ("whatif-partition.json", ["whatif", t, "--partition-by", column]),
            ("whatif-liquid.json", ["whatif", t, "--liquid", column]),
        ]
    return runs


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``deltaforensics <argv>`` in this process: its exit code, stdout and stderr."""
    from deltaforensics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _mask(text: str, table: Path) -> str:
    from deltaforensics import __version__

    text = text.replace(table.as_uri(), "file://<table>").replace(str(table), "<table>")
    return text.replace(__version__, "<version>")


def run_table(item: tuple[str, str]) -> dict[str, str]:
    """Every case of one table: ``{case name: masked exit code, stdout and stderr}``.

    The table is read from a copy at a path of fixed length (``/tmp/chk-XXXXXXXX/<name>``): the
    terminal report wraps lines that hold the path, so the checkout's own folder must not matter.
    """
    name, folder = item
    with tempfile.TemporaryDirectory(prefix="chk-", dir="/tmp") as tmp:
        table = Path(tmp) / Path(folder).name
        shutil.copytree(folder, table, symlinks=True)
        return _run_cases(name, table)


def _run_cases(name: str, table: Path) -> dict[str, str]:
    os.environ.update({"COLUMNS": "100", "LINES": "50", "TERM": "dumb"})
    for key in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS"):
        os.environ.pop(key, None)
    results = {}
    for case, argv in cases(table):
        code, out, err = run_cli(argv)
        results[f"{name}/{case}"] = _mask(
            f"exit {code}\n--- stdout\n{out}\n--- stderr\n{err}", table
        )
    return results


def run_all(only: str | None) -> dict[str, str]:
    todo = [(n, str(p)) for n, p in tables() if only is None or only in n]
    results: dict[str, str] = {}
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes=2, maxtasksperchild=1) as pool:
        for part in pool.imap_unordered(run_table, todo):
            results.update(part)
    if not results:
        raise SystemExit("no table matched")
    return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "compare"))
    parser.add_argument("dir", type=Path)
    parser.add_argument("--only", help="only tables whose name holds this text")
    args = parser.parse_args(argv)
    results = run_all(args.only)
    if args.mode == "record":
        for case, text in results.items():
            path = args.dir / (case + ".out")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        print(f"{len(results)} case(s) recorded in {args.dir}")
        return 0
    differ = []
    for case, text in sorted(results.items()):
        path = args.dir / (case + ".out")
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            differ.append(case)
    for case in differ:
        print(f"differs: {case}")
    print(
        f"{len(results)} case(s) compared, {len(results) - len(differ)} same, {len(differ)} differ"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
