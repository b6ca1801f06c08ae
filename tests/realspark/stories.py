"""Tell a table's story on a real Delta-Spark and bring back what the engine did.

The project's side of story_runner.py: install the pinned engine (engines.py), run the story in
the engine's own interpreter, one local session, and read its records. Used to write real
sample logs (``scripts/make_sample_logs.py --real-spark``); the racing pairs of the fidelity
matrix go through harness.py instead, one seeded table per pair.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.realspark.engines import DeltaSpark, install
from tests.realspark.harness import run_in_engine

STORY_RUNNER = Path(__file__).with_name("story_runner.py")


def run_story(
    engine: DeltaSpark, story: dict[str, Any], work: Path, *, timeout: float = 3600
) -> dict[str, Any]:
    """``{"session": {...}, "records": [...]}``; the table is left at ``work/table``."""
    installed = install(engine)
    work.mkdir(parents=True, exist_ok=True)
    spec, out = work / "story.json", work / "records.json"
    spec.write_text(json.dumps(story, indent=1))
    out.unlink(missing_ok=True)
    run_in_engine(installed, [STORY_RUNNER, spec, out, work], work / "story.log", timeout=timeout)
    result: dict[str, Any] = json.loads(out.read_text())
    return result
