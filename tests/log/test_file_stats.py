"""File statistics read back from the log (issue #23): the same texts, and the same reports,
as when the frames hold them. Real logs only: every corpus table and sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from deltaforensics import loading
from deltaforensics.analysis import load, open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.file_stats import LogFileStats
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import list_log
from deltaforensics.log.segment import LogSegment
from tests.conflicts.deltars_agreement import run_engine
from tests.conflicts.deltars_cases import CASES
from tests.conflicts.deltars_envs import installed_release, shared_work
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.golden.cases import README_ATTEMPTS
from tests.support.builder import LogBuilder
from tests.support.scripts import load_script

SAMPLES = sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
TABLES = [*corpus_tables(), *SAMPLES]


def _loaded(table: Path, *, with_stats: bool) -> loading.LoadedLog | str:
    store = open_store(str(table))
    try:
        return load(store, engine=PolarsEngine(store, with_stats=with_stats))
    except DeltaForensicsError as err:
        return str(err)


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_statistics_read_back_are_the_loaded_ones(table: Path) -> None:
    """Every file row's statistics, and every lifecycle row's, read back from the log equal
    the ones a load with statistics holds; a log one load refuses, the other refuses alike."""
    held = _loaded(table, with_stats=True)
    lean = _loaded(table, with_stats=False)
    if isinstance(held, str) or isinstance(lean, str):
        assert held == lean
        return
    files = lean.replay.frames.files
    assert isinstance(lean.replay.frames.file_stats, LogFileStats)
    assert files["stats"].null_count() == files.height  # nothing held: all read back
    assert lean.replay.with_file_stats(files)["stats"].to_list() == (
        held.replay.frames.files["stats"].to_list()
    )
    lifecycle = lean.replay.with_file_stats(lean.replay.lifecycle)
    assert lifecycle["stats"].to_list() == held.replay.lifecycle["stats"].to_list()
    # a few rows, asked for in another order, find their own statistics
    picked = list(range(files.height - 1, -1, -3))
    some = lean.replay.with_file_stats(files[picked])
    assert some["stats"].to_list() == held.replay.frames.files[picked]["stats"].to_list()


def test_some_table_has_statistics_to_read_back() -> None:
    """The comparison above compares something: the corpus holds statistics in commits and
    in checkpoints."""
    sources: set[str] = set()
    for table in TABLES:
        held = _loaded(table, with_stats=True)
        if not isinstance(held, str):
            files = held.replay.frames.files.filter(pl.col("stats").is_not_null())
            sources.update(files["source"].unique().to_list())
    assert sources == {"commit", "checkpoint"}


CHECK_OUTPUTS = load_script("check_outputs")
_run = CHECK_OUTPUTS.run_cli


def _runs(table: Path) -> list[list[str]]:
    """The JSON runs ``scripts/check_outputs.py`` makes of a table (explain, whatif of each
    kind), the README's attempts on its sample, and attempts whose removed files only the
    statistics decide (each fails without them: checked by removing the accessor's call)."""
    runs = [argv for name, argv in CHECK_OUTPUTS.cases(table) if name.endswith(".json")]
    runs = [a for a in runs if a[0] != "history" and a[0] != "snapshot"]
    if table.name == "merge_without_partition_literal":
        runs.append(["explain", str(table), *README_ATTEMPTS, "--format", "json"])
    if table.name == "generated__deltalake-1.6.6-dml":  # the files a DELETE removes: by stats
        for rv in ("5", "8"):
            attempt = ["--read-version", rv, "--attempt", "DELETE FROM t WHERE id = 7"]
            runs.append(["explain", str(table), *attempt, "--format", "json"])
    return runs


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_reports_do_not_depend_on_the_budget(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """explain (with attempts on the README's sample), and whatif of each kind, print the same
    whether the load holds the statistics (the budget at infinity) or reads them back (0)."""
    for argv in _runs(table):
        monkeypatch.setattr(loading, "FILE_STATS_BUDGET", 2**62)
        holding = _run(argv)
        monkeypatch.setattr(loading, "FILE_STATS_BUDGET", 0)
        assert _run(argv) == holding, argv


STATS_CASES = tuple(c for c in CASES if c.stratum == "stats")


@pytest.fixture(scope="module")
def raced(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Tables where a real deltalake DELETE raced an append, and delta-rs decided by the
    appended files' min/max statistics: the log up to the winner, then the loser's commit."""
    release = installed_release()
    work = shared_work(tmp_path_factory.getbasetemp(), release, [c.id for c in STATS_CASES])
    tables = []
    for res, folder in run_engine(release, STATS_CASES, work).values():
        table = folder / "raced"
        log = table / "_delta_log"
        shutil.rmtree(table, ignore_errors=True)
        log.mkdir(parents=True)
        winner = res["winner_version"]
        for v in range(winner + 1):
            shutil.copy(folder / "real" / "_delta_log" / f"{v:020d}.json", log)
        loser = folder / "shadow" / "_delta_log" / f"{res['read_version'] + 1:020d}.json"
        commit = json.loads(loser.read_text().splitlines()[0])
        commit["commitInfo"]["readVersion"] = res["read_version"]
        lines = [json.dumps(commit), *loser.read_text().splitlines()[1:]]
        (log / f"{winner + 1:020d}.json").write_text("\n".join(lines) + "\n")
        tables.append(table)
    return tables


@pytest.mark.engine
def test_delta_rs_stats_matching_reads_the_statistics_back(
    raced: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """delta-rs matches the loser's predicate against the winner's files by their statistics:
    a report made from frames without them reads them back and decides as the one with them."""
    outcomes = set()
    for table in raced:
        argv = ["explain", str(table), "--format", "json"]
        monkeypatch.setattr(loading, "FILE_STATS_BUDGET", 2**62)
        holding = _run(argv)
        monkeypatch.setattr(loading, "FILE_STATS_BUDGET", 0)
        assert _run(argv) == holding, table
        races = json.loads(holding[1])["races"]
        outcomes.update(r["outcome"] for r in races)
    # one pair commits only because the statistics say the appended rows are not read
    assert outcomes == {"commits", "ConcurrentAppendException"}


class _StatCounting:
    """A real local store that counts the files whose size it is asked for."""

    def __init__(self, inner: FsspecLogStore) -> None:
        self.inner, self.stated = inner, 0
        self.uri = inner.uri

    def list_log(self) -> list[object]:
        return self.inner.list_log()  # type: ignore[return-value]

    def list_log_names(self) -> list[str] | None:
        return self.inner.list_log_names()

    def file_facts(self, names: list[str]) -> dict[str, object]:
        self.stated += len(names)
        return self.inner.file_facts(names)  # type: ignore[return-value]

    def read(self, name: str) -> bytes:
        return self.inner.read(name)

    def read_many(self, names: list[str]) -> dict[str, bytes]:
        return self.inner.read_many(names)


def test_the_budget_sums_the_segment_and_stops_once_it_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = LogBuilder(tmp_path / "t", partition_by=["date"])
    b.create(add=[b.file("date=A")])
    for _ in range(39):
        b.write(add=[b.file("date=A")])
    sizes = [p.stat().st_size for p in sorted((b.path / "_delta_log").glob("*.json"))]
    store = _StatCounting(FsspecLogStore.from_uri(str(b.path)))
    listing = list_log(store)  # type: ignore[arg-type]
    segment = LogSegment.for_history(listing)
    assert store.stated == 0
    monkeypatch.setattr(loading, "FILE_STATS_BUDGET", sum(sizes) + 1)
    assert loading.holds_file_stats(listing, segment)
    monkeypatch.setattr(loading, "FILE_STATS_BUDGET", sum(sizes))
    assert not loading.holds_file_stats(listing, segment)
    store = _StatCounting(FsspecLogStore.from_uri(str(b.path)))
    listing = list_log(store)  # type: ignore[arg-type]
    monkeypatch.setattr(loading, "_SIZES_AT_ONCE", 4)
    monkeypatch.setattr(loading, "FILE_STATS_BUDGET", sum(sizes[:6]))
    assert not loading.holds_file_stats(listing, LogSegment.for_history(listing))
    assert store.stated == 8  # two slices of four: the budget was spent in the second
