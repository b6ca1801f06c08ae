"""Every failure the user saw counts, and the statement fix ranks before a table rewrite
(issue #31 items 2 and 3), on the README's own incident: ``orders_status_merge`` failed with
the driver log ``sample_logs/errors/orders_merge_failed.log``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main
from tests.conftest import REPO

SAMPLE = str(REPO / "sample_logs" / "merge_without_partition_literal")
ERROR = REPO / "sample_logs" / "errors" / "orders_merge_failed.log"


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main([*args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_the_pasted_failure_is_measured_and_the_statement_fix_ranks_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _json(capsys, "explain", SAMPLE, "--error", str(ERROR), "--all")
    recs = doc["recommendations"]
    first = recs[0]
    assert first["change"]["kind"] == "explicit-merge-predicates"
    assert first["conflicts_avoided"] == 1 and first["evaluated_on"]["errors"] == 1
    assert first["rewrites_table"] is False
    # the failed statement is inferred from the job the log line names: said, and trusted less
    assert "inferred from v5, a MERGE of orders_status_merge" in first["rationale"]
    assert first["confidence"] == "medium"
    rewrites = [r for r in recs if r["rewrites_table"]]
    assert rewrites and all(r["change"]["kind"] in ("liquid", "partition-by") for r in rewrites)
    assert recs.index(rewrites[0]) > 0
    for r in recs:
        assert r["evaluated_on"]["errors"] == 1


def test_whatif_measures_the_pasted_failure(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "whatif", SAMPLE, "--explicit-merge-predicates", "--error", str(ERROR))
    assert (doc["baseline"]["conflicts"], doc["result"]["conflicts"]) == (1, 0)
    assert doc["evaluated_on"]["errors"] == 1 and doc["by_source"]["error"]["avoided"] == 1
    assert doc["rewrites_table"] is False and doc["confidence"] == "medium"
    (pair,) = [p for p in doc["pairs"] if p["source"] == "error"]
    assert (pair["winner_version"], pair["after"]) == (7, "commits")


def test_a_failure_naming_no_job_is_seen_but_unmeasured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anonymous = tmp_path / "failed.log"
    anonymous.write_text(ERROR.read_text().splitlines()[-1] + "\n")
    doc = _json(capsys, "whatif", SAMPLE, "--explicit-merge-predicates", "--error", str(anonymous))
    assert doc["evaluated_on"]["errors"] == 1
    assert doc["unknown"] == 1 and doc["by_source"]["error"]["unknown"] == 1
    assert (doc["baseline"]["conflicts"], doc["result"]["conflicts"]) == (1, 1)
    explained = _json(capsys, "explain", SAMPLE, "--error", str(anonymous), "--all")
    for r in explained["recommendations"]:
        assert r["evaluated_on"]["errors"] == 1
        assert "seen in error texts not measured" in r["rationale"]


def test_a_rewrite_that_avoids_nothing_seen_is_never_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without the error the sample's only helpful change is liquid clustering (fragile races
    only), which rewrites the partitioned table: not advice, and the note says so."""
    doc = _json(capsys, "explain", SAMPLE, "--all")
    assert doc["recommendations"] == [] or not (
        doc["recommendations"][0]["rewrites_table"]
        and doc["recommendations"][0]["conflicts_avoided"] == 0
    )
    assert "force a table rewrite" in (doc["recommendations_note"] or "")


@pytest.mark.parametrize("fmt", ["rich", "markdown", "html"])
def test_every_format_says_a_change_forces_a_table_rewrite(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["explain", SAMPLE, "--error", str(ERROR), "--all", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0
    assert "forces a table rewrite" in " ".join(out.split())


@pytest.mark.parametrize("fmt", ["rich", "markdown"])
def test_whatif_views_say_a_change_forces_a_table_rewrite(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["whatif", SAMPLE, "--liquid", "date", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0
    assert "forces a table rewrite" in " ".join(out.split())
