"""The CI gate: ``--baseline``, ``--write-baseline`` and ``--junit-xml`` on explain and audit,
on copies of real logs to which racing commits are appended."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema

from deltaforensics.cli import main
from deltaforensics.report.document import ExplainDocument
from deltaforensics.report.findings import findings_of
from tests.audit.test_audit import write_config
from tests.conftest import CORPUS, SAMPLE_LOGS

SIMPLE = CORPUS / "deltars__simple_table"  # delta-spark writes, DELETE at v4 read v3
GAP = CORPUS / "deltars__err_logs_table_b"  # commit 7 missing: a real AN008 finding
JUNIT_XSD = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def explain(capsys: pytest.CaptureFixture[str], table: Path, *args: str) -> tuple[int, str, str]:
    return run(capsys, "explain", str(table), "--format", "json", "--no-recommendations", *args)


def append_commit(table: Path, version: int, *lines: dict[str, Any]) -> None:
    path = table / "_delta_log" / f"{version:020d}.json"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def append_racing_delete(table: Path, version: int, *, read_version: int, removes: str) -> None:
    """A DELETE that read ``read_version`` and removes ``removes`` again: it raced the commit
    that removed it first (a delete-delete race, and a duplicate remove)."""
    params = {"predicate": '["(`id` > CAST(5 AS BIGINT))"]'}
    append_spark_commit(table, version, "DELETE", params, read_version, removes=removes)


def append_plain_write(table: Path, version: int) -> None:
    """A blind append that read the version just before it: no race, no finding."""
    params = {"mode": "Append", "partitionBy": "[]"}
    append_spark_commit(table, version, "WRITE", params, version - 1)


def append_spark_commit(
    table: Path,
    version: int,
    operation: str,
    parameters: dict[str, str],
    read_version: int,
    *,
    removes: str | None = None,
) -> None:
    """A commit as the table's delta-spark writer records one: commitInfo, the file it removes
    (if any) and one new file."""
    ms = 1587968700000 + version * 1000
    info = {
        "timestamp": ms,
        "operation": operation,
        "operationParameters": parameters,
        "readVersion": read_version,
        "isBlindAppend": removes is None,
    }
    added = f"part-00000-{version:08d}-0000-4000-8000-000000000000-c000.snappy.parquet"
    actions: list[dict[str, Any]] = [{"commitInfo": info}]
    if removes is not None:
        actions.append({"remove": {"path": removes, "deletionTimestamp": ms, "dataChange": True}})
    actions.append(
        {
            "add": {
                "path": added,
                "partitionValues": {},
                "size": 262,
                "modificationTime": ms,
                "dataChange": True,
            }
        }
    )
    append_commit(table, version, *actions)


REMOVED_AT_4 = "part-00001-bb70d2ba-c196-4df2-9c85-f34969ad3aa9-c000.snappy.parquet"
REMOVED_AT_3 = "part-00003-53f42606-6cda-4f13-8d07-599a21197296-c000.snappy.parquet"
ALL_GATES = ("--fail-on", "conflict", "--fail-on", "anomaly", "--fail-on", "disagreement")


def test_a_real_finding_is_accepted_by_its_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.json"
    assert explain(capsys, GAP, "--fail-on", "anomaly")[0] == 1
    code, _, err = explain(capsys, GAP, "--write-baseline", str(baseline))
    assert code == 0, err
    written = json.loads(baseline.read_text())
    assert [(f["code"], f["gate"], f["table"]) for f in written["findings"]] == [
        ("AN008", "anomaly", None)
    ]
    code, _, err = explain(capsys, GAP, "--fail-on", "anomaly", "--baseline", str(baseline))
    assert code == 0, err
    assert "1 of 1 finding accepted" in err


def test_the_baseline_round_trips_and_a_new_racing_commit_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    shutil.copytree(SIMPLE, table)
    append_racing_delete(table, 5, read_version=3, removes=REMOVED_AT_4)
    baseline = tmp_path / "baseline.json"
    assert explain(capsys, table, *ALL_GATES)[0] == 1  # the table already has findings
    assert explain(capsys, table, "--write-baseline", str(baseline))[0] == 0
    assert len(json.loads(baseline.read_text())["findings"]) == 3  # race, AN001, W401

    code, _, err = explain(capsys, table, *ALL_GATES, "--baseline", str(baseline))
    assert code == 0, err

    append_plain_write(table, 6)  # new commits without a new finding keep the gate green
    code, _, err = explain(capsys, table, *ALL_GATES, "--baseline", str(baseline))
    assert code == 0, err

    append_racing_delete(table, 7, read_version=2, removes=REMOVED_AT_3)  # races v3's UPDATE
    junit = tmp_path / "junit.xml"
    code, out, err = explain(
        capsys, table, *ALL_GATES, "--baseline", str(baseline), "--junit-xml", str(junit)
    )
    assert code == 1, err
    found = findings_of(ExplainDocument.from_dict(json.loads(out)))
    accepted = {f["fingerprint"] for f in json.loads(baseline.read_text())["findings"]}
    new = [f for f in found if f.fingerprint not in accepted]
    assert sorted(f.code for f in new) == ["AN001", "DC010"]  # v7's race and duplicate remove
    assert all(f.versions[0] == 7 or 7 in f.versions for f in new)
    JUNIT_XSD.validate(str(junit))
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    failed = [c.get("name", "") for c in cases if c.find("failure") is not None]
    assert len(failed) == len(new) and all("v7" in name for name in failed), failed
    # v7's model disagreement is v5's again (the same DELETE, the same writer): accepted
    assert suite.get("skipped") == str(len(found) - len(new)) == "4"
    assert suite.get("failures") == str(len(new))


def test_a_gate_not_selecting_the_new_finding_stays_green(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    shutil.copytree(GAP, table)
    baseline = tmp_path / "b.json"
    assert explain(capsys, table, "--write-baseline", str(baseline))[0] == 0
    junit = tmp_path / "junit.xml"
    code, _, err = explain(
        capsys, table, "--fail-on", "conflict", "--junit-xml", str(junit)
    )  # the AN008 anomaly is not selected: it passes, and says why in system-out
    assert code == 0, err
    JUNIT_XSD.validate(str(junit))
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    assert case is not None and case.get("classname") == "deltaforensics.anomaly"
    assert case.find("failure") is None and "missing" in (case.findtext("system-out") or "")


def test_fingerprints_are_the_same_with_and_without_redact_and_in_any_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = SAMPLE_LOGS / "merge_without_partition_literal"  # a notebook and jobs as writers
    error = SAMPLE_LOGS / "errors" / "orders_merge_failed.log"
    plain, redacted = tmp_path / "plain.json", tmp_path / "redacted.json"
    assert explain(capsys, table, "--error", str(error), "--write-baseline", str(plain))[0] == 0
    code, out, _ = explain(
        capsys, table, "--error", str(error), "--redact", "--write-baseline", str(redacted)
    )
    assert code == 0
    assert plain.read_text() == redacted.read_text()
    entries = json.loads(plain.read_text())["findings"]
    assert entries and all("1524277128226821" not in e["title"] for e in entries)

    doc = json.loads(out)
    shuffled = {**doc, **{k: list(reversed(doc[k])) for k in ("races", "conflicts", "commits")}}
    assert {f.fingerprint for f in findings_of(ExplainDocument.from_dict(shuffled))} == {
        f.fingerprint for f in findings_of(ExplainDocument.from_dict(doc))
    }


def test_a_finding_on_a_new_partition_is_a_new_finding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = explain(
        capsys,
        SAMPLE_LOGS / "merge_without_partition_literal",
        "--error",
        str(SAMPLE_LOGS / "errors" / "orders_merge_failed.log"),
    )
    assert code == 0
    doc = json.loads(out)
    (conflict,) = doc["conflicts"]
    moved = {**conflict, "partitions": [{"date": "2024-03-02"}]}
    before = findings_of(ExplainDocument.from_dict(doc))
    after = findings_of(ExplainDocument.from_dict({**doc, "conflicts": [moved]}))
    assert before[0].fingerprint != after[0].fingerprint
    assert "date=2024-03-02" in after[0].title


BAD_BASELINES = {
    "{": "not JSON",
    '{"findings": {}}': "not a baseline file",
    '{"baseline_version": 9, "findings": []}': "baseline_version 9 is not 1",
    '{"baseline_version": 1, "findings": [{}]}': "findings[0] has no fingerprint",
}


def test_a_bad_baseline_is_one_line_and_exit_code_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "b.json"
    for text, message in BAD_BASELINES.items():
        baseline.write_text(text)
        code, out, err = explain(capsys, SIMPLE, "--baseline", str(baseline))
        assert (code, out) == (2, ""), text
        assert err.count("\n") == 1 and message in err and str(baseline) in err, err


def test_audit_gates_every_table_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    racing = tmp_path / "racing"
    shutil.copytree(SIMPLE, racing)
    config = write_config(
        tmp_path / "a.toml",
        [
            {"name": "gap", "uri": str(GAP)},
            {"name": "racing", "uri": str(racing)},
            {"name": "optimize", "uri": str(SAMPLE_LOGS / "deltars_concurrent_optimize")},
        ],
        output="out",
        recommendations=False,
    )
    baseline, junit = tmp_path / "b.json", tmp_path / "junit.xml"
    args = ("audit", str(config), "--fail-on", "anomaly", "--fail-on", "conflict")
    assert run(capsys, *args)[0] == 1
    assert run(capsys, *args, "--write-baseline", str(baseline))[0] == 1
    tables = {(f["table"], f["code"]) for f in json.loads(baseline.read_text())["findings"]}
    assert tables == {("gap", "AN008"), ("optimize", "AN001"), ("optimize", "AN002")}
    code, _, err = run(capsys, *args, "--baseline", str(baseline))
    assert code == 0, err

    append_racing_delete(racing, 5, read_version=3, removes=REMOVED_AT_4)
    code, _, err = run(capsys, *args, "--baseline", str(baseline), "--junit-xml", str(junit))
    assert code == 1, err
    JUNIT_XSD.validate(str(junit))
    root = ET.parse(junit).getroot()
    by_suite = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(by_suite) == {"gap", "racing", "optimize"}
    assert by_suite["racing"].get("failures") == "2"  # the predicted conflict and AN001
    assert by_suite["gap"].get("skipped") == "1" and by_suite["optimize"].get("skipped") == "2"
    assert root.get("failures") == "2"


def test_audit_reports_a_table_it_could_not_read_as_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "a.toml",
        [{"name": "missing", "uri": str(tmp_path / "nowhere")}, {"name": "gap", "uri": str(GAP)}],
        output="out",
        recommendations=False,
    )
    junit = tmp_path / "junit.xml"
    code, _, _ = run(capsys, "audit", str(config), "--junit-xml", str(junit))
    assert code == 3
    JUNIT_XSD.validate(str(junit))
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "1"
    error = root.find("testsuite[@name='missing']/testcase/error")
    assert error is not None and "nowhere" in (error.get("message") or "")
