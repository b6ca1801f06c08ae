"""The delta-rs rows follow the writer's release: older deltalake releases, run for real.

Each release in ``CI_RELEASES`` gets its own virtualenv under the checkout's ``.cache/``
(made on first use, :mod:`tests.conflicts.deltars_envs`); the harness runs there as a
subprocess and writes real tables whose logs this process analyses. CI runs a stratified
sample (every stratum, once per outcome the release gives); ``scripts/fidelity_deltars.py``
runs every case on every release in ``OLDER_RELEASES`` and writes docs/fidelity.md's table.

Why these two: 0.25.5 is the last 0.x release (an operation without a predicate reads no
files there), 1.6.3 the last release before 1.6.6 whose checker refuses two concurrent
compactions of the same file. Together with the installed 1.6.6 they cross every delta-rs row
split a release has been measured for.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deltaforensics.analysis import analyze, open_store
from deltaforensics.profiles import delta_rs, profile_for
from tests.conflicts.deltars_agreement import CaseResult, measure
from tests.conflicts.deltars_cases import CASES, Case, stratified_sample
from tests.conflicts.deltars_envs import EngineInstallError

CI_RELEASES = ("0.25.5", "1.6.3")


def _version(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


SAMPLE = [
    (release, case) for release in CI_RELEASES for case in stratified_sample(_version(release))
]


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, CaseResult]]:
    """Each release's sample, measured on first use and kept for the module."""
    return {}


def _results(
    measured: dict[str, dict[str, CaseResult]], release: str, work: Path
) -> dict[str, CaseResult]:
    if release not in measured:
        sample = stratified_sample(_version(release))
        try:
            ran = measure(release, sample, work)
        except EngineInstallError as exc:
            pytest.fail(str(exc), pytrace=False)
        measured[release] = {r.case.id: r for r in ran}
    return measured[release]


@pytest.mark.engine
@pytest.mark.parametrize(
    ("release", "case"), [pytest.param(r, c, id=f"{r}-{c.id}") for r, c in SAMPLE]
)
def test_the_release_row_agrees_with_that_release(
    measured: dict[str, dict[str, CaseResult]],
    tmp_path_factory: pytest.TempPathFactory,
    release: str,
    case: Case,
) -> None:
    work = tmp_path_factory.mktemp(f"deltalake-{release}")
    result = _results(measured, release, work)[case.id]
    assert result.profile == f"delta-rs {release}", "the commit did not select its own row"
    assert result.failures() == [], f"deltalake {release}"
    known = case.known_at(_version(release))
    assert result.real == known, f"deltalake {release} itself gives {result.real} ({known})"


def test_the_ci_sample_covers_every_stratum_and_a_split_case_each() -> None:
    strata = {c.stratum for c in CASES}
    for release in CI_RELEASES:
        sample = stratified_sample(_version(release))
        assert {c.stratum for c in sample} == strata
        assert len(sample) >= 25
        # the cases whose outcome changed between releases, where the rows were split
        assert {c.id for c in sample if c.known_from} >= {"O5 compact/compact (duplicates data)"}


def test_the_rows_split_where_the_releases_were_measured_to_differ() -> None:
    old, v12, v13, v163, v166 = (
        profile_for(None, f"delta-rs.py-{v}")
        for v in ("0.25.5", "1.2.1", "1.3.3", "1.6.3", "1.6.6")
    )
    assert not old.predicate_free_reads_all_files and v12.predicate_free_reads_all_files
    assert not v12.delete_read_skips_compaction_removes
    assert v13.delete_read_skips_compaction_removes
    assert not v163.delete_delete_skips_compaction_removes
    assert v166.delete_delete_skips_compaction_removes
    assert "unverified" not in v166.name


def test_a_release_after_the_newest_measured_gets_delta_rs_mains_row_labelled_unverified() -> None:
    future = profile_for(None, "delta-rs.py-1.7.0")
    assert "unverified" in future.name
    assert not future.delete_delete_skips_compaction_removes  # main's suite: it conflicts
    assert future.delete_read_skips_compaction_removes
    assert "unverified" in profile_for(None, "delta-rs.py-1.6.7").name
    assert "unverified" not in delta_rs().name  # the default is the newest release measured


SAMPLE_LOG = Path(__file__).resolve().parents[2] / "sample_logs" / "deltars_concurrent_optimize"


def _an001_reason(tmp_path: Path, release: str) -> str:
    """AN001 on the 1.6.6 double-compaction sample with v11 claiming ``release`` instead (the
    one edit: its engineInfo/clientVersion strings; the actions are 1.6.6's)."""
    table = tmp_path / release
    shutil.copytree(SAMPLE_LOG / "_delta_log", table / "_delta_log")
    v11 = table / "_delta_log" / f"{11:020d}.json"
    v11.write_text(v11.read_text(encoding="utf-8").replace("1.6.6", release), encoding="utf-8")
    analysis = analyze(open_store(str(table)), recommendations=False)
    (reason,) = [a.reason for a in analysis.anomalies if a.code == "AN001"]
    return reason


def test_an001_says_what_the_removers_own_release_does(tmp_path: Path) -> None:
    assert "delta-rs 1.6.6 lets two compactions of the same file both commit" in (
        _an001_reason(tmp_path, "1.6.6")
    )
    older = _an001_reason(tmp_path, "1.6.3")
    assert "delta-rs 1.6.3 refuses a second remove" in older
    future = _an001_reason(tmp_path, "1.7.0")
    assert "delta-rs 1.7.0 (unverified" in future
    assert "refuses a second remove" in future


def test_a_log_written_by_a_future_deltalake_reports_its_profile_unverified(
    tmp_path: Path,
) -> None:
    """W402 on the sample with every commit claiming 1.7.0, none on the 1.6.6 original."""
    table = tmp_path / "future"
    shutil.copytree(SAMPLE_LOG / "_delta_log", table / "_delta_log")
    for commit in (table / "_delta_log").glob("*.json"):
        commit.write_text(commit.read_text(encoding="utf-8").replace("1.6.6", "1.7.0"), "utf-8")
    future = analyze(open_store(str(table)), recommendations=False)
    (w402,) = [d for d in future.diagnostics if d.code == "W402"]
    assert "delta-rs 1.7.0 (unverified: no release measured)" in w402.message
    assert future.races
    assert all("unverified" in r.verdict.profile.name for r in future.races)
    original = analyze(open_store(str(SAMPLE_LOG)), recommendations=False)
    assert not [d for d in original.diagnostics if d.code == "W402"]
