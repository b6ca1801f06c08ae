"""``explain --attempt`` predicts the real deltalake engine, statement by statement.

Each pair builds a table with deltalake, takes a stale snapshot at version N, lets the winner(s)
commit, then runs the loser *for real* from the stale snapshot through the deltalake API
equivalent of the SQL, and asserts that ``check_attempt`` for the SQL text (``profile=delta_rs()``,
``read_version=N``) predicts the engine's outcome. The engine runs every time; ``known`` is the
outcome the field notes measured (or that we measured when adding the pair), so a change in
deltalake itself is noticed too. The pairs mirror ``tests/conflicts/test_deltars_agreement.py``
plus statement forms only an attempt has (OPTIMIZE WHERE, ADD CONSTRAINT, TRUNCATE, NOT MATCHED
BY SOURCE, time travel, several winners).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
from deltalake.exceptions import CommitFailedError

from deltaforensics.analysis import load, open_store
from deltaforensics.attempts import attempt_transaction, check_attempt
from deltaforensics.profiles import delta_rs
from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.explain import Attempt
from deltaforensics.transactions import reconstruct_transactions
from tests.conflicts.deltars_harness import (
    D1,
    D2,
    D3,
    D4,
    Op,
    add_column,
    append,
    classify,
    compact,
    delete,
    merge,
    overwrite,
    rows,
    set_properties,
    setup,
    update,
    z_order,
)

pytestmark = pytest.mark.engine

APPEND, DELREAD = "ConcurrentAppendException", "ConcurrentDeleteReadException"
META, PROTO, TXN, OK = (
    "MetadataChangedException",
    "ProtocolChangedException",
    "ConcurrentTransactionException",
    "commits",
)

P: dict[str, Any] = {}
P2: dict[str, Any] = {"d1_files": 2}
U: dict[str, Any] = {"partitioned": False}
U2: dict[str, Any] = {"partitioned": False, "d1_files": 2}


# ----- loser operations the harness does not have ---------------------------------------------


def append_country(date: str | None, ids: range, country: str) -> Op:
    return lambda dt, _p: write_deltalake(dt, rows(date, ids, country), mode="append")


def append_txn(date: str, ids: range, app: tuple[str, int]) -> Op:
    def op(dt: DeltaTable, _p: str) -> None:
        props = CommitProperties(app_transactions=[Transaction(app[0], app[1])])
        write_deltalake(dt, rows(date, ids), mode="append", commit_properties=props)

    return op


def merge_clauses(on: str, source: pa.Table, clauses: Sequence[tuple[str, str | None]]) -> Op:
    """``clauses``: (``matched_update`` | ``matched_delete`` | ``insert`` | ``by_source_delete``, condition)."""

    def op(dt: DeltaTable, _p: str) -> None:
        m = dt.merge(source, on, source_alias="s", target_alias="t")
        for kind, cond in clauses:
            if kind == "matched_update":
                m = m.when_matched_update_all(cond)
            elif kind == "matched_delete":
                m = m.when_matched_delete(cond)
            elif kind == "insert":
                m = m.when_not_matched_insert_all(cond)
            else:
                m = m.when_not_matched_by_source_delete(cond)
        m.execute()

    return op


def compact_where(date: str) -> Op:
    return lambda dt, _p: dt.optimize.compact(partition_filters=[("date", "=", date)])


def add_constraint(name: str, expr: str) -> Op:
    return lambda dt, _p: dt.alter.add_constraint({name: expr})


def truncate() -> Op:
    return lambda dt, _p: dt.delete()


def replace_table() -> Op:
    """CREATE OR REPLACE TABLE … AS SELECT: overwrite data and schema from the stale snapshot."""

    def op(dt: DeltaTable, _p: str) -> None:
        data = pa.table({"user_id": pa.array([1, 2], pa.int32()), "date": pa.array([D1, D2])})
        write_deltalake(dt, data, mode="overwrite", schema_mode="overwrite", partition_by=["date"])

    return op


def values(date: str | None, ids: range, country: str = "US") -> str:
    """The VALUES list ``rows(date, ids, country)`` writes."""
    items = [
        f"({i}, '{country}', {float(i) * 1.5}" + (f", '{date}')" if date is not None else ")")
        for i in ids
    ]
    return "VALUES " + ", ".join(items)


# ----- the pairs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    name: str
    winners: tuple[Op, ...]
    sql: str
    loser: Op
    setup_kw: dict[str, Any]
    known: str
    attempt_kw: dict[str, Any] = field(default_factory=dict)
    time_travel: bool = False  # stale snapshot via DeltaTable(path, version=N)


def pair(
    name: str,
    winner: Op | tuple[Op, ...],
    sql: str,
    loser: Op,
    setup_kw: dict[str, Any],
    known: str,
    **attempt_kw: Any,
) -> Pair:
    winners = winner if isinstance(winner, tuple) else (winner,)
    tt = bool(attempt_kw.pop("time_travel", False))
    return Pair(name, winners, sql, loser, setup_kw, known, attempt_kw, tt)


ON = "t.user_id = s.user_id AND t.date = s.date"
MERGE_ALL = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
DEL_D1 = f"date = '{D1}' AND user_id < 3"

PAIRS = [
    pair(
        "1 append/INSERT same partition",
        append(D1, range(1000, 1003)),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        OK,
    ),
    pair(
        "1b append/INSERT other partition",
        append(D1, range(1000, 1003)),
        f"INSERT INTO t {values(D4, range(2000, 2003))}",
        append(D4, range(2000, 2003)),
        P,
        OK,
    ),
    pair(
        "2 append no stats overlap/DELETE",
        append(D1, range(1000, 1003)),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        OK,
    ),
    pair(
        "2' append stats overlap/DELETE",
        append(D1, range(3)),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        APPEND,
    ),
    pair(
        "2b append d4/DELETE d1",
        append(D4, range(3)),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        OK,
    ),
    pair(
        "2c delete d1/INSERT d1",
        delete(DEL_D1),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    pair(
        "3 delete/DELETE disjoint rows same file",
        delete(DEL_D1),
        f"DELETE FROM t t1 WHERE t1.date = '{D1}' AND t1.user_id > 7",
        delete(f"date = '{D1}' AND user_id > 7"),
        P,
        APPEND,
    ),
    pair(
        "3b identical deletes",
        delete(DEL_D1),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        DELREAD,
    ),
    pair(
        "3c whole partition/DELETE rows",
        delete(f"date = '{D1}'"),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        DELREAD,
    ),
    pair(
        "4 delete d1/DELETE d2",
        delete(DEL_D1),
        f"DELETE FROM t WHERE date = '{D2}' AND user_id > 102",
        delete(f"date = '{D2}' AND user_id > 102"),
        P,
        OK,
    ),
    pair(
        "4b delete partition d3/DELETE d2 rows",
        delete(f"date = '{D3}'"),
        f"DELETE FROM t WHERE date = '{D2}' AND user_id > 102",
        delete(f"date = '{D2}' AND user_id > 102"),
        P,
        OK,
    ),
    pair(
        "4c delete d2/DELETE non-partition predicate",
        delete(f"date = '{D2}' AND user_id > 102"),
        "DELETE FROM t WHERE country = 'US' AND user_id < 3",
        delete("country = 'US' AND user_id < 3"),
        P,
        OK,
    ),
    pair(
        "5 merge d1/INSERT d1",
        merge(ON, rows(D1, range(3))),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    pair(
        "5b append d1/MERGE",
        append(D1, range(1000, 1003)),
        f"MERGE INTO t USING s ON {ON} {MERGE_ALL}",
        merge(ON, rows(D1, range(3))),
        P,
        APPEND,
    ),
    pair(
        "5c append d4/MERGE without literal",
        append(D4, range(1000, 1003)),
        f"MERGE INTO t USING s ON {ON} {MERGE_ALL}",
        merge(ON, rows(D1, range(3))),
        P,
        APPEND,
    ),
    pair(
        "5d append d4/MERGE with literal",
        append(D4, range(1000, 1003)),
        f"MERGE INTO t USING s ON t.user_id = s.user_id AND t.date = '{D1}' AND t.date = s.date {MERGE_ALL}",
        merge(f"t.user_id = s.user_id AND t.date = '{D1}' AND t.date = s.date", rows(D1, range(3))),
        P,
        OK,
    ),
    pair(
        "5e append d4/insert-only MERGE",
        append(D4, range(1000, 1003)),
        f"MERGE INTO t USING s ON {ON} WHEN NOT MATCHED THEN INSERT *",
        merge(ON, rows(D4, range(5000, 5003)), update_matched=False),
        P,
        APPEND,
    ),
    pair(
        "5f merge d1/MERGE d1",
        merge(ON, rows(D1, range(3))),
        f"MERGE INTO t USING s ON {ON} {MERGE_ALL}",
        merge(ON, rows(D1, range(3, 6))),
        P,
        APPEND,
    ),
    pair(
        "5g append d4 US/MERGE ON target-only data literal",
        append_country(D4, range(1000, 1003), "US"),
        f"MERGE INTO t USING s ON t.user_id = s.user_id AND t.country = 'US' {MERGE_ALL}",
        merge("t.user_id = s.user_id AND t.country = 'US'", rows(D1, range(3))),
        P,
        APPEND,
    ),
    pair(
        "5h append d4 FR/MERGE ON target-only data literal",
        append_country(D4, range(1000, 1003), "FR"),
        f"MERGE INTO t USING s ON t.user_id = s.user_id AND t.country = 'US' {MERGE_ALL}",
        merge("t.user_id = s.user_id AND t.country = 'US'", rows(D1, range(3))),
        P,
        OK,
    ),
    pair(
        "5i append d4/MERGE literal + NOT MATCHED BY SOURCE",
        append(D4, range(1000, 1003)),
        f"MERGE INTO t USING s ON t.user_id = s.user_id AND t.date = '{D1}' "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED BY SOURCE THEN DELETE",
        merge_clauses(
            f"t.user_id = s.user_id AND t.date = '{D1}'",
            rows(D1, range(3)),
            [("matched_update", None), ("by_source_delete", None)],
        ),
        P,
        APPEND,
    ),
    pair(
        "5j append d4/MERGE literal, conditional delete",
        append(D4, range(1000, 1003)),
        f"MERGE INTO t AS x USING s ON x.user_id = s.user_id AND x.date = '{D1}' WHEN MATCHED AND s.value > 1 THEN DELETE",
        merge_clauses(
            f"t.user_id = s.user_id AND t.date = '{D1}'",
            rows(D1, range(3)),
            [("matched_delete", "s.value > 1")],
        ),
        P,
        OK,
    ),
    pair(
        "6c update d2/UPDATE d1",
        update(f"date = '{D2}'"),
        f"UPDATE t SET value = value * 2 WHERE date = '{D1}'",
        update(f"date = '{D1}'"),
        P,
        OK,
    ),
    pair(
        "6d update d1/UPDATE d1",
        update(DEL_D1),
        f"UPDATE t SET value = value * 2 WHERE date = '{D1}' AND user_id > 7",
        update(f"date = '{D1}' AND user_id > 7"),
        P,
        APPEND,
    ),
    pair(
        "6b z_order/UPDATE d1",
        z_order(),
        f"UPDATE t SET value = value * 2 WHERE date = '{D1}'",
        update(f"date = '{D1}'"),
        P2,
        APPEND,
    ),
    pair(
        "6e z_order/DELETE d1",
        z_order(),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P2,
        APPEND,
    ),
    pair("O1 update d1/OPTIMIZE", update(DEL_D1), "OPTIMIZE t", compact(), P2, DELREAD),
    pair(
        "O2 compact/UPDATE d1",
        compact(),
        f"UPDATE t SET value = value * 2 WHERE {DEL_D1}",
        update(DEL_D1),
        P2,
        APPEND,
    ),
    pair(
        "O3 compact/INSERT d1",
        compact(),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P2,
        OK,
    ),
    pair("O4 append d1/OPTIMIZE", append(D1, range(2000, 2003)), "OPTIMIZE t", compact(), P2, OK),
    pair("O5 compact/OPTIMIZE (duplicates data)", compact(), "OPTIMIZE t", compact(), P2, OK),
    pair(
        "O6 compact/DELETE d1",
        compact(),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P2,
        APPEND,
    ),
    pair("O7 delete d1/OPTIMIZE", delete(DEL_D1), "OPTIMIZE t", compact(), P2, DELREAD),
    pair(
        "O8 delete d2/OPTIMIZE WHERE d1 (reads every file)",
        delete(f"date = '{D2}' AND user_id > 102"),
        f"OPTIMIZE t WHERE date = '{D1}'",
        compact_where(D1),
        P2,
        DELREAD,
    ),
    pair(
        "O9 delete d1/OPTIMIZE WHERE d2 (nothing to compact)",
        delete(DEL_D1),
        f"OPTIMIZE t WHERE date = '{D2}'",
        compact_where(D2),
        P2,
        OK,
    ),
    pair(
        "O10 delete d1/OPTIMIZE ZORDER BY",
        delete(DEL_D1),
        "OPTIMIZE t ZORDER BY (user_id)",
        z_order(),
        P2,
        DELREAD,
    ),
    pair(
        "7 add column/INSERT",
        add_column(),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        META,
    ),
    pair(
        "7b set properties/INSERT",
        set_properties({"delta.logRetentionDuration": "interval 31 days"}),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        META,
    ),
    pair(
        "7c append/ALTER ADD COLUMNS",
        append(D1, range(2000, 2003)),
        "ALTER TABLE t ADD COLUMNS (note STRING)",
        add_column(),
        P,
        OK,
    ),
    pair(
        "7d set properties/DELETE",
        set_properties({"delta.logRetentionDuration": "interval 31 days"}),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        P,
        META,
    ),
    pair(
        "7e add column/ALTER ADD COLUMNS",
        add_column(),
        "ALTER TABLE t ADD COLUMNS (note STRING)",
        add_column(),
        P,
        META,
    ),
    pair(
        "7f delete d1/ALTER ADD COLUMNS (reads every file)",
        delete(DEL_D1),
        "ALTER TABLE t ADD COLUMNS (note STRING)",
        add_column(),
        P,
        DELREAD,
    ),
    pair(
        "7g delete d1/SET TBLPROPERTIES",
        delete(DEL_D1),
        "ALTER TABLE t SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 31 days')",
        set_properties({"delta.logRetentionDuration": "interval 31 days"}),
        P,
        DELREAD,
    ),
    pair(
        "7h append/ADD CONSTRAINT",
        append(D1, range(2000, 2003)),
        "ALTER TABLE t ADD CONSTRAINT value_nonneg CHECK (value >= 0)",
        add_constraint("value_nonneg", "value >= 0"),
        P,
        OK,
    ),
    pair(
        "7i delete d1/ADD CONSTRAINT",
        delete(DEL_D1),
        "ALTER TABLE t ADD CONSTRAINT value_nonneg CHECK (value >= 0)",
        add_constraint("value_nonneg", "value >= 0"),
        P,
        DELREAD,
    ),
    pair(
        "P1 enable DVs/INSERT d4",
        set_properties({"delta.enableDeletionVectors": "true"}),
        f"INSERT INTO t {values(D4, range(2000, 2003))}",
        append(D4, range(2000, 2003)),
        P,
        PROTO,
    ),
    pair(
        "8 overwrite/INSERT d1",
        overwrite(D1, range(5000, 5004)),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    pair(
        "8b append/INSERT OVERWRITE (lost overwrite)",
        append(D1, range(1000, 1003)),
        f"INSERT OVERWRITE t {values(D1, range(5000, 5004))}",
        overwrite(D1, range(5000, 5004)),
        P,
        OK,
    ),
    pair(
        "8c replaceWhere d1/INSERT d1",
        overwrite(D1, range(5000, 5004), f"date = '{D1}'"),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    pair(
        "8d append d1/INSERT OVERWRITE --replace-where d1",
        append(D1, range(1000, 1003)),
        f"INSERT OVERWRITE t {values(D1, range(5000, 5004))}",
        overwrite(D1, range(5000, 5004), f"date = '{D1}'"),
        P,
        APPEND,
        replace_where=f"date = '{D1}'",
    ),
    pair(
        "8d' append d1/INSERT OVERWRITE PARTITION d1",
        append(D1, range(1000, 1003)),
        f"INSERT OVERWRITE t PARTITION (date = '{D1}') SELECT user_id, country, value FROM s",
        overwrite(D1, range(5000, 5004), f"date = '{D1}'"),
        P,
        APPEND,
    ),
    pair(
        "8e append d1/INSERT OVERWRITE PARTITION d3",
        append(D1, range(1000, 1003)),
        f"INSERT OVERWRITE TABLE t PARTITION (date = '{D3}') SELECT user_id, country, value FROM s",
        overwrite(D3, range(5000, 5004), f"date = '{D3}'"),
        P,
        OK,
    ),
    pair(
        "8f overwrite/INSERT OVERWRITE",
        overwrite(D1, range(5000, 5004)),
        f"INSERT OVERWRITE t {values(D2, range(6000, 6004))}",
        overwrite(D2, range(6000, 6004)),
        P,
        DELREAD,
    ),
    pair(
        "8g append/CREATE OR REPLACE TABLE AS SELECT",
        append(D1, range(1000, 1003)),
        "CREATE OR REPLACE TABLE t USING DELTA PARTITIONED BY (date) AS SELECT user_id, date FROM s",
        replace_table(),
        P,
        OK,
    ),
    pair(
        "8h add column/CREATE OR REPLACE TABLE AS SELECT",
        add_column(),
        "CREATE OR REPLACE TABLE t USING DELTA PARTITIONED BY (date) AS SELECT user_id, date FROM s",
        replace_table(),
        P,
        META,
    ),
    pair(
        "9 append d1/TRUNCATE", append(D1, range(1000, 1003)), "TRUNCATE TABLE t", truncate(), P, OK
    ),
    pair("9b delete d1/TRUNCATE", delete(DEL_D1), "TRUNCATE TABLE t", truncate(), P, DELREAD),
    pair(
        "T1 same app id",
        append_txn(D1, range(1000, 1003), ("appA", 1)),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append_txn(D1, range(2000, 2003), ("appA", 2)),
        P,
        TXN,
        txn=("appA", 2),
    ),
    pair(
        "T2 different app ids",
        append_txn(D1, range(1000, 1003), ("appA", 1)),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append_txn(D1, range(2000, 2003), ("appB", 1)),
        P,
        OK,
        txn=("appB", 1),
    ),
    pair(
        "V1 two winners, time travel: UPDATE d2",
        (append(D4, range(3)), delete(DEL_D1)),
        f"UPDATE t SET value = 0 WHERE date = '{D2}'",
        update(f"date = '{D2}'"),
        P,
        OK,
        time_travel=True,
    ),
    pair(
        "V2 two winners, time travel: UPDATE d1",
        (append(D4, range(3)), delete(DEL_D1)),
        f"UPDATE t SET value = 0 WHERE date = '{D1}'",
        update(f"date = '{D1}'"),
        P,
        APPEND,
        time_travel=True,
    ),
    pair(
        "V3 time travel: replaceWhere d2 after append d2",
        append(D2, range(300, 303)),
        f"INSERT INTO t REPLACE WHERE date = '{D2}' {values(D2, range(7000, 7002))}",
        overwrite(D2, range(7000, 7002), f"date = '{D2}'"),
        P,
        APPEND,
        time_travel=True,
    ),
    pair(
        "U1 unpartitioned append/INSERT",
        append(D1, range(1000, 1003)),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        U,
        OK,
    ),
    pair(
        "U2 unpartitioned append/DELETE no overlap",
        append(D1, range(1000, 1003)),
        "DELETE FROM t WHERE user_id < 3",
        delete("user_id < 3"),
        U,
        OK,
    ),
    pair(
        "U3 unpartitioned delete/DELETE disjoint",
        delete("user_id < 3"),
        "DELETE FROM t WHERE user_id > 7",
        delete("user_id > 7"),
        U,
        APPEND,
    ),
    pair(
        "U4 unpartitioned update/OPTIMIZE",
        update("user_id < 3"),
        "OPTIMIZE t",
        compact(),
        U2,
        DELREAD,
    ),
    pair(
        "U5 unpartitioned merge/INSERT",
        merge("t.user_id = s.user_id", rows(D1, range(3))),
        f"INSERT INTO t {values(D1, range(2000, 2003))}",
        append(D1, range(2000, 2003)),
        U,
        DELREAD,
    ),
    pair(
        "U6 unpartitioned append/MERGE",
        append(D1, range(1000, 1003)),
        f"MERGE INTO t USING s ON t.user_id = s.user_id {MERGE_ALL}",
        merge("t.user_id = s.user_id", rows(D1, range(3))),
        U,
        APPEND,
    ),
    pair(
        "U7 unpartitioned append/MERGE target-only range",
        append(D1, range(1000, 1003)),
        f"MERGE INTO t USING s ON t.user_id = s.user_id AND t.user_id < 100 {MERGE_ALL}",
        merge("t.user_id = s.user_id AND t.user_id < 100", rows(D1, range(3))),
        U,
        OK,
    ),
    pair(
        "I1 snapshotIsolation append/DELETE overlap",
        append(D1, range(3)),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        {"configuration": {"delta.isolationLevel": "snapshotIsolation"}},
        OK,
    ),
    pair(
        "I2 Spark spelling WriteSerializable is ignored",
        append(D1, range(3)),
        f"DELETE FROM t WHERE {DEL_D1}",
        delete(DEL_D1),
        {"configuration": {"delta.isolationLevel": "WriteSerializable"}},
        APPEND,
    ),
]


def run_attempt(tmp: Path, p: Pair) -> tuple[str, dict[str, Any]]:
    """Returns (the engine's outcome for the loser, our attempt entry for its SQL)."""
    path = str(tmp / "t")
    setup(path, **p.setup_kw)
    base = DeltaTable(path).version()
    stale = None if p.time_travel else DeltaTable(path)
    for w in p.winners:
        w(DeltaTable(path), path)
    assert DeltaTable(path).version() == base + len(p.winners), (
        "each winner must commit exactly one version"
    )
    rep = load(open_store(path), mode="history").replay  # before the loser can add to it
    txns = reconstruct_transactions(rep, profile=delta_rs())
    attempt = attempt_transaction(p.sql, rep, read_version=base, profile=delta_rs(), **p.attempt_kw)
    verdict = check_attempt(attempt, txns, rep)
    entry = Attempt.from_verdict(verdict).to_dict()
    predicted = Conflict.from_attempt(verdict)
    if predicted is not None:  # the conflicts entry the report pairs with a failing attempt
        entry["conflict"] = predicted.to_dict()
    loser_table = DeltaTable(path, version=base) if p.time_travel else stale
    assert loser_table is not None and loser_table.version() == base
    try:
        p.loser(loser_table, path)
        real = OK
    except CommitFailedError as exc:
        real = classify(exc)
    return real, entry


@pytest.mark.parametrize("p", [pytest.param(p, id=p.name) for p in PAIRS])
def test_attempt_predicts_the_engine(tmp_path: Path, p: Pair) -> None:
    real, entry = run_attempt(tmp_path, p)
    assert entry["outcome"] == real, (
        f"engine: {real}; attempt: {entry['outcome']} ({entry['reason']})"
    )
    assert real == p.known, f"deltalake itself now gives {real} (measured {p.known})"
    if real != OK:
        conflict = entry["conflict"]
        assert conflict["source"] == "attempt" and conflict["exception"] == real
        assert conflict["winner_version"] in entry["winners"]


def test_there_are_at_least_thirty_pairs() -> None:
    assert len(PAIRS) >= 30
    assert len({p.name for p in PAIRS}) == len(PAIRS)
