"""The real-replay check of ``scripts/whatif_replay.py``, bounded: one seed, a few rounds, run
for real on ``deltalake`` under the baseline and under the change, and ``whatif``'s prediction
from the baseline log and its failed statements held to the same targets as the full table in
docs/whatif.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripts import load_script

pytestmark = pytest.mark.engine


@pytest.mark.parametrize("name", ["partition by date", "Serializable (introduces conflicts)"])
def test_whatif_predicts_what_a_real_replay_measures(tmp_path: Path, name: str) -> None:
    replay = load_script("whatif_replay")
    [change] = [c for c in replay.CHANGES if c.name == name]
    row = replay.measure(change, seed=3, rounds=8, scratch=tmp_path)
    assert row.conflicts_before > 0, "the workload must race"
    assert row.predicted.pairs > 0
    assert row.within, replay.table([row]) + "\n" + "\n".join(row.predicted.reasons)
