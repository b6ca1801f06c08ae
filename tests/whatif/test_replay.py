"""The real-replay check of ``scripts/whatif_replay.py``, bounded: one seed, a few rounds, run
for real on ``deltalake`` under the baseline and under the change, and ``whatif``'s prediction
from the baseline log and its failed statements held to the same targets as the full table in
docs/whatif.md."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.engine


def _script() -> ModuleType:
    path = REPO / "scripts" / "whatif_replay.py"
    spec = importlib.util.spec_from_file_location("whatif_replay", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["partition by date", "Serializable (introduces conflicts)"])
def test_whatif_predicts_what_a_real_replay_measures(tmp_path: Path, name: str) -> None:
    replay = _script()
    [change] = [c for c in replay.CHANGES if c.name == name]
    row = replay.measure(change, seed=3, rounds=8, scratch=tmp_path)
    assert row.conflicts_before > 0, "the workload must race"
    assert row.predicted.pairs > 0
    assert row.within, replay.table([row]) + "\n" + "\n".join(row.predicted.reasons)
