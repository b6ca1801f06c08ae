"""The dependency direction is a test (import-linter contracts live in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_import_layers_hold() -> None:
    exe = shutil.which("lint-imports")
    assert exe, "import-linter is a dev dependency: pip install -e '.[dev]'"
    result = subprocess.run([exe], cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_core_does_not_import_storage_or_terminal_libraries_at_import_time() -> None:
    code = (
        "import sys, deltaforensics.replay, deltaforensics.snapshot, deltaforensics.model.schemas;"
        "bad = [m for m in ('fsspec','adlfs','rich','typer','pyspark') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() in ("", "fsspec"), out  # fsspec only via the log package, never the core


def test_ruff_lint_and_format_are_clean() -> None:
    """The CI command is the test command, so lint and formatting are tests too."""
    exe = shutil.which("ruff")
    assert exe, "ruff is a dev dependency: pip install -e '.[dev]'"
    for args in ([exe, "check", "."], [exe, "format", "--check", "."]):
        result = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
