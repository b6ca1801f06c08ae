from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The real-log corpus is the project's own test data (tests/corpus/MANIFEST.md: provenance and
# licence of every table); DELTAFORENSICS_CORPUS points the suite at another copy.
CORPUS = Path(os.environ.get("DELTAFORENSICS_CORPUS", REPO / "tests" / "corpus"))
SAMPLE_LOGS = REPO / "sample_logs"


def corpus_tables() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file())


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not corpus_tables():
        pytest.fail(f"the corpus of real logs is missing at {CORPUS}")
    return CORPUS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tests first, dealt between the workers (tests/support/scheduling.py)."""
    from tests.support.scheduling import heavy_first

    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    items[:] = heavy_first(items, workers)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Work stealing, so that a worker left with long tests queued hands them over."""
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)
