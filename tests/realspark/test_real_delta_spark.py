"""The Spark side of the conflict model against real Delta-Spark, release by release.

Each pinned release (engines.py) runs the CI sample of racing pairs (cases.sample: every
operation as winner and as loser) in one local session; the real engine decides every
outcome. The model must agree on every check of every real pair, except the disagreements
tests/realspark/known.py documents with the engine's reason. The full matrix runs with
``python scripts/fidelity.py run`` and its result is docs/fidelity.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realspark.cases import OPS, sample
from tests.realspark.engines import DELTA_SPARK, DeltaSpark
from tests.realspark.harness import run_pairs
from tests.realspark.known import KNOWN

MIN_PAIRS = 30
# seconds a release took on CI (it installs its pyspark and jars first): the run starts these first
CI_SECONDS = {"delta-2.4.0": 400}
RELEASES = [
    pytest.param(e, id=e.key, marks=pytest.mark.heavy(CI_SECONDS.get(e.key, 150)))
    for e in DELTA_SPARK
]


@pytest.mark.spark
@pytest.mark.parametrize("engine", RELEASES)
def test_the_model_agrees_with_real_delta_spark(engine: DeltaSpark, tmp_path: Path) -> None:
    cases = sample(engine.major_minor)
    result = run_pairs(engine, cases, tmp_path)
    real = {v.case for v in result.verdicts}
    assert len(real) >= MIN_PAIRS, f"only {len(real)} real races: {result.not_pairs}"
    failed = {v.case for v in result.verdicts if v.check == "error"}
    assert failed, "no pair failed: the harness did not race"
    wrong = [v for v in result.verdicts if not v.agrees and (v.case, v.check) not in KNOWN]
    assert not wrong, "\n".join(
        f"{v.case} [{v.check}]: engine {v.real}, model {v.predicted} ({v.detail[:200]})"
        for v in wrong
    )


@pytest.mark.parametrize("role", ["winner", "loser"])
def test_the_ci_sample_runs_every_operation_in_both_roles(role: str) -> None:
    for engine in DELTA_SPARK:
        seen = {getattr(case, role).name for case in sample(engine.major_minor)}
        missing = {op.name for op in OPS if engine.major_minor >= op.since} - seen
        assert not missing, f"Delta {engine.delta}: {sorted(missing)} never {role}"
