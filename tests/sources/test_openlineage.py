"""``openlineage:`` sources.

- The real Spark listener (``openlineage-spark_2.13:1.53.0``, the newest Maven Central serves,
  on Spark 4.2.0 / Delta 4.4.0; fixtures/openlineage-spark-4.2, trimmed by
  trim_openlineage.py): it records no failure of a losing Delta commit, so nothing is found
  there, and nothing false.
- Events WRITTEN BY THE OPENLINEAGE PYTHON CLIENT (openlineage_events.py) in the shape the
  listener's schema defines, carrying the real failures of the Spark 4.2 event logs: every
  conflict found with its table, winner and exception, as from the event logs themselves.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.evidence.error_text import extract_conflicts
from deltaforensics.failures import TableCommits
from deltaforensics.failures.records import FailedStatement
from deltaforensics.sources import harvest, read_failures
from deltaforensics.sources.attempts import harvested_attempts
from deltaforensics.sources.openlineage import dataset_location
from tests.sources.openlineage_events import write_events
from tests.sources.support import (
    FIXTURES,
    WRITTEN_AT,
    expected_conflicts,
    fixture_tables,
    truth,
)

LISTENER = FIXTURES.parent / "openlineage-spark-4.2"
EVENTLOGS = FIXTURES / "eventlogs"
ZSTD = EVENTLOGS / "local-1795858444023.zstd"


def _found(result: object) -> set[tuple[str | None, int | None, str]]:
    return {(c.table, c.winner_version, c.exception) for c in result.conflicts}  # type: ignore[attr-defined]


def _sql_of_truth() -> dict[tuple[str, str, str], str]:
    """(app, table path, exception) -> the statement's SQL as the listener's sql facet holds it."""
    return {
        (str(r["app"]), str(r["table"]), str(r["outcome"])): str(r["sql"]).replace(
            "{table}", f"delta.`{r['table']}`"
        )
        for r in truth()
        if r["table"] and r["outcome"] not in ("commits", "error")
    }


def _sql_for(failure: FailedStatement) -> str | None:
    found = extract_conflicts(failure.error_text, source=failure.source)
    if not found or not failure.locations:
        return None
    table = "/" + failure.locations[0].removeprefix("file:").lstrip("/")
    return _sql_of_truth().get((str(failure.app_id), table, found[0].exception))


def test_the_real_listener_records_no_failure_of_a_losing_commit() -> None:
    events = [
        json.loads(line)
        for line in (LISTENER / "spark-listener-1.53.0.ndjson").read_text().splitlines()
    ]
    lost = [r for r in truth(LISTENER) if r["outcome"] not in ("commits", "error")]
    assert len(lost) == 9  # the harness caught nine conflicts in that run
    assert {e["eventType"] for e in events} == {"START", "COMPLETE"}  # no FAIL at all
    reading = read_failures(f"openlineage:{LISTENER / 'spark-listener-1.53.0.ndjson'}")
    assert reading.failures == () and reading.diagnostics == ()
    tables = [TableCommits(f"ol_t{i}", f"/tmp/sparkfail/ol-tables/ol_t{i}") for i in range(3)]
    result = harvest([f"openlineage:{LISTENER}"], tables)
    assert result.conflicts == () and result.unmatched == () and result.other_failures == 0


def test_written_events_find_every_conflict_with_table_winner_and_exception(
    tmp_path: Path,
) -> None:
    target = tmp_path / "openlineage.ndjson"
    failures = read_failures(str(ZSTD)).failures
    assert write_events(failures, target, sql_for=_sql_for) == len(failures) == 11
    result = harvest([f"openlineage:{target}"], fixture_tables())
    expected = {c for c in expected_conflicts() if c[0].startswith("zstd_")}
    assert len(expected) == 9
    assert _found(result) == expected
    assert result.unmatched == () and result.diagnostics == ()
    assert result.other_failures == 2  # the division by zero, the failed assert_true
    for conflict in result.conflicts:
        assert conflict.source_kind == "openlineage"
        assert conflict.failure.started_at is not None  # from the run's START event
        assert conflict.failure.failed_at is not None
        # the written table, where the plan named it (the listener's outputs)
        assert conflict.failure.locations in ((), (f"/tmp/sparkfail/tables/{conflict.table}",))
        assert conflict.statement is not None and "delta.`/tmp/sparkfail" in conflict.statement


def test_a_folder_of_files_and_gzip_parts_and_the_event_logs_give_one_finding_each(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "lineage"
    folder.mkdir()
    everything = read_failures(str(EVENTLOGS)).failures
    half = len(everything) // 2
    write_events(everything[:half], folder / "events-1.ndjson")
    write_events(everything[half:], tmp_path / "events-2.ndjson")
    with (
        (tmp_path / "events-2.ndjson").open("rb") as raw,
        gzip.open(folder / "events-2.ndjson.gz", "wb") as packed,
    ):
        shutil.copyfileobj(raw, packed)
    from_lineage = harvest([f"openlineage:{folder}"], fixture_tables())
    from_eventlogs = harvest([str(EVENTLOGS)], fixture_tables())
    assert _found(from_lineage) == _found(from_eventlogs)
    assert _found(from_lineage) <= expected_conflicts()
    assert from_lineage.unmatched == ()
    both = harvest([str(EVENTLOGS), f"openlineage:{folder}"], fixture_tables())
    assert len(both.conflicts) == len(from_eventlogs.conflicts)  # seen twice, one finding
    assert all(c.source_kind == "eventlog" for c in both.conflicts)  # the richer record kept


def test_the_statement_becomes_an_attempt_read_at_the_version_its_start_time_bounds(
    tmp_path: Path,
) -> None:
    target = tmp_path / "openlineage.ndjson"
    write_events(read_failures(str(ZSTD)).failures, target, sql_for=_sql_for)
    result = harvest([f"openlineage:{target}"], fixture_tables())
    read_versions = {
        (str(r["table"]).rsplit("/", 1)[-1], int(str(r["tried_after"]))): r["read_version"]
        for r in truth()
        if r["outcome"] not in ("commits", "error") and r["table"]
    }
    checked = 0
    for table in fixture_tables():
        if not table.name.startswith("zstd_"):
            continue
        mine = [c for c in result.conflicts if c.table == table.name]
        specs = harvested_attempts(result.conflicts, table)
        assert len(specs) == len(mine) == 3
        for conflict, spec in zip(
            sorted(mine, key=lambda c: c.started_at or 0),
            sorted(specs, key=lambda s: s.read_version or 0),
            strict=True,
        ):
            assert spec.sql == conflict.statement
            # Delta's time-travel rule on the start time gives what the harness saw it read
            assert spec.read_version == read_versions[(table.name, conflict.winner_version)]
            checked += 1
    assert checked == 9


def test_configuration_facets_are_never_read(tmp_path: Path) -> None:
    secret = "c2VjcmV0LWFjY291bnQta2V5LW5ldmVyLXRvLWxlYWs="
    event = {
        "eventType": "FAIL",
        "eventTime": "2026-11-28T09:00:00Z",
        "run": {
            "runId": "0191d3a4-0000-7000-8000-000000000001",
            "facets": {
                "spark_properties": {
                    "properties": {"spark.hadoop.fs.azure.account.key.acct": secret}
                },
                "environment-properties": {"environment-properties": {"TOKEN": secret}},
                "errorMessage": {
                    "message": "boom",
                    "programmingLanguage": "JAVA",
                    "stackTrace": "java.lang.IllegalStateException: boom",
                },
            },
        },
        "job": {"namespace": "ns", "name": "job"},
        "outputs": [{"namespace": "abfss://c@acct.dfs.core.windows.net", "name": "t"}],
    }
    target = tmp_path / "events.ndjson"
    target.write_text(json.dumps(event) + "\n")
    reading = read_failures(f"openlineage:{target}")
    assert len(reading.failures) == 1
    assert secret not in repr(reading)
    assert reading.failures[0].locations == ("abfss://c@acct.dfs.core.windows.net/t",)


def test_the_window_and_the_cursor(tmp_path: Path) -> None:
    target = tmp_path / "openlineage.ndjson"
    write_events(read_failures(str(ZSTD)).failures, target)
    everything = read_failures(f"openlineage:{target}")
    times = sorted(f.failed_at for f in everything.failures if f.failed_at is not None)
    later = read_failures(f"openlineage:{target}", since_ms=times[5])
    assert len(later.failures) == len(times) - 5
    assert everything.cursor is not None  # the newest file's modification time
    assert read_failures(f"openlineage:{target}", since_ms=everything.cursor + 1).failures == ()


def test_dataset_names_as_the_naming_spec_has_them() -> None:
    assert dataset_location("file", "/tmp/t") == "/tmp/t"
    assert dataset_location("dbfs", "/mnt/t") == "dbfs:/mnt/t"
    assert (
        dataset_location("abfss://c@a.dfs.core.windows.net", "lake/t")
        == "abfss://c@a.dfs.core.windows.net/lake/t"
    )
    assert dataset_location("s3://bucket", "key/t") == "s3://bucket/key/t"
    assert dataset_location("postgres://db:5432", "public.t") == "postgres://db:5432/public.t"
    assert dataset_location("main", "sales.orders") is None  # a catalog's: no location


def test_explain_reads_the_tables_conflicts_from_openlineage_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end through the CLI: the table moved under tmp_path, the events'
    texts and datasets naming where it now lies."""
    table = tmp_path / "tables" / "zstd_t0"
    shutil.copytree(FIXTURES / "tables" / "zstd_t0", table)
    written = tmp_path / "written.ndjson"
    write_events(read_failures(str(ZSTD)).failures, written)
    events = tmp_path / "lineage" / "events.ndjson"
    events.parent.mkdir()
    events.write_text(written.read_text().replace(WRITTEN_AT, str(tmp_path / "tables")))
    code = main(
        [
            "explain",
            str(table),
            "--failures-from",
            f"openlineage:{events.parent}",
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    found = [c for c in json.loads(out)["conflicts"] if c.get("source") == "openlineage"]
    assert sorted(c["winner_version"] for c in found) == [2, 3, 4]
