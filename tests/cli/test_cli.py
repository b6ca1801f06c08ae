from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.report.document.entry import FORMAT_VERSION
from tests.conftest import CORPUS

SIMPLE = CORPUS / "deltars__simple_table"
GAP = CORPUS / "delta__versions-not-contiguous"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_history_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "history", str(SIMPLE), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["format_version"] == FORMAT_VERSION and doc["table"] == str(SIMPLE)
    assert [c["version"] for c in doc["commits"]] == [0, 1, 2, 3, 4]
    required = {
        "version",
        "timestamp",
        "operation",
        "operation_parameters",
        "read_version",
        "isolation_level",
        "is_blind_append",
        "engine_info",
        "txn_id",
        "num_added_files",
        "num_removed_files",
    }
    for commit in doc["commits"]:
        assert required <= commit.keys()
    merge = doc["commits"][1]
    assert merge["operation"] == "MERGE" and merge["read_version"] == 0
    assert isinstance(merge["operation_parameters"], dict)


def test_history_range_and_table_forms_agree(capsys: pytest.CaptureFixture[str]) -> None:
    docs = []
    for form in (str(SIMPLE), str(SIMPLE / "_delta_log"), SIMPLE.as_uri(), str(SIMPLE) + "/"):
        code, out, _ = run(
            capsys, "history", form, "--format", "json", "--from-version", "1", "--to-version", "3"
        )
        assert code == 0
        doc = json.loads(out)
        docs.append(doc["commits"])
    assert all(d == docs[0] for d in docs)
    assert [c["version"] for c in docs[0]] == [1, 2, 3]


def test_history_table_prints_one_line_per_commit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "history", str(SIMPLE))
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split()[:3] == ["version", "timestamp", "operation"]
    assert len(lines) == 2 + 5 and "MERGE" in lines[3]


def test_snapshot_json_matches_the_oracle_paths(capsys: pytest.CaptureFixture[str]) -> None:
    table = CORPUS / "deltars__delta-0.8.0-partitioned"
    code, out, err = run(capsys, "snapshot", str(table), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    oracle = json.loads((table / "expected.json").read_text())
    assert sorted(f["path"] for f in doc["files"]) == sorted(oracle["latest"]["files"])
    assert set(doc) >= {"format_version", "table", "version", "files"}
    f = doc["files"][0]
    assert set(f) == {"path", "partition_values", "size", "deletion_vector"}
    assert set(f["partition_values"]) == set(oracle["partition_columns"])


def test_snapshot_reports_deletion_vector_unique_ids(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "snapshot", str(CORPUS / "delta__table-with-dv-small"), "--format", "json"
    )
    assert code == 0
    dvs = [f["deletion_vector"] for f in json.loads(out)["files"]]
    assert any(dv and dv[0] in "uip" for dv in dvs)


def test_a_missing_path_is_one_line_and_exit_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "history", str(tmp_path / "nope"))
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and "nope" in err and "path not found" in err


def test_a_folder_without_a_log_is_not_a_delta_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "snapshot", str(tmp_path))
    assert code == 3 and "not a Delta table" in err


def test_an_unreconstructable_version_names_the_gap_and_hints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "snapshot", str(GAP))
    assert code == 3 and out == ""
    first, hint = err.strip().splitlines()
    assert "version 2" in first and "commit(s) 1 missing" in first
    assert hint == "hint: --to-version 0 reads what precedes the gap"


def test_a_version_beyond_the_latest_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "snapshot", str(SIMPLE), "--version", "99")
    assert code == 3 and "latest version is 4" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "history", str(SIMPLE), "--format", "xml")[0] == 2
    assert run(capsys, "history", str(SIMPLE), "--from-version", "3", "--to-version", "1")[0] == 2
    assert run(capsys, "nosuchcommand")[0] == 2


def test_history_warns_about_gaps_on_stderr_but_succeeds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "history", str(CORPUS / "deltars__err_logs_table_b"))
    assert code == 0 and "W101" in err and "7" in err
    assert "Traceback" not in err + out


@pytest.mark.parametrize(
    ("fail_on", "expected"), [([], 0), (["anomaly"], 1), (["conflict", "disagreement"], 0)]
)
def test_explain_fail_on_sets_the_exit_code(
    capsys: pytest.CaptureFixture[str], fail_on: list[str], expected: int
) -> None:
    from tests.conftest import SAMPLE_LOGS

    flags = [x for f in fail_on for x in ("--fail-on", f)]
    table = str(SAMPLE_LOGS / "deltars_concurrent_optimize")  # two error-severity anomalies
    code, out, err = run(capsys, "explain", table, "--format", "json", *flags)
    assert code == expected, err
    assert json.loads(out)["anomalies"]


def test_explain_without_recommendations_keeps_everything_else(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.conftest import SAMPLE_LOGS

    table = str(SAMPLE_LOGS / "merge_without_partition_literal")
    # the README's incident: the failed MERGE makes the statement fix worth recommending
    error = str(SAMPLE_LOGS / "errors" / "orders_merge_failed.log")
    _, out, _ = run(capsys, "explain", table, "--error", error, "--format", "json")
    full = json.loads(out)
    code, out, err = run(
        capsys, "explain", table, "--error", error, "--format", "json", "--no-recommendations"
    )
    assert code == 0, err
    bare = json.loads(out)
    assert full["recommendations"] and bare["recommendations"] == []
    left_out = ("recommendations", "recommendations_note")
    assert {k: v for k, v in bare.items() if k not in left_out} == {
        k: v for k, v in full.items() if k not in left_out
    }
