"""The delta-rs profile agrees with the installed deltalake release, case by case (field notes
§3.3): every case of :mod:`tests.conflicts.deltars_cases` runs on the real engine, no recorded
outcomes. The engine runs once per module, in a subprocess of the project's own interpreter
(the same harness older releases run in their virtualenvs, ``test_deltars_versions.py``);
the checks are those of :mod:`tests.conflicts.deltars_agreement`.
"""

from __future__ import annotations

import pytest

from tests.conflicts.deltars_agreement import CaseResult, measure
from tests.conflicts.deltars_cases import CASES
from tests.conflicts.deltars_envs import installed_release

RELEASE = installed_release()


def _version(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CaseResult]:
    work = tmp_path_factory.mktemp(f"deltalake-{RELEASE}")
    return {r.case.id: r for r in measure(RELEASE, CASES, work)}


@pytest.mark.engine
@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_delta_rs_profile_agrees_with_the_engine(
    results: dict[str, CaseResult], case_id: str
) -> None:
    result = results[case_id]
    assert result.failures() == [], f"deltalake {RELEASE}"
    known = result.case.known_at(_version(RELEASE))
    assert result.real == known, f"deltalake {RELEASE} itself now gives {result.real} ({known})"


@pytest.mark.engine
def test_each_commit_selects_the_row_of_its_own_release(results: dict[str, CaseResult]) -> None:
    assert {r.profile for r in results.values()} == {f"delta-rs {RELEASE}"}


def test_there_are_at_least_fifty_pairs_and_thirty_failures() -> None:
    assert len(CASES) >= 50
    assert sum(1 for c in CASES if c.known_at(_version(RELEASE)) != "commits") >= 30
