"""``history --format json`` writes its rows column by column; the bytes must be exactly what
``json.dumps(indent=2)`` of the rows built one commit at a time gives (the way the document
was built before issue #23), on a real log holding every kind of value a writer records."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import load_commits, open_store
from deltaforensics.cli import main
from deltaforensics.log.commit_times import VersionWindow
from deltaforensics.report.document.entry import field_names
from deltaforensics.report.document.history import (
    HistoryCommit,
    history_document,
    history_head,
    history_json,
)
from deltaforensics.report.document.history_json import iso, json_or_text
from tests.hostile.test_damaged_logs import METADATA, PROTOCOL


def _add(path: str, size: int) -> dict[str, Any]:
    stats = '{"numRecords":3}'
    return {"add": {"path": path, "size": size, "modificationTime": 1, "dataChange": True,
                    "partitionValues": {}, "stats": stats}}  # fmt: skip


def _info(**fields: Any) -> dict[str, Any]:
    return {"commitInfo": {"operation": "WRITE", **fields}}


# Each commit a list of actions; together they hold what the columnar encoder treats apart.
COMMITS: list[list[dict[str, Any]]] = [
    [_info(timestamp=1735689600805, operationParameters={"mode": "Append"}, userName="Zoë 😀",
           engineInfo="Apache-Spark/3.5.3 Delta-Lake/3.3.2"), PROTOCOL, METADATA,
     _add("a", 10)],
    [_info(timestamp=1735689600806, inCommitTimestamp=5_000_000_000_000,
           operationParameters={"a": [1, 2.5, {"b": None}], "c": {"d": "é"}},
           isBlindAppend=True, job={"jobId": "1", "jobName": "nightly"}), _add("b", 7)],
    [_add("c", 1)],  # no commitInfo
    [_info(timestamp=-1000, operationParameters={"mode": "Append", "n": 3, "f": 1.5,
                                                  "t": True, "z": None},
           readVersion=1, isolationLevel="Serializable", txnId="x-1")],
    [_info(timestamp=10**17, operationParameters="not an object", userMetadata='say "hi"')],
    [_info(operationParameters={}, notebook={"notebookId": "42"}, clusterId="c-1",
           userId="7", clientVersion="delta-rs.py-1.6.6")],
    [_info(timestamp=0, isBlindAppend=False, userName="tab\there")],
]  # fmt: skip


def _old_row(r: dict[str, Any]) -> dict[str, Any]:
    """A history row as it was built before: one dict per commit, each value decoded and the
    time formatted in Python (``datetime``), row by row."""
    ts = r["in_commit_timestamp"] if r["in_commit_timestamp"] is not None else r["timestamp"]
    row = {name: r.get(name) for name in field_names(HistoryCommit)}
    row.update(
        timestamp=ts,
        timestamp_iso=iso(ts),
        operation_parameters=json_or_text(r["operation_parameters"]),
        job=json_or_text(r["job"]),
        notebook=json_or_text(r["notebook"]),
    )
    return row


@pytest.fixture
def table(tmp_path: Path) -> Path:
    log = tmp_path / "t" / "_delta_log"
    log.mkdir(parents=True)
    for version, actions in enumerate(COMMITS):
        lines = (json.dumps(a, ensure_ascii=False) for a in actions)
        (log / f"{version:020d}.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log.parent


def test_rows_are_the_bytes_of_the_per_commit_document(table: Path) -> None:
    uri = str(table)
    _, commits, diagnostics = load_commits(open_store(uri))
    expected = history_head(uri, diagnostics).to_dict()
    expected["commits"] = [_old_row(r) for r in commits.iter_rows(named=True)]
    text = json.dumps(expected, indent=2, default=str)
    assert history_json(history_head(uri, diagnostics), commits) == text
    assert json.dumps(history_document(uri, commits, diagnostics).to_dict(), indent=2) == text
    shown = {c["version"]: c for c in expected["commits"]}  # the cases did reach the rows
    assert shown[1]["timestamp_iso"] == "2128-06-11T08:53:20.000Z"
    assert shown[3]["timestamp_iso"] == "1969-12-31T23:59:59.000Z"
    assert shown[4]["timestamp_iso"] is None and shown[2]["has_commit_info"] is False


def test_an_empty_range_and_a_time_window_keep_their_layout(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uri = str(table)
    _, commits, diagnostics = load_commits(open_store(uri), from_version=0, to_version=0)
    window = VersionWindow(
        first_version=0,
        last_version=0,
        since_ms=None,
        until_ms=0,
        first_commit_ms=0,
        last_commit_ms=0,
        clock="commit timestamps",
    )
    head = replace(history_head(uri, diagnostics), time_window=window)
    empty = commits.clear()
    assert history_json(head, empty) == json.dumps({**head.to_dict(), "commits": []}, indent=2)
    assert main(["history", uri, "--format", "json", "--from-version", "2"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [c["version"] for c in got["commits"]] == list(range(2, len(COMMITS)))
