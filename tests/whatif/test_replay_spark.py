"""The real-replay check of ``scripts/whatif_replay_spark.py``, bounded: one seed, a few rounds,
run for real on Delta-Spark 4.4.0 (tests/realspark/engines.py installs it) under the baseline
and under every change, in one local session, and ``whatif``'s prediction from the baseline log
and its failed statements held to the same targets as the full table in docs/whatif.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realspark.engines import by_key
from tests.realspark.harness import run_script
from tests.support.scripts import load_script

SEED, ROUNDS = 21, 4  # seed 21 races every change within four rounds


@pytest.mark.spark
@pytest.mark.heavy(190)
def test_whatif_predicts_what_real_delta_spark_replays_measure(tmp_path: Path) -> None:
    replay = load_script("whatif_replay_spark")
    runs = replay.payload(replay.CHANGES, [SEED], ROUNDS)
    records = run_script(by_key("4.4.0"), replay.ROUNDS, runs, tmp_path, timeout=1800)
    played, tables, errors = replay.read_runs(records, tmp_path)
    assert not errors, errors
    rows = [replay.measure(c, SEED, ROUNDS, played, tables) for c in replay.CHANGES]
    shown = replay.table(replay.by_key("4.4.0"), rows)
    assert all(r.rounds == ROUNDS for r in rows), shown
    assert sum(r.conflicts_before for r in rows) > 0, "the workload must race\n" + shown
    assert any(r.measured_introduced for r in rows), "Serializable must fail someone\n" + shown
    wrong = [r for r in rows if not r.within]
    assert not wrong, shown + "\n".join(reason for r in wrong for reason in r.predicted.reasons)
