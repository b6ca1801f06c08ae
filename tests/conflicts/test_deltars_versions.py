"""The delta-rs rows follow the writer's release: older deltalake releases, run for real.

Each release in ``CI_RELEASES`` gets its own virtualenv under the checkout's ``.cache/``
(made on first use, :mod:`tests.conflicts.deltars_envs`); the harness runs there as a
subprocess and writes real tables whose logs this process analyses. CI runs a stratified
sample (every stratum, once per outcome the release gives); ``scripts/fidelity_deltars.py``
runs every case on every release in ``OLDER_RELEASES`` and writes docs/fidelity.md's table.

Why ``CI_RELEASES`` are 0.25.5 and 1.6.3: see :mod:`tests.conflicts.deltars_envs`; with the
installed 1.6.6 they cross the row splits that matter most in the wild (reads without a
predicate, the compaction double delete).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import analyze, open_store
from deltaforensics.profiles import delta_rs, profile_for
from tests.conflicts.deltars_agreement import judge, run_engine
from tests.conflicts.deltars_cases import CASES, Case, release_version, stratified_sample
from tests.conflicts.deltars_envs import CI_RELEASES, EngineInstallError, install, shared_work

Ran = dict[str, tuple[dict[str, Any], Path]]


SAMPLE = [
    (release, case)
    for release in CI_RELEASES
    for case in stratified_sample(release_version(release))
]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """Each release's sample, run on the engine on first use (once per test run, shared by
    pytest-xdist workers); a release that does not install fails in one line."""
    runs: dict[str, Ran] = {}
    for release in CI_RELEASES:
        sample = stratified_sample(release_version(release))
        work = shared_work(tmp_path_factory.getbasetemp(), release, [c.id for c in sample])
        try:
            runs[release] = run_engine(release, sample, work)
        except EngineInstallError as exc:
            pytest.fail(str(exc), pytrace=False)
    return runs


@pytest.mark.engine
@pytest.mark.parametrize(
    ("release", "case"), [pytest.param(r, c, id=f"{r}-{c.id}") for r, c in SAMPLE]
)
def test_the_release_row_agrees_with_that_release(
    ran: dict[str, Ran], release: str, case: Case
) -> None:
    result = judge(case, *ran[release][case.id], release)
    assert result.profile == f"delta-rs {release}", "the commit did not select its own row"
    assert result.failures() == [], f"deltalake {release}"
    known = case.known_at(release_version(release))
    assert result.real == known, f"deltalake {release} itself gives {result.real} ({known})"


def test_the_ci_sample_covers_every_stratum_and_a_split_case_each() -> None:
    strata = {c.stratum for c in CASES}
    for release in CI_RELEASES:
        sample = stratified_sample(release_version(release))
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


def test_a_release_that_does_not_install_fails_in_one_line_naming_it(tmp_path: Path) -> None:
    """A real pip against PyPI, asked for a deltalake version that does not exist."""
    with pytest.raises(EngineInstallError) as caught:
        install(tmp_path / "venv", ["deltalake==0.0.0", "pyarrow==19.0.1"])
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("could not install deltalake==0.0.0 pyarrow==19.0.1 into ")
    assert not (tmp_path / "venv" / "installed.json").exists()
