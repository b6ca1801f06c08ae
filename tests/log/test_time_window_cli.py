"""--since/--until on explain, history and whatif, --at on snapshot, and the window an --error
text's time chooses: said in the report (JSON keys and the text line), on real logs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.errors import UsageError
from deltaforensics.log.commit_times import iso_ms
from deltaforensics.log.selection import parse_moment
from deltaforensics.report.validate import schema_errors
from tests.support.builder import LogBuilder

HOUR = 3_600_000


def stamped_table(
    path: Path, commits: int, *, step_seconds: float, start_ms: int | None = None, late_ms: int = 0
) -> LogBuilder:
    """A real log of ``commits`` appends, each commit file's modification time set to its
    commit time plus ``late_ms`` (the file lands just after the writer's clock read)."""
    extra = {} if start_ms is None else {"start_ms": start_ms}
    b = LogBuilder(path, partition_by=["date"], step_seconds=step_seconds, **extra)
    b.create(add=[b.file("date=A")])
    for v in range(1, commits):
        b.write(add=[b.file("date=A" if v % 2 else "date=B")])
    for v in range(commits):
        ns = (b.time_of(v) + late_ms) * 1_000_000
        os.utime(b.path / "_delta_log" / f"{v:020d}.json", ns=(ns, ns))
    return b


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> LogBuilder:
    """40 commits two hours apart."""
    return stamped_table(
        tmp_path_factory.mktemp("tw") / "orders", 40, step_seconds=7200, late_ms=1500
    )


def test_history_since_until_in_json_and_in_the_table(
    capsys: pytest.CaptureFixture[str], table: LogBuilder
) -> None:
    since, until = iso_ms(table.time_of(10) + 1500), iso_ms(table.time_of(20) + 1500)
    assert since is not None and until is not None
    code, out, _ = run_cli(
        capsys, "history", str(table.path), "--since", since, "--until", until, "--format", "json"
    )
    assert code == 0
    doc = json.loads(out)
    assert [c["version"] for c in doc["commits"]] == list(range(10, 21))
    assert schema_errors(doc, "history") == []
    window = doc["time_window"]
    assert (window["first_version"], window["last_version"]) == (10, 20)
    assert window["clock"] == "file modification times"
    assert window["since"] == since
    code, out, _ = run_cli(capsys, "history", str(table.path), "--since", since.removesuffix("Z"))
    assert out.splitlines()[0].startswith("versions 10..")
    assert out.splitlines()[0].endswith(".. now (file modification times)")


def test_explain_and_whatif_take_a_window(
    capsys: pytest.CaptureFixture[str], table: LogBuilder
) -> None:
    since = iso_ms(table.time_of(30))
    assert since is not None
    code, out, _ = run_cli(capsys, "explain", str(table.path), "--since", since, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert schema_errors(doc, "explain") == []
    assert doc["time_window"]["first_version"] == 30
    assert doc["time_window"]["text"].startswith("versions 30..39 = ")
    code, out, _ = run_cli(
        capsys, "explain", str(table.path), "--since", since, "--format", "markdown"
    )
    assert "versions 30..39 = " in out
    code, out, _ = run_cli(
        capsys, "whatif", str(table.path), "--isolation", "Serializable", "--until", since
    )
    assert code == 0
    assert schema_errors(json.loads(out), "whatif") == []
    assert json.loads(out)["time_window"]["last_version"] == 29


def test_snapshot_at_is_the_version_active_then(
    capsys: pytest.CaptureFixture[str], table: LogBuilder
) -> None:
    at = iso_ms(table.time_of(7) + HOUR)  # between v7 and v8
    assert at is not None
    code, out, _ = run_cli(capsys, "snapshot", str(table.path), "--at", at, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert schema_errors(doc, "snapshot") == []
    assert doc["version"] == 7
    assert doc["time_window"]["last_version"] == 7
    code, out, _ = run_cli(capsys, "snapshot", str(table.path), "--until", at)
    assert "versions 0..7" in out.splitlines()[1]


def test_an_error_text_without_a_version_narrows_the_window_to_its_time(
    capsys: pytest.CaptureFixture[str], table: LogBuilder, tmp_path: Path
) -> None:
    logged = iso_ms(table.time_of(30) + 60_000)
    error = tmp_path / "driver.log"
    error.write_text(
        f"{logged} ERROR deltalake.exceptions.CommitFailedError: Failed to commit "
        "transaction: Commit failed: a concurrent transactions added new data.\n"
    )
    code, out, _ = run_cli(
        capsys, "explain", str(table.path), "--error", str(error), "--format", "json"
    )
    assert code == 0
    window = json.loads(out)["time_window"]
    # v19 is the first commit of the day before the failure (v18 is a minute too early)
    assert (window["first_version"], window["last_version"]) == (19, 30)
    assert window["narrowed_by"] == "the --error text"


def test_versions_and_times_together_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], table: LogBuilder
) -> None:
    code, _, err = run_cli(
        capsys, "history", str(table.path), "--since", "2d", "--from-version", "3"
    )
    assert code == 2
    assert "not both" in err
    code, _, err = run_cli(capsys, "history", str(table.path), "--since", "yesterday")
    assert code == 2
    assert "--since 'yesterday'" in err


def test_a_window_before_the_log_exits_3_naming_the_earliest_commit(
    capsys: pytest.CaptureFixture[str], table: LogBuilder
) -> None:
    code, _, err = run_cli(capsys, "explain", str(table.path), "--until", "2001-01-01")
    assert code == 3
    assert "before the earliest retained commit, version 0" in err
    assert len(err.strip().splitlines()) == 1


def test_relative_and_absolute_times() -> None:
    now = 1_800_000_000_000
    assert parse_moment("7d", "--since", now) == now - 7 * 24 * HOUR
    assert parse_moment("36h", "--since", now) == now - 36 * HOUR
    assert parse_moment("90m", "--since", now) == now - 90 * 60_000
    assert parse_moment("2026-11-18T06:00", "--since", now) == 1_794_981_600_000  # no zone: UTC
    assert parse_moment("2026-11-18T07:00+01:00", "--since", now) == 1_794_981_600_000
    with pytest.raises(UsageError):
        parse_moment("-7d", "--since", now)
