"""DataFrame writes given to ``--attempt`` as the DataFrame call (issue #34, item 4): each is
read as the INSERT Delta records for it (``WRITE``), and plans exactly what that INSERT with
its flags plans. The real-engine side (each mode raced as a loser on Delta 4.4.0) is in
tests/realspark/logs/delta-4.4.0/*--df-*, checked by tests/realspark/test_real_logs.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import load, open_store
from deltaforensics.attempts import attempt_transaction, check_attempt
from deltaforensics.cli import main
from deltaforensics.profiles import delta_spark
from deltaforensics.replay import Replay
from deltaforensics.statements import parse_statement
from deltaforensics.transactions import Transaction, reconstruct_transactions
from tests.support import LogBuilder

RW = "\"date = '2024-01-01'\""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            'df.write.format("delta").mode("append").save("/data/events")',
            {"kind": "INSERT", "overwrite": False, "table": "events", "dataframe": True},
        ),
        (
            f'df.write.format("delta").mode("overwrite").option("replaceWhere", {RW}).save("/p")',
            {"overwrite": True, "replace_where": "date = '2024-01-01'"},
        ),
        (
            'df.write.mode(SaveMode.Overwrite).option("partitionOverwriteMode", "Dynamic")'
            '.saveAsTable("db.t")',
            {"overwrite": True, "overwrite_mode": "dynamic", "table": "db.t"},
        ),
        ('df.writeTo("t").overwritePartitions()', {"overwrite": True, "overwrite_mode": "dynamic"}),
        ('df.writeTo("t").append()', {"overwrite": False, "overwrite_mode": None}),
        (
            'df.write.format("delta").option("txnAppId", "job").option("txnVersion", 7)'
            '.mode("append").save("/p")',
            {"txn": ("job", 7)},
        ),
        (
            'spark.table("s").write.options(mergeSchema=True).insertInto("t")',
            {"overwrite": False, "schema_options": ("mergeSchema",)},
        ),
        (
            'df.write.format("delta").mode("overwrite").option("overwriteSchema", "true")'
            '.partitionBy("date").save("/p")',
            {"overwrite": True, "schema_options": ("overwriteSchema",)},
        ),
    ],
)
def test_a_dataframe_write_reads_as_the_insert_delta_records(
    call: str, expected: dict[str, Any]
) -> None:
    stmt = parse_statement(call)
    for key, value in expected.items():
        assert getattr(stmt, key) == value, key


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('df.write.format("parquet").mode("append").save("/p")', "not a Delta write"),
        ('df.write.format("delta").save("/p")', 'mode\\("errorifexists"\\)'),
        (f'df.write.option("replaceWhere", {RW}).mode("append").save("/p")', "overwrite"),
        ('df.write.option("txnAppId", "a").mode("append").save("/p")', "txnVersion"),
        ('df.write.mode("append").bucketBy(4, "id").save("/p")', "bucketBy"),
        ('df.writeTo("t").overwrite(col("d") == 1)', "overwritePartitions"),
        ('df.write.mode("append").save("/p"', "not understood"),
    ],
)
def test_a_dataframe_write_it_cannot_read_is_a_one_line_error(call: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_statement(call)
    assert "\n" not in str(info.value)


def test_sql_that_mentions_write_is_still_sql() -> None:
    assert parse_statement("INSERT INTO t VALUES ('df.write.x')").dataframe is False


@pytest.fixture
def table(tmp_path: Path) -> tuple[LogBuilder, Replay]:
    b = LogBuilder(
        tmp_path,
        columns={"id": "long", "country": "string", "date": "string"},
        partition_by=["date"],
        writer="spark-3.2.0",
    )
    b.create()
    b.write(add=[b.file("date=2024-01-01"), b.file("date=2024-01-02")])
    b.write(add=[b.file("date=2024-01-01")], blind=True)  # the winner: an append to 2024-01-01
    return b, load(open_store(str(tmp_path)), mode="history").replay


def _attempt(call: str, rep: Replay, **kw: Any) -> tuple[Transaction, str]:
    a = attempt_transaction(call, rep, read_version=1, profile=delta_spark(), **kw)
    txns = reconstruct_transactions(rep, profile=delta_spark())
    return a, check_attempt(a, txns, rep).outcome


# (DataFrame call, the SQL and flags it was stated as before, the outcome against v2)
MODES: list[tuple[str, str, dict[str, Any], str]] = [
    (
        'df.write.format("delta").mode("append").save("/p")',
        "INSERT INTO t SELECT * FROM s",
        {},
        "commits",
    ),
    (
        f'df.write.format("delta").mode("overwrite").option("replaceWhere", {RW}).save("/p")',
        "INSERT OVERWRITE t SELECT * FROM s",
        {"replace_where": "date = '2024-01-01'"},
        "ConcurrentAppendException",
    ),
    (
        'df.write.format("delta").mode("overwrite").option("replaceWhere", "date = \'2024-01-02\'")'
        '.save("/p")',
        "INSERT OVERWRITE t SELECT * FROM s",
        {"replace_where": "date = '2024-01-02'"},
        "commits",
    ),
    (
        'df.write.format("delta").mode("overwrite").option("partitionOverwriteMode", "dynamic")'
        '.save("/p")',
        "INSERT OVERWRITE t SELECT * FROM s",
        {"partition_overwrite_mode": "dynamic"},
        "ConcurrentAppendException",
    ),
    (
        'df.write.format("delta").mode("overwrite").save("/p")',
        "INSERT OVERWRITE t SELECT * FROM s",
        {},
        "ConcurrentAppendException",
    ),
    (
        'df.write.format("delta").mode("append").option("txnAppId", "job")'
        '.option("txnVersion", "3").save("/p")',
        "INSERT INTO t SELECT * FROM s",
        {"txn": ("job", 3)},
        "commits",
    ),
]


@pytest.mark.parametrize(("call", "sql", "flags", "outcome"), MODES)
def test_each_dataframe_mode_plans_what_its_sql_with_flags_plans(
    table: tuple[LogBuilder, Replay], call: str, sql: str, flags: dict[str, Any], outcome: str
) -> None:
    _, rep = table
    writes = {"date": "2024-01-01"}
    df, df_outcome = _attempt(call, rep, writes=writes)
    stated, stated_outcome = _attempt(sql, rep, writes=writes, **flags)
    assert df_outcome == stated_outcome == outcome
    assert df.provenance.operation == stated.provenance.operation == "WRITE"
    assert df.provenance.parameters == stated.provenance.parameters
    assert df.written.removed["path"].to_list() == stated.written.removed["path"].to_list()
    assert df.written.app_ids == stated.written.app_ids
    assert df.read.reads.partition_predicate == stated.read.reads.partition_predicate
    assert "DataFrame write read as INSERT" in df.read.reads.reason


def test_the_session_conf_for_dynamic_overwrite_is_the_flag(
    table: tuple[LogBuilder, Replay],
) -> None:
    _, rep = table
    call = 'df.write.format("delta").mode("overwrite").save("/p")'
    a, outcome = _attempt(
        call, rep, writes={"date": "2024-01-02"}, partition_overwrite_mode="dynamic"
    )
    assert a.written.dynamic_partition_overwrite and outcome == "commits"
    # replaceWhere beside the session's dynamic mode wins (WriteIntoDelta); beside the
    # writer's own partitionOverwriteMode=dynamic it is Delta's error
    rw = f'df.write.mode("overwrite").option("replaceWhere", {RW}).save("/p")'
    a, outcome = _attempt(rw, rep, partition_overwrite_mode="dynamic")
    assert not a.written.dynamic_partition_overwrite and outcome == "ConcurrentAppendException"
    both = rw.replace(".save", '.option("partitionOverwriteMode", "dynamic").save')
    with pytest.raises(ValueError, match="replaceWhere with partitionOverwriteMode=dynamic"):
        _attempt(both, rep)
    schema = call.replace(".save", '.option("overwriteSchema", "true").save')
    with pytest.raises(ValueError, match="overwriteSchema with a dynamic"):
        _attempt(schema, rep, partition_overwrite_mode="dynamic")
    with pytest.raises(ValueError, match="drop --txn"):
        _attempt(MODES[-1][0], rep, txn=("other", 1))


def test_merge_schema_is_said_and_lowers_confidence(table: tuple[LogBuilder, Replay]) -> None:
    _, rep = table
    a, _ = _attempt('df.write.mode("append").option("mergeSchema", "true").save("/p")', rep)
    assert a.read.reads.confidence == "medium" and "mergeSchema" in a.read.reads.reason


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t ADD COLUMNS (note STRING)",
        "ALTER TABLE t SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 31 days')",
    ],
)
def test_a_metadata_only_change_is_not_called_a_blind_append(
    table: tuple[LogBuilder, Replay], sql: str
) -> None:
    _, rep = table
    a = attempt_transaction(sql, rep, read_version=1, profile=delta_spark())
    verdict = check_attempt(a, reconstruct_transactions(rep, profile=delta_spark()), rep)
    assert verdict.outcome == "commits"
    assert "blind append" not in verdict.reason
    assert "metaData or protocol action" in verdict.reason


# ---------------------------------------------------------------------------------------------
# docs/attempts.md: every example there, run against the real Delta 4.4.0 log it names

REPO = Path(__file__).resolve().parents[2]
KEPT = REPO / "tests" / "realspark" / "logs" / "delta-4.4.0"


def _doc_rows() -> list[tuple[str, str, list[str], str, str]]:
    text = (REPO / "docs" / "attempts.md").read_text(encoding="utf-8")
    table = text.split("<!-- dataframe-modes: begin")[1].split("<!-- dataframe-modes: end")[0]
    rows = []
    for line in table.splitlines()[3:]:
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 5:
            mode, call, flags, pair, outcome = cells
            rows.append((mode, call, flags.split(), pair, outcome))
    return rows


def test_the_doc_shows_every_mode() -> None:
    modes = " ".join(r[0] for r in _doc_rows())
    for mode in ("append", "replaceWhere", "dynamic", "overwrite", "idempotent", "mergeSchema"):
        assert mode in modes


@pytest.mark.parametrize(("mode", "call", "flags", "pair", "outcome"), _doc_rows())
def test_each_documented_example_predicts_the_real_outcome(
    tmp_path: Path, mode: str, call: str, flags: list[str], pair: str, outcome: str
) -> None:
    record = json.loads((KEPT / pair / "record.json").read_text())
    assert record["outcome"] == outcome, f"{pair}: the engine said {record['outcome']}"
    out = tmp_path / "report.json"
    args = ["explain", str(KEPT / pair), "--attempt", call, *flags]
    assert main([*args, "--format", "json", "--output", str(out)]) == 0
    attempt = json.loads(out.read_text())["attempts"][0]
    assert attempt["outcome"] == outcome, attempt["reason"]
    if outcome != "commits":
        assert attempt["winner_version"] == record["winner_versions"][0]
