"""What a report shows of a recorded condition (issue #31, item 7): Databricks' resolved MERGE
condition ``order_id#921L = order_id#922L`` keeps its expression ids rather than reading as the
tautology ``order_id = order_id``; an attempt's condition keeps its aliases; the model still
matches partitions by column name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deltaforensics.analysis import analyze, open_store
from deltaforensics.predicates import parse_predicate
from deltaforensics.predicates.ir import Column, Compare, Literal, shown_sql
from deltaforensics.predicates.partition import partition_read_predicate
from deltaforensics.report.document import explain_document
from deltaforensics.report.to_html import to_html
from tests.support import LogBuilder

RECORDED = "((order_id#921L = order_id#922L) AND (date#923 = date#924))"


def test_expression_ids_are_shown_and_never_compared() -> None:
    pred = parse_predicate(RECORDED)
    assert shown_sql(pred) == "order_id#921 = order_id#922 AND date#923 = date#924"
    assert pred.to_sql() == "order_id = order_id AND date = date"  # SQL, as before
    assert pred.columns() == frozenset({"order_id", "date"})
    assert parse_predicate("(date#1 = 5)") == parse_predicate("(date#7 = 5)")
    assert parse_predicate("(date#1 = 5)") == Compare("=", Column("date"), Literal(5))
    assert shown_sql(parse_predicate("(`my col`#5 = 3)")) == "`my col`#5 = 3"


def test_a_literal_conjunct_still_narrows_the_read_by_its_column() -> None:
    pred = parse_predicate("((order_id#1L = order_id#2L) AND (date#3 = 2024-03-04))")
    part = partition_read_predicate(pred, ["date"], merge=True)
    assert part.predicate.to_sql() == "date = '2024-03-04'"
    assert part.reasons == ("`order_id#1 = order_id#2` does not reference only the target",)


def test_an_attempts_condition_keeps_its_aliases() -> None:
    pred = parse_predicate("order_id = s.order_id")  # the target's qualifier removed
    assert shown_sql(pred, "t") == "t.order_id = s.order_id"


def _databricks_merges(path: Path) -> Path:
    b = LogBuilder(
        path,
        columns={"order_id": "long", "date": "string"},
        partition_by=["date"],
        writer="databricks-14.3",
    )
    b.create()
    b.write(add=[b.file("date=2024-03-01"), b.file("date=2024-03-04")])  # v1
    b.write(add=[b.file("date=2024-03-04")], read_version=1)  # v2
    b.merge(
        "t.order_id = s.order_id AND t.date = s.date",
        add=[b.file("date=2024-03-04")],
        read_version=1,
    )  # v3, raced over v2
    return path


def test_the_report_shows_the_sides_of_a_recorded_merge(tmp_path: Path) -> None:
    log = _databricks_merges(tmp_path / "t")
    recorded = json.loads(
        (log / "_delta_log" / "00000000000000000003.json").read_text().split("\n")[0]
    )
    assert "#" in recorded["commitInfo"]["operationParameters"]["predicate"]
    doc = explain_document(analyze(open_store(str(log))))
    (race,) = doc.races
    assert "does not reference only the target" in race.read_reason
    assert "`order_id = order_id`" not in race.read_reason
    assert "`order_id#" in race.read_reason and "= order_id#" in race.read_reason
    assert race.read_predicate == "TRUE"
    html = to_html(doc)
    assert "condition `" not in html and "<code>order_id#" in html


def test_the_walkthrough_attempt_shows_its_aliases() -> None:
    repo = Path(__file__).resolve().parents[2]
    sql = (
        "MERGE INTO orders t USING updates s ON t.order_id = s.order_id AND t.date = s.date "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "deltaforensics",
            "explain",
            "sample_logs/merge_without_partition_literal",
            "--to-version",
            "9",
            "--read-version",
            "6",
            "--attempt",
            sql,
            "--format",
            "json",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    (attempt,) = json.loads(run.stdout)["attempts"]
    assert attempt["read_reason"].startswith("`t.order_id = s.order_id` does not reference")
