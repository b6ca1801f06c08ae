"""The ``deltalake`` releases the agreement tests run, each in its own cached virtualenv.

The project's own interpreter has the newest release (pinned in ``pyproject.toml``); an older
release cannot live beside it, so it gets a virtualenv under the checkout's git-ignored
``.cache/deltalake/<version>/``, created on first use with ``python -m venv`` and a pinned
``pip install deltalake==X pyarrow==Y`` (pip's download cache is ``.cache/pip``, so nothing
lands in the user's home). A finished install leaves a marker naming its pins; a folder
without it (an interrupted install) is made again.

Why these releases: 0.25.5 is the last 0.x release, the line many writers pinned before 1.0
changed the Python API; 1.1.4 is the last release of the line after 1.0 and before the
compaction-remove change (delta-rs PR #3982) that 1.6.6 carries. The pyarrow pins are the
newest pyarrow of each release's time, so the release runs as its users ran it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "deltalake"
HARNESS = Path(__file__).with_name("deltars_harness.py")

# release -> pyarrow pin; the installed release runs in the project's own interpreter
OLDER_RELEASES: dict[str, str] = {
    "0.25.5": "19.0.1",
    "1.1.4": "20.0.0",
    "1.2.1": "21.0.0",
    "1.3.3": "22.0.0",
    "1.4.2": "23.0.1",
    "1.5.1": "24.0.0",
    "1.6.3": "25.0.1",
}

# the older releases CI measures (a stratified sample): 0.25.5, the last 0.x, where an
# operation without a predicate reads no files, and 1.6.3, the last release before 1.6.6
# whose checker refuses two concurrent compactions of the same file
CI_RELEASES = ("0.25.5", "1.6.3")


class EngineInstallError(Exception):
    """An older deltalake could not be installed; the message is one line naming it."""


class HarnessError(Exception):
    """The engine side failed outside any commit (a broken case or API drift)."""


def installed_release() -> str:
    from importlib.metadata import version

    return version("deltalake")


def engine_python(release: str) -> Path:
    """The interpreter that runs ``release``: ours for the installed one, else a cached venv."""
    if release == installed_release():
        return Path(sys.executable)
    if release not in OLDER_RELEASES:
        raise EngineInstallError(f"deltalake=={release}: not a release the tests pin")
    pins = [f"deltalake=={release}", f"pyarrow=={OLDER_RELEASES[release]}"]
    with locked(CACHE / f"{release}.lock"):  # pytest-xdist workers share the cache
        return install(CACHE / release, pins)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` for the block (other processes wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_work(base: Path, release: str, case_ids: list[str]) -> Path:
    """Where this test run keeps one engine run of ``case_ids`` on ``release``: under the run's
    own temporary folder, which every pytest-xdist worker of the run shares (a worker's
    ``basetemp`` is a child of it), so the engine runs once per run and not once per worker."""
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    digest = hashlib.sha256("\n".join(case_ids).encode()).hexdigest()[:10]
    return root / f"deltalake-{release}-{digest}"


def install(venv: Path, pins: list[str]) -> Path:
    """``venv``'s interpreter, with ``pins`` installed (again, unless its marker says so)."""
    python = venv / "bin" / "python"
    marker = venv / "installed.json"
    if marker.exists() and json.loads(marker.read_text(encoding="utf-8")) == pins:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    steps = (
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--cache-dir", str(CACHE.parent / "pip"), *pins],
    )  # fmt: skip
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            errors = [ln for ln in done.stderr.splitlines() if ln.startswith("ERROR:")]
            last = (errors or done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise EngineInstallError(
                f"could not install {' '.join(pins)} into {venv}: {last.strip()}"
            )
    marker.write_text(json.dumps(pins), encoding="utf-8")
    return python


def run_harness(python: Path, cases: list[dict[str, Any]], work: Path) -> dict[str, Any]:
    """Run the cases on the engine of ``python`` in ``work``; its ``results.json``, read back.
    A finished run of the same cases in ``work`` is read, not repeated."""
    with locked(work.with_name(work.name + ".lock")):
        done_before = work / "results.json"
        if done_before.exists():
            kept: dict[str, Any] = json.loads(done_before.read_text(encoding="utf-8"))
            if [r["id"] for r in kept["results"]] == [c["id"] for c in cases]:
                return kept
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        return _run(python, cases, work)


def _run(python: Path, cases: list[dict[str, Any]], work: Path) -> dict[str, Any]:
    job = work / "job.json"
    job.write_text(json.dumps({"work": str(work), "cases": cases}), encoding="utf-8")
    # the venv must see only its own packages, never the checkout's or the caller's path
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(python), str(HARNESS), str(job)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=work,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise HarnessError(f"{python} {HARNESS.name} failed:\n{tail}")
    result: dict[str, Any] = json.loads((work / "results.json").read_text(encoding="utf-8"))
    return result
