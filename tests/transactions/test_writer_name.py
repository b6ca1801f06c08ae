"""One name per writer (issue #31, item 8): job name, else notebook path, else user, else the
engine, the same in ``explain`` (the commits a finding names) and in ``history``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.transactions.parts import who_wrote
from tests.support import LogBuilder

JOB = {"jobId": "7", "jobName": "orders_ingest"}
NOTEBOOK = {"notebookId": "1524277128226821", "notebookPath": "/Users/a@example.com/fix"}


@pytest.mark.parametrize(
    ("info", "name"),
    [
        ({"job": JOB, "notebook": NOTEBOOK, "userName": "a@example.com"}, "job orders_ingest"),
        ({"job": {"jobId": "7"}}, "job 7"),
        ({"notebook": NOTEBOOK, "userName": "a@example.com"}, "notebook /Users/a@example.com/fix"),
        (
            {"notebook": {"notebookId": "1524277128226821"}, "userName": "a@example.com"},
            "user a@example.com",
        ),
        ({"notebook": {"notebookId": "1524277128226821"}}, "notebook 1524277128226821"),
        ({}, ""),
    ],
)
def test_the_one_rule(info: dict[str, Any], name: str) -> None:
    assert who_wrote(info) == name


def _run(*args: str) -> Any:
    run = subprocess.run(
        [sys.executable, "-m", "deltaforensics", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout


def test_explain_and_history_call_a_writer_the_same(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, columns={"id": "long", "date": "string"}, partition_by=["date"])
    b.create(writer="databricks-14.3")
    notebook_run = {"notebook": {"notebookId": "1524277128226821"}, "userName": "a@example.com"}
    b.write(add=[b.file("date=A")], writer="databricks-14.3")  # v1
    b.write(add=[b.file("date=B")], writer="databricks-14.3", commit_info_extra=notebook_run)
    b.delete("date = 'A'", read_version=1, writer="databricks-14.3")  # v3 raced over v2
    explain = json.loads(_run("explain", str(tmp_path), "--format", "json"))
    (v2,) = [c for c in explain["commits"] if c["version"] == 2]
    assert v2["writer"].split(", cluster ")[0] == "user a@example.com"
    assert (v2["user_name"], v2["notebook"], v2["job_name"]) == (
        "a@example.com",
        "1524277128226821",
        None,
    )
    table = _run("history", str(tmp_path), "--format", "table")
    (row,) = [line for line in table.splitlines() if line.startswith("2 ")]
    assert "user a@example.com" in row
    spark = LogBuilder(tmp_path / "oss", columns={"id": "long"}, writer="spark-3.2")
    spark.create()
    oss = _run("history", str(tmp_path / "oss"), "--format", "table")
    assert "delta-spark writer" in oss.splitlines()[-1]
