"""The Python API (``from deltaforensics import explain, ...``) on real corpus tables: each
function returns its command's typed document, whose JSON is the command's JSON."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from deltaforensics import audit, explain, history, snapshot, whatif
from deltaforensics.api import AttemptSpec, ExplainReport, HistoryReport
from deltaforensics.cli import main
from deltaforensics.errors import DeltaForensicsError, StorageError, UsageError
from deltaforensics.report.document import ExplainDocument, SnapshotDocument
from tests.conftest import CORPUS, SAMPLE_LOGS

SIMPLE = CORPUS / "deltars__simple_table"
CHECKPOINTED = CORPUS / "delta__basic-with-inserts-deletes-checkpoint"
MERGES = SAMPLE_LOGS / "merge_without_partition_literal"  # notebooks and jobs racing
ERROR_LOG = SAMPLE_LOGS / "errors" / "orders_merge_failed.log"


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_explain_is_the_cli_report(capsys: pytest.CaptureFixture[str]) -> None:
    report = explain(SIMPLE)
    assert isinstance(report, ExplainDocument) and isinstance(report, ExplainReport)
    assert json.loads(report.to_json()) == cli_json(
        capsys, "explain", str(SIMPLE), "--format", "json"
    )
    assert report.table.num_commits == 5 and report.races == ()  # typed values, not dicts


def test_explain_with_an_error_text_and_redact_is_the_cli_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = explain(
        str(MERGES), errors=[ERROR_LOG.read_text()], redact=True, recommendations=False
    )
    expected = cli_json(
        capsys,
        "explain",
        str(MERGES),
        "--error",
        str(ERROR_LOG),
        "--redact",
        "--no-recommendations",
        "--format",
        "json",
    )
    assert json.loads(report.to_json()) == expected
    assert report.conflicts and report.conflicts[0].code == "DC010"
    assert "1524277128226821" not in report.to_json()  # the notebook id is pseudonymised


def test_an_attempt_is_checked_as_the_cli_checks_it(capsys: pytest.CaptureFixture[str]) -> None:
    statement = "DELETE FROM t WHERE date = '2024-03-01'"
    report = explain(
        MERGES, attempts=[AttemptSpec(sql=statement, read_version=4)], recommendations=False
    )
    expected = cli_json(
        capsys,
        "explain",
        str(MERGES),
        "--attempt",
        statement,
        "--read-version",
        "4",
        "--no-recommendations",
        "--format",
        "json",
    )
    assert json.loads(report.to_json()) == expected
    assert report.attempts[0].statement == statement


def test_history_and_snapshot_are_the_cli_documents(capsys: pytest.CaptureFixture[str]) -> None:
    got = history(CHECKPOINTED, from_version=2)
    assert isinstance(got, HistoryReport)
    assert json.loads(got.to_json()) == cli_json(
        capsys, "history", str(CHECKPOINTED), "--from-version", "2", "--format", "json"
    )
    snap = snapshot(CHECKPOINTED, version=3)
    assert isinstance(snap, SnapshotDocument) and snap.version == 3
    assert json.loads(snap.to_json()) == cli_json(
        capsys, "snapshot", str(CHECKPOINTED), "--version", "3", "--format", "json"
    )


def test_whatif_is_the_cli_document(capsys: pytest.CaptureFixture[str]) -> None:
    got = whatif(MERGES, isolation="Serializable", partition_by=["date"])
    expected = cli_json(
        capsys,
        "whatif",
        str(MERGES),
        "--partition-by",
        "date",
        "--isolation",
        "Serializable",
        "--format",
        "json",
    )
    assert json.loads(got.to_json()) == expected
    assert got.baseline.conflicts == expected["baseline"]["conflicts"]


def test_the_notebook_view_is_the_html_report_in_a_frame(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = explain(SIMPLE, recommendations=False)._repr_html_()
    page = re.fullmatch(r'<iframe srcdoc="(.*)" title="[^"]*" style="[^"]*"></iframe>', shown, re.S)
    assert page is not None
    code = main(["explain", str(SIMPLE), "--no-recommendations", "--format", "html"])
    assert code == 0
    assert html.unescape(page.group(1)) == capsys.readouterr().out
    table = history(SIMPLE)._repr_html_()
    assert "MERGE" in html.unescape(table) and "<script" not in html.unescape(table)


def test_errors_are_the_tools_own_with_the_cli_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(StorageError) as raised:
        explain(missing)
    assert main(["explain", str(missing)]) == 3
    assert capsys.readouterr().err == f"error: {raised.value}\n"

    with pytest.raises(UsageError, match=r"did you mean databricks-17\.3"):
        explain(SIMPLE, profile="databricks-99")
    with pytest.raises(UsageError, match="name at least one change"):
        whatif(SIMPLE)
    with pytest.raises(UsageError, match="must not be greater"):
        history(SIMPLE, from_version=3, to_version=1)
    with pytest.raises(DeltaForensicsError, match="version 99"):
        snapshot(SIMPLE, version=99)


def test_audit_returns_the_summary_and_writes_the_outputs(tmp_path: Path) -> None:
    config = tmp_path / "audit.toml"
    config.write_text(
        f'output = "out"\nrecommendations = false\n[[tables]]\nname = "simple"\nuri = "{SIMPLE}"\n'
    )
    summary = audit(config, fail_on=["conflict"])
    assert summary["exit_code"] == 0 and summary["tables"][0]["name"] == "simple"
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert written["tables"][0]["counts"] == summary["tables"][0]["counts"]
    with pytest.raises(UsageError, match="fail_on 'everything'"):
        audit(config, fail_on=["everything"])


def test_the_command_modules_stay_importable_beside_the_functions() -> None:
    import deltaforensics
    from deltaforensics.snapshot import Snapshot
    from deltaforensics.whatif.scenario import Scenario

    assert callable(deltaforensics.snapshot) and callable(deltaforensics.whatif)
    assert Snapshot.__module__ == "deltaforensics.snapshot"
    assert Scenario.__module__ == "deltaforensics.whatif.scenario"
