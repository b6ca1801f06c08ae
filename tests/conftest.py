from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("DELTAFORENSICS_CORPUS", REPO.parent / "shared" / "corpus"))
SAMPLE_LOGS = REPO / "sample_logs"


def corpus_tables() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file())


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"the shared corpus is missing at {CORPUS}")
        pytest.skip("shared corpus not present")
    return CORPUS
