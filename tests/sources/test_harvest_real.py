"""The failure harvest on real Spark 4.2 / Delta 4.4 event logs and driver logs (support.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from deltaforensics.errors import StorageError
from deltaforensics.log.file_tree import FileTree
from deltaforensics.sources import group_files, harvest, read_failures
from deltaforensics.sources.codecs import decoded_pieces, detect
from tests.sources.support import FIXTURES, expected_conflicts, fixture_tables, truth

EVENTLOGS = FIXTURES / "eventlogs"
DBX = FIXTURES / "dbx" / "0101-120000-abcd1234"
CODEC_FILES = {
    "zstd": "local-1795858444023.zstd",
    "lz4": "local-1795858490825.lz4",
    "snappy": "local-1795858514327.snappy",
    "lzf": "local-1795858544224.lzf",
}


def _app(name: str) -> set[tuple[str, int, str]]:
    return {c for c in expected_conflicts() if c[0].startswith(name + "_")}


def test_every_conflict_the_harness_caught_is_found_with_its_table_winner_and_exception() -> None:
    result = harvest([str(EVENTLOGS), str(FIXTURES / "dbx")], fixture_tables())
    expected = expected_conflicts()
    found = {(c.table, c.winner_version, c.exception) for c in result.conflicts}
    assert len(expected) == 54
    assert found == expected  # all found, nothing else reported as a conflict
    assert len(result.conflicts) == len(expected)  # event log + driver log: one finding each
    assert result.unmatched == ()
    assert result.diagnostics == ()
    # the two non-conflict failures of each application: counted, never conflicts
    assert result.other_failures >= 12


@pytest.mark.parametrize("codec", sorted(CODEC_FILES))
def test_each_spark_codec_in_its_java_framing(codec: str) -> None:
    path = EVENTLOGS / CODEC_FILES[codec]
    with path.open("rb") as stream:
        assert detect(stream.read(16)) == codec
    reading = read_failures(str(path))
    assert reading.diagnostics == ()
    app = reading.failures[0].app_id
    assert app == path.name.split(".")[0]
    result = harvest([str(path)], fixture_tables())
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == _app(codec)
    assert result.other_failures == 2  # the division by zero and the failed assert_true
    for conflict in result.conflicts:
        assert conflict.source_kind == "eventlog"
        assert conflict.failure.started_at is not None
        assert conflict.statement in (
            "Execute DeleteCommand",
            "Execute UpdateCommand",
            "AppendDataExecV1",
        )


def test_a_rolled_eventlog_v2_folder_is_one_application() -> None:
    groups = group_files(FileTree.from_uri(str(EVENTLOGS)).list_files())
    rolled = [g for g in groups if "eventlog_v2_" in g.files[0].name]
    assert len(rolled) == 1 and rolled[0].kind == "eventlog"
    result = harvest([str(EVENTLOGS / "eventlog_v2_local-1795858564300")], fixture_tables())
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == _app("rolled")


def test_databricks_delivery_layout_rotated_gzip_parts_and_driver_logs() -> None:
    reading = read_failures(str(DBX))
    kinds = {f.source_kind for f in reading.failures}
    assert kinds == {"eventlog", "driverlog"}
    result = harvest([str(DBX / "eventlog")], fixture_tables())
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == _app("plain")
    # an execution that started in the rotated part and ended in the active one is found whole
    assert all(c.failure.started_at is not None for c in result.conflicts)


def test_driver_logs_alone_find_the_conflicts_with_their_times() -> None:
    result = harvest([str(DBX / "driver")], fixture_tables())
    found = {(c.table, c.winner_version, c.exception) for c in result.conflicts}
    assert found == expected_conflicts()
    assert all(c.source_kind == "driverlog" for c in result.conflicts)
    assert all(c.failure.failed_at is not None for c in result.conflicts)
    assert result.unmatched == ()


def test_event_log_and_driver_log_of_one_failure_are_one_finding() -> None:
    result = harvest([str(EVENTLOGS / CODEC_FILES["zstd"]), str(DBX / "driver")], fixture_tables())
    zstd = [c for c in result.conflicts if c.table and c.table.startswith("zstd_")]
    assert len(zstd) == 9
    for conflict in zstd:
        assert conflict.source_kind == "eventlog"  # the richer record is kept
        assert any("log4j" in s for s in conflict.sources)


def test_a_failure_outside_the_analysed_tables_is_unmatched_with_its_reason() -> None:
    only_t0 = [t for t in fixture_tables() if t.name == "zstd_t0"]
    result = harvest([str(EVENTLOGS / CODEC_FILES["zstd"])], only_t0)
    assert len(result.conflicts) == 3
    assert len(result.unmatched) == 6
    assert all(c.table is None and c.unmatched_reason for c in result.unmatched)


def test_an_inprogress_log_is_read_to_its_last_complete_line(tmp_path: Path) -> None:
    text = DBX / "eventlog" / "0101-120000-abcd1234_10_0_0_1" / "7355608187465843" / "eventlog"
    data = text.read_bytes()
    cut = data.rfind(b"SparkListenerSQLExecutionEnd")  # mid-line, inside the last end event
    target = tmp_path / "local-1.inprogress"
    target.write_bytes(data[: cut + 10])
    reading = read_failures(str(target))
    assert reading.diagnostics == ()
    complete = read_failures(str(text))
    assert 0 < len(reading.failures) <= len(complete.failures)


def test_a_truncated_part_is_a_diagnostic_and_the_rest_is_read(tmp_path: Path) -> None:
    for name in CODEC_FILES.values():
        shutil.copy(EVENTLOGS / name, tmp_path / name)
    damaged = tmp_path / CODEC_FILES["lz4"]
    damaged.write_bytes(damaged.read_bytes()[:-5000])
    reading = read_failures(str(tmp_path))
    assert len(reading.diagnostics) == 1
    diag = reading.diagnostics[0]
    assert diag.source.endswith(CODEC_FILES["lz4"])
    assert "truncated" in diag.message
    assert {f.app_id for f in reading.failures} >= {"local-1795858444023", "local-1795858514327"}


def test_a_corrupt_gzip_part_is_a_diagnostic(tmp_path: Path) -> None:
    part = tmp_path / "driver" / "log4j-2026-11-28-09-1.log.gz"
    part.parent.mkdir()
    data = (DBX / "driver" / part.name).read_bytes()
    part.write_bytes(data[: len(data) // 2])
    reading = read_failures(str(tmp_path))
    assert [d.source for d in reading.diagnostics] == [str(part)]


def test_an_unreadable_source_raises_the_tools_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    with pytest.raises(StorageError, match=re.escape(str(missing))):
        read_failures(str(missing))


def test_the_time_window_keeps_only_failures_inside_it() -> None:
    everything = read_failures(str(EVENTLOGS / CODEC_FILES["zstd"]))
    times = sorted(f.failed_at for f in everything.failures if f.failed_at is not None)
    middle = times[len(times) // 2]
    later = read_failures(str(EVENTLOGS / CODEC_FILES["zstd"]), since_ms=middle)
    assert all(f.failed_at is None or f.failed_at >= middle for f in later.failures)
    assert 0 < len(later.failures) < len(everything.failures)


def test_fixtures_hold_no_configuration_event_and_no_configuration() -> None:
    for path in FIXTURES.rglob("*"):
        if not path.is_file() or path.suffix == ".json" or path.name == "truth.jsonl":
            continue
        with path.open("rb") as stream:
            text = b"".join(decoded_pieces(stream))
        assert b"SparkListenerEnvironmentUpdate" not in text, path
        assert b"spark.driver.extraJavaOptions" not in text, path
        assert b"spark.jars" not in text, path
        assert b'"modifiedConfigs":{"' not in text, path


def test_ground_truth_covers_three_exceptions_and_two_other_failures_per_application() -> None:
    rows = truth()
    outcomes = {str(r["outcome"]) for r in rows}
    assert {"ConcurrentDeleteReadException", "ConcurrentAppendException"} <= outcomes
    assert "MetadataChangedException" in outcomes
    assert sum(1 for r in rows if r["outcome"] == "error") == 12


def test_one_driver_log_file_and_one_rolled_folder_given_directly(tmp_path: Path) -> None:
    log = DBX / "driver" / "log4j-active.log"
    reading = read_failures(str(log))
    assert reading.failures and {f.source_kind for f in reading.failures} == {"driverlog"}
    # a rolled folder given itself, its part split in two: one application, read in order
    part = EVENTLOGS / "eventlog_v2_local-1795858564300" / "events_1_local-1795858564300.zstd"
    with part.open("rb") as stream:
        lines = b"".join(decoded_pieces(stream)).splitlines(keepends=True)
    folder = tmp_path / "eventlog_v2_local-1795858564300"
    folder.mkdir()
    whole = read_failures(str(part)).failures
    first = f'"executionId":{whole[0].execution_id},'.encode()
    half = next(
        i + 1 for i, line in enumerate(lines) if b"ExecutionStart" in line and first in line
    )
    (folder / "events_2_local-1795858564300").write_bytes(b"".join(lines[half:]))
    (folder / "events_1_local-1795858564300").write_bytes(b"".join(lines[:half]))
    split = read_failures(str(folder)).failures
    assert split[0].started_at is not None  # its start in part 1, its end in part 2
    assert [(f.execution_id, f.started_at) for f in split] == [
        (f.execution_id, f.started_at) for f in whole
    ]


@pytest.mark.parametrize("codec", sorted(CODEC_FILES))
def test_a_running_applications_compressed_log_is_read_to_its_last_whole_block(
    codec: str, tmp_path: Path
) -> None:
    data = (EVENTLOGS / CODEC_FILES[codec]).read_bytes()
    running = tmp_path / (CODEC_FILES[codec] + ".inprogress")
    running.write_bytes(data[: len(data) * 2 // 3])  # the writer is inside a block
    reading = read_failures(str(running))
    assert reading.diagnostics == ()  # not damage: the block is still being written
    complete = read_failures(str(EVENTLOGS / CODEC_FILES[codec])).failures
    assert 0 < len(reading.failures) < len(complete)
    done = tmp_path / CODEC_FILES[codec]
    done.write_bytes(data[: len(data) * 2 // 3])
    if codec != "zstd":  # a finished file cut short is damage (zstd stops at its last frame)
        assert len(read_failures(str(done)).diagnostics) == 1
