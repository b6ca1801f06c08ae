"""One Spark job reads many tables into the frames the polars engine builds for each.

``fleet_frames`` fetches every table's files in one job and scans each table in its group on an
executor; for every corpus table and sample log, in history mode (stats kept) and snapshot mode
(the newest checkpoint, stats dropped), the frames, or the error, equal
``PolarsEngine(store).scan(segment)``'s.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import fsspec
import pytest

from deltaforensics.analysis import open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.engines.spark_fleet import (
    FleetTable,
    fleet_frames,
    portable_error,
    rebuild_error,
    run_fleet,
)
from deltaforensics.engines.spark_paths import spark_log_uri
from deltaforensics.errors import DeltaForensicsError, LogCorruptError
from deltaforensics.log.listing import list_log
from deltaforensics.log.segment import LogSegment
from deltaforensics.model.schemas import ActionFrames
from tests.engines.test_spark_parity import (
    COMMIT_INFO,
    MODES,
    ODD_LOGS,
    TABLES,
    assert_same_frames,
    write_log,
)

pytestmark = pytest.mark.spark

Outcomes = dict[str, tuple[ActionFrames | BaseException, ActionFrames | BaseException]]


def plan(tables: list[Path], mode: str) -> list[tuple[str, Any, Any, LogSegment]]:
    build = LogSegment.for_history if mode == "history" else LogSegment.for_version
    planned = []
    for t in tables:
        store = open_store(str(t))
        try:
            listing = list_log(store)
            segment = build(listing)
        except DeltaForensicsError:
            continue  # no segment to scan: load() reports these, and test_spark_parity checks it
        planned.append((f"{t.parent.name}/{t.name}", store, listing, segment))
    return planned


class Recorded(logging.Handler):
    """Warnings of a logger, kept: a table redone on the driver says so there."""

    def __init__(self, logger: str) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.logger = logging.getLogger(logger)

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> Recorded:
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)


REDONE: dict[str, list[str]] = {}  # mode -> tables the fleet run redid on the driver


def compare(spark: Any, tables: list[Path], mode: str) -> Outcomes:
    with_stats = MODES[mode]
    planned = plan(tables, mode)
    with Recorded("deltaforensics.engines.spark_fleet") as redone:
        got = fleet_frames(spark, planned, with_stats=with_stats)
    REDONE[mode] = redone.messages
    out: Outcomes = {}
    for key, store, _, segment in planned:
        try:
            expected: ActionFrames | BaseException = PolarsEngine(
                store, with_stats=with_stats
            ).scan(segment)
        except Exception as exc:
            expected = exc
        out[key] = (expected, got[key])
    return out


def assert_same(expected: ActionFrames | BaseException, got: ActionFrames | BaseException) -> None:
    if isinstance(expected, BaseException):
        assert isinstance(got, BaseException), "the fleet read what the polars engine could not"
        assert (type(got), str(got)) == (type(expected), str(expected))
        return
    assert isinstance(got, ActionFrames), got
    assert_same_frames(expected, got)


@pytest.fixture(scope="module")
def corpus_runs(spark: Any) -> dict[str, Outcomes]:
    return {mode: compare(spark, TABLES, mode) for mode in MODES}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("table", [pytest.param(t, id=f"{t.parent.name}/{t.name}") for t in TABLES])
def test_one_fleet_job_builds_every_tables_polars_frames(
    table: Path, mode: str, corpus_runs: dict[str, Outcomes]
) -> None:
    key = f"{table.parent.name}/{table.name}"
    if key not in corpus_runs[mode]:  # no segment to scan: the log cannot be replayed at all
        build = LogSegment.for_history if mode == "history" else LogSegment.for_version
        with pytest.raises(DeltaForensicsError):
            build(list_log(open_store(str(table))))
        return
    assert_same(*corpus_runs[mode][key])


@pytest.mark.parametrize("mode", list(MODES))
def test_the_fleet_reads_every_table_on_spark_not_on_the_driver(
    mode: str, corpus_runs: dict[str, Outcomes]
) -> None:
    assert REDONE[mode] == []


def test_the_fleet_runs_cover_checkpoints_and_many_tables(
    corpus_runs: dict[str, Outcomes],
) -> None:
    snapshots = corpus_runs["snapshot"].values()
    assert len(corpus_runs["history"]) >= len(TABLES) - 5
    kinds = {f.base_version >= 0 for f, _ in snapshots if isinstance(f, ActionFrames)}
    assert kinds == {True, False}  # some read a checkpoint, some start at v0


def test_errors_come_back_with_their_type_and_text(spark: Any, tmp_path: Path) -> None:
    tables = [write_log(tmp_path / n, ODD_LOGS[n]) for n in ("truncated-line", "not-utf8")]
    runs = compare(spark, tables, "history")
    assert len(runs) == 2
    for expected, got in runs.values():
        assert isinstance(expected, LogCorruptError)
        assert_same(expected, got)


def test_a_file_gone_before_the_job_is_read_on_the_driver(spark: Any, tmp_path: Path) -> None:
    table = write_log(tmp_path / "t", COMMIT_INFO)
    planned = plan([table], "history")
    (table / "_delta_log" / f"{1:020d}.json").unlink()  # after listing, before the job
    got = fleet_frames(spark, planned)
    key, store, _, segment = planned[0]
    with pytest.raises(DeltaForensicsError) as expected:
        PolarsEngine(store).scan(segment)
    assert_same(expected.value, got[key])
    assert "vanished" in str(got[key])


def test_a_table_spark_cannot_reach_is_scanned_on_the_driver(spark: Any, tmp_path: Path) -> None:
    fs = fsspec.filesystem("memory")
    for f in (TABLES[0] / "_delta_log").iterdir():
        if f.is_file():
            fs.pipe(f"/fleet/{TABLES[0].name}/_delta_log/{f.name}", f.read_bytes())
    store = open_store(f"memory://fleet/{TABLES[0].name}")
    listing = list_log(store)
    segment = LogSegment.for_history(listing)
    local = write_log(tmp_path / "local", COMMIT_INFO)
    planned = [("memory", store, listing, segment), *plan([local], "history")]
    got = fleet_frames(spark, planned)
    assert_same(PolarsEngine(store).scan(segment), got["memory"])
    assert isinstance(got[planned[1][0]], ActionFrames)


def test_an_exception_that_cannot_be_pickled_keeps_its_class_text_and_notes() -> None:
    err = LogCorruptError("00000000000000000003.json", "invalid JSON", 3)
    err.add_note("hint: try --to-version 2")
    back = rebuild_error(*portable_error(err))
    assert type(back) is LogCorruptError
    assert str(back) == str(err)
    assert back.__notes__ == ["hint: try --to-version 2"]
    assert isinstance(rebuild_error("no.such.module", "Gone", "x", []), RuntimeError)


def _task(store: Any, context: Any) -> int:
    """Which task of the job ran a table's work (a Python worker knows its Spark task)."""
    from pyspark import TaskContext

    task = TaskContext.get()
    assert task is not None
    return task.partitionId()


def test_the_tables_of_a_fleet_are_spread_over_several_tasks(spark: Any, tmp_path: Path) -> None:
    # Adaptive execution once packed the whole (small) shuffle into one partition, so one
    # Python worker analysed every table in turn and a second core added nothing.
    tables = [write_log(tmp_path / f"t{i}", COMMIT_INFO) for i in range(8)]
    fleet = []
    for key, store, listing, segment in plan(tables, "history"):
        log_uri = spark_log_uri(store)
        assert log_uri is not None
        fleet.append(FleetTable.for_segment(key, listing, segment, log_uri=log_uri, store=store))
    results = run_fleet(spark, fleet, _task)
    assert sorted(results) == sorted(t.key for t in fleet)
    assert all(r.error is None and not r.missed for r in results.values())
    assert len({r.value for r in results.values()}) > 1
