"""Golden reports: every sample log's explain JSON, terminal report and history JSON, pinned.

A change in any of them is a change in what users see: review the diff like code, then rewrite
the files with ``python scripts/update_golden.py`` (see tests/golden/README.md).
"""

from __future__ import annotations

import difflib

import pytest

from tests.golden.cases import (
    CASES,
    ERROR_SAMPLES,
    GOLDEN,
    SAMPLE_LOGS,
    SAMPLES,
    UPDATE_COMMAND,
    WIDTHS,
    Case,
    run,
)


def mismatch(case: Case, expected: str) -> str | None:
    """Why the CLI's output for ``case`` is not ``expected``, with a unified diff; None if it is."""
    actual = run(case)
    if actual == expected:
        return None
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"tests/golden/{case.path} (expected)",
        tofile=f"deltaforensics {' '.join(case.argv)} (actual)",
    )
    return (
        f"output differs from tests/golden/{case.path}; if the change is intended, run "
        f"{UPDATE_COMMAND}\n{''.join(diff)}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.path for c in CASES])
def test_output_matches_the_golden_file(case: Case) -> None:
    if not case.file.is_file():
        pytest.fail(f"tests/golden/{case.path} is missing; create it with {UPDATE_COMMAND}")
    problem = mismatch(case, case.file.read_text(encoding="utf-8"))
    if problem:
        pytest.fail(problem, pytrace=False)


def test_every_sample_log_has_golden_reports() -> None:
    pinned = {c.path for c in CASES}
    for sample in SAMPLES:
        for name in ("explain.json", "explain.md", "history.json"):
            assert f"{sample}/{name}" in pinned
        for command in ("explain", "history", "snapshot", "whatif"):
            for width in WIDTHS:
                assert f"{sample}/{command}-{width}.txt" in pinned


def test_every_error_sample_is_pinned_with_its_table() -> None:
    errors = sorted(p.name for p in (SAMPLE_LOGS / "errors").iterdir())
    assert errors == sorted(ERROR_SAMPLES), "map each sample_logs/errors file to its table"
    assert all(sample in SAMPLES for sample in ERROR_SAMPLES.values())


def test_no_golden_file_is_left_without_a_case() -> None:
    pinned = {c.path for c in CASES}
    on_disk = {
        p.relative_to(GOLDEN).as_posix()
        for p in GOLDEN.rglob("*")
        if p.is_file() and p.suffix in (".json", ".txt", ".md") and p.name != "README.md"
    }
    assert on_disk - pinned == set(), f"stale golden files; run {UPDATE_COMMAND}"


def test_a_changed_report_fails_with_a_unified_diff() -> None:
    case = next(c for c in CASES if c.path.endswith("history.json"))
    expected = case.file.read_text(encoding="utf-8")
    assert mismatch(case, expected) is None
    edited = expected.replace('"operation": "WRITE"', '"operation": "MERGE"', 1)
    assert edited != expected
    problem = mismatch(case, edited)
    assert problem is not None
    assert f"--- tests/golden/{case.path} (expected)\n+++ deltaforensics history " in problem
    lines = problem.splitlines()
    assert any(line.startswith("-") and '"operation": "MERGE"' in line for line in lines)
    assert any(line.startswith("+") and '"operation": "WRITE"' in line for line in lines)
