"""The delta-rs profile agrees with the installed deltalake release, case by case (field notes
§3.3): every case of :mod:`tests.conflicts.deltars_cases` runs on the real engine, no recorded
outcomes. The engine runs once per module, in a subprocess of the project's own interpreter
(the same harness older releases run in their virtualenvs, ``test_deltars_versions.py``);
the checks are those of :mod:`tests.conflicts.deltars_agreement`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conflicts.deltars_agreement import judge, run_engine
from tests.conflicts.deltars_cases import CASES, Case, release_version
from tests.conflicts.deltars_envs import installed_release, shared_work

RELEASE = installed_release()
Ran = dict[str, tuple[dict[str, Any], Path]]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """The engine runs every case once per test run (shared by pytest-xdist workers)."""
    work = shared_work(tmp_path_factory.getbasetemp(), RELEASE, [c.id for c in CASES])
    return run_engine(RELEASE, CASES, work)


@pytest.mark.engine
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_delta_rs_profile_agrees_with_the_engine(ran: Ran, case: Case) -> None:
    result = judge(case, *ran[case.id], RELEASE)
    assert result.failures() == [], f"deltalake {RELEASE}"
    assert result.profile == f"delta-rs {RELEASE}", "the commit did not select its own row"
    known = case.known_at(release_version(RELEASE))
    assert result.real == known, f"deltalake {RELEASE} itself now gives {result.real} ({known})"


def test_there_are_at_least_fifty_pairs_and_thirty_failures() -> None:
    assert len(CASES) >= 50
    assert sum(1 for c in CASES if c.known_at(release_version(RELEASE)) != "commits") >= 30
