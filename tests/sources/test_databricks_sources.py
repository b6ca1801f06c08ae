"""``databricks-jobs:`` and ``databricks-queries:`` against a STAND-IN workspace
(databricks_standin.py: the SDK's own models serialised; no workspace is reachable here),
holding real Databricks and Delta conflict texts from tests/evidence/texts."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from databricks.sdk.service.jobs import (
    BaseRun,
    RunOutput,
    RunResultState,
    RunState,
    RunTask,
)
from databricks.sdk.service.sql import QueryInfo, QueryStatus

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.failures import TableCommits
from deltaforensics.failures.records import CommitFacts
from deltaforensics.sources import harvest, read_failures
from deltaforensics.sources.attempts import harvested_attempts
from deltaforensics.sources.spec import parse_source
from tests.sources.databricks_standin import StandInWorkspace, serving

TEXTS = Path(__file__).resolve().parents[1] / "evidence" / "texts"
TOKEN = "dapi-standin-0123456789abcdef"
T0 = 1_796_000_000_000
NOT_A_CONFLICT = (
    "[TABLE_OR_VIEW_NOT_FOUND] The table or view `main`.`sales`.`order_updates` cannot be "
    "found. SQLSTATE: 42P01"
)


def _text(name: str) -> str:
    """A real text from the exception's line on (what an API's error field holds)."""
    lines = (TEXTS / name).read_text().splitlines()
    first = next((i for i, line in enumerate(lines) if "Exception" in line), 0)
    return "\n".join(lines[first:])


def _cras_commit() -> dict[str, object]:
    """The winner the CI job's text names (its Conflicting commit), as the table's log has it."""
    text = (TEXTS / "dbr_cras_ci_job.txt").read_text()
    start = text.index("Conflicting commit: ") + len("Conflicting commit: ")
    info, _ = json.JSONDecoder().raw_decode(text[start:])
    assert isinstance(info, dict)
    return info


def _tables() -> list[TableCommits]:
    pixels = TableCommits.from_commit_infos(
        "main.ci.pixels",
        "abfss://lake@acct.dfs.core.windows.net/ci/pixels",
        [
            (15, {"timestamp": 1696528700000, "operation": "WRITE"}),
            (16, _cras_commit()),
            (17, {"timestamp": 1696528900000, "operation": "WRITE"}),
        ],
    )
    orders = TableCommits(
        "main.sales.orders",
        "abfss://lake@acct.dfs.core.windows.net/sales/orders",
        (CommitFacts(version=412), CommitFacts(version=913)),
    )
    spark_orders = TableCommits(
        "spark_catalog.sales.orders", "/lake/sales/orders", (CommitFacts(version=913),)
    )
    devices = TableCommits(
        "spark_catalog.bronze.devices", "/lake/bronze/devices", (CommitFacts(version=204),)
    )
    return [pixels, orders, spark_orders, devices]


def _failed_task(run_id: int, key: str, start: int) -> RunTask:
    return RunTask(
        run_id=run_id,
        task_key=key,
        start_time=start,
        end_time=start + 60_000,
        state=RunState(result_state=RunResultState.FAILED),
    )


def _run(job: int, run: int, start: int, tasks: list[RunTask]) -> BaseRun:
    failed = any(t.state and t.state.result_state == RunResultState.FAILED for t in tasks)
    state = RunResultState.FAILED if failed else RunResultState.SUCCESS
    return BaseRun(
        job_id=job,
        run_id=run,
        start_time=start,
        end_time=start + 120_000,
        state=RunState(result_state=state),
        tasks=tasks,
    )


def _split(text: str) -> RunOutput:
    first, _, rest = text.partition("\n")
    return RunOutput(error=first, error_trace=rest or None)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper().startswith(("DATABRICKS_", "ARM_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / "home" / ".databrickscfg"))


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInWorkspace]:
    ws = StandInWorkspace(token=TOKEN)
    ws.runs = [
        _run(101, 1, T0, [_failed_task(11, "load", T0)]),
        _run(
            101,
            2,
            T0 + 3_600_000,
            [
                RunTask(
                    run_id=21, task_key="load", state=RunState(result_state=RunResultState.SUCCESS)
                )
            ],
        ),
        _run(101, 3, T0 + 7_200_000, [_failed_task(31, "merge", T0 + 7_200_000)]),
        _run(101, 4, T0 + 10_800_000, [_failed_task(41, "merge", T0 + 10_800_000)]),
        _run(202, 5, T0 + 14_400_000, [_failed_task(51, "ingest", T0 + 14_400_000)]),
        # a single-task run as the 2.0 API lists it: no tasks, the run itself failed
        BaseRun(
            job_id=303,
            run_id=6,
            start_time=T0 + 18_000_000,
            end_time=T0 + 18_060_000,
            state=RunState(result_state=RunResultState.FAILED),
        ),
    ]
    ws.outputs = {
        11: _split(_text("dbr_cras_ci_job.txt")),
        31: _split(_text("dbr_notebook_whole_table_read.txt")),
        41: RunOutput(error=NOT_A_CONFLICT, error_trace="org.apache.spark.sql.AnalysisException"),
        51: _split(_text("era_c_metadata_changed_table_name.log")),
        6: RunOutput(error=NOT_A_CONFLICT),
    }
    merge = (
        "MERGE INTO spark_catalog.sales.orders t USING updates s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    ws.queries = [
        QueryInfo(
            query_id="q1",
            warehouse_id="wh1",
            status=QueryStatus.FAILED,
            query_text=merge,
            query_start_time_ms=T0,
            query_end_time_ms=T0 + 9_000,
            error_message=_text("era_c_append_partition_hint.log"),
        ),
        QueryInfo(
            query_id="q2",
            warehouse_id="wh1",
            status=QueryStatus.FINISHED,
            query_text="SELECT 1",
            query_start_time_ms=T0 + 1_000,
        ),
        QueryInfo(
            query_id="q3",
            warehouse_id="wh1",
            status=QueryStatus.FAILED,
            query_text="SELECT * FROM main.sales.order_updates",
            query_start_time_ms=T0 + 2_000,
            error_message=NOT_A_CONFLICT,
        ),
        QueryInfo(
            query_id="q4",
            warehouse_id="wh2",
            status=QueryStatus.FAILED,
            query_text="UPDATE main.sales.orders SET status = 'late' WHERE id = 7",
            query_start_time_ms=T0 + 3_000,
            query_end_time_ms=T0 + 5_000,
            error_message=_text("dbr_notebook_whole_table_read.txt"),
        ),
    ]
    with serving(ws):
        monkeypatch.setenv("DATABRICKS_HOST", ws.url)
        monkeypatch.setenv("DATABRICKS_TOKEN", TOKEN)
        yield ws


def _found(result: object) -> set[tuple[str | None, int | None, str]]:
    return {(c.table, c.winner_version, c.exception) for c in result.conflicts}  # type: ignore[attr-defined]


def test_job_runs_failures_with_table_winner_and_exception(workspace: StandInWorkspace) -> None:
    result = harvest(["databricks-jobs:"], _tables())
    assert _found(result) == {
        ("main.ci.pixels", 16, "ConcurrentAppendException"),
        ("main.sales.orders", 412, "ConcurrentAppendException"),
        ("spark_catalog.bronze.devices", 204, "MetadataChangedException"),
    }
    assert result.unmatched == ()
    assert result.other_failures == 2  # the missing table, twice: counted, never a conflict
    assert {c.source_kind for c in result.conflicts} == {"databricks-jobs"}
    pixels = next(c for c in result.conflicts if c.table == "main.ci.pixels")
    assert pixels.failure.started_at == T0 and pixels.failure.app_id == "job 101 run 1"
    # paged: six runs at two a page
    assert sum(1 for p, _ in workspace.requests if p.endswith("/runs/list")) == 3


def test_one_job_only_and_the_window(workspace: StandInWorkspace) -> None:
    one = read_failures("databricks-jobs:202")
    assert [f.app_id for f in one.failures] == ["job 202 run 5"]
    later = read_failures("databricks-jobs:101", since_ms=T0 + 1)
    assert [f.execution_id for f in later.failures] == [31, 41]
    assert later.cursor == T0 + 10_800_000
    after = read_failures("databricks-jobs:101", since_ms=later.cursor + 1)
    assert after.failures == ()


def test_query_history_failures_carry_the_statement(workspace: StandInWorkspace) -> None:
    result = harvest(["databricks-queries:"], _tables())
    assert _found(result) == {
        ("spark_catalog.sales.orders", 913, "ConcurrentAppendException"),
        ("main.sales.orders", 412, "ConcurrentAppendException"),
    }
    assert result.other_failures == 1 and result.unmatched == ()
    merge = next(c for c in result.conflicts if c.winner_version == 913)
    assert merge.statement is not None and merge.statement.startswith("MERGE INTO")
    assert merge.failure.started_at == T0 and merge.source_kind == "databricks-queries"
    # only FAILED statements are asked for, page after page
    asked = [q for p, q in workspace.requests if p.endswith("/history/queries")]
    assert asked and all(q["filter_by.statuses"] == ["FAILED"] for q in asked)
    assert len(asked) == 2


def test_one_warehouse_and_the_cursor(workspace: StandInWorkspace) -> None:
    reading = read_failures("databricks-queries:wh2")
    assert [f.statement for f in reading.failures] == [
        "UPDATE main.sales.orders SET status = 'late' WHERE id = 7"
    ]
    first = read_failures("databricks-queries:")
    assert first.cursor == T0 + 3_000
    assert read_failures("databricks-queries:", since_ms=first.cursor + 1).failures == ()


def test_rate_limited_requests_wait_as_retry_after_says(workspace: StandInWorkspace) -> None:
    workspace.throttle = 2
    began = time.monotonic()
    result = harvest(["databricks-queries:wh1"], _tables())
    assert time.monotonic() - began >= 1.9  # two 429s, Retry-After: 1 each
    assert _found(result) == {("spark_catalog.sales.orders", 913, "ConcurrentAppendException")}


@pytest.mark.parametrize("spec", ["databricks-jobs:", "databricks-queries:"])
def test_a_wrong_or_expired_token_is_one_line_without_the_secret(
    workspace: StandInWorkspace, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    wrong = "dapi-expired-" + TOKEN
    monkeypatch.setenv("DATABRICKS_TOKEN", wrong)
    with pytest.raises(StorageError) as caught:
        read_failures(spec)
    message = str(caught.value)
    assert message.startswith(spec) and "401" in message and "\n" not in message
    assert wrong not in message and TOKEN not in message


def test_denied_is_one_line_naming_the_source(workspace: StandInWorkspace) -> None:
    workspace.forbidden = True
    with pytest.raises(StorageError, match=r"^databricks-jobs:101: permission denied \(403") as e:
        read_failures("databricks-jobs:101")
    assert "Config" not in str(e.value) and "not authorized" in str(e.value)


def test_no_workspace_configured_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(StorageError, match="no Databricks workspace to ask"):
        read_failures("databricks-queries:")


def test_source_specs() -> None:
    assert parse_source("abfss://logs@acct.dfs.core.windows.net/x").kind == "auto"
    assert parse_source("file:/tmp/x").kind == "auto"
    assert parse_source("/var/log/spark").kind == "auto"
    assert parse_source("openlineage:/tmp/ol.ndjson").target == "/tmp/ol.ndjson"
    assert parse_source("databricks-jobs:").target == ""
    assert parse_source("databricks-jobs:42").target == "42"
    with pytest.raises(UsageError, match="not a job id"):
        parse_source("databricks-jobs:nightly")
    with pytest.raises(UsageError, match="needs a file"):
        parse_source("openlineage:")


def test_the_cli_exits_3_with_one_line_and_no_secret(
    workspace: StandInWorkspace,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.log.test_time_window_cli import run_cli
    from tests.sources.support import FIXTURES

    wrong = "dapi-expired-" + TOKEN
    monkeypatch.setenv("DATABRICKS_TOKEN", wrong)
    table = FIXTURES / "tables" / "zstd_t0"
    code, out, err = run_cli(
        capsys, "explain", str(table), "--failures-from", "databricks-queries:wh1"
    )
    assert code == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "databricks-queries:wh1" in lines[0] and "401" in lines[0]
    assert wrong not in out + err and TOKEN not in out + err


def test_a_failed_merge_in_the_history_becomes_an_attempt_at_its_bounded_read_version(
    workspace: StandInWorkspace,
) -> None:
    orders = TableCommits.from_commit_infos(
        "spark_catalog.sales.orders",
        "/lake/sales/orders",
        [
            (911, {"timestamp": T0 - 60_000, "operation": "WRITE"}),
            (912, {"timestamp": T0 - 1_000, "operation": "MERGE"}),
            (913, {"timestamp": T0 + 4_000, "operation": "MERGE"}),
        ],
    )
    result = harvest(["databricks-queries:wh1"], [orders])
    (spec,) = harvested_attempts(result.conflicts, orders)
    assert spec.sql.startswith("MERGE INTO spark_catalog.sales.orders")
    assert spec.read_version == 912  # the latest commit at or before the start, T0
