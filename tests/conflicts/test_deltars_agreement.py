"""The delta-rs profile agrees with the real deltalake engine, pair by pair (field notes §3.3).

Each case runs the engine: no recorded outcomes. ``known`` marks the field notes' measured
result so a behaviour change in deltalake itself is noticed too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conflicts.deltars_harness import (
    D1,
    D2,
    D3,
    D4,
    add_column,
    append,
    compact,
    delete,
    merge,
    overwrite,
    rows,
    run_pair,
    set_properties,
    update,
    z_order,
)

APPEND, DELREAD, DELDEL = (
    "ConcurrentAppendException",
    "ConcurrentDeleteReadException",
    "ConcurrentDeleteDeleteException",
)
META, PROTO, TXN, OK = (
    "MetadataChangedException",
    "ProtocolChangedException",
    "ConcurrentTransactionException",
    "commits",
)

P = {}  # partitioned, one file per partition
P2 = {"d1_files": 2}  # d1 has two files (the O* rows)
U = {"partitioned": False}

CASES = [
    (
        "1 append/append same partition",
        append(D1, range(1000, 1003)),
        append(D1, range(2000, 2003)),
        P,
        OK,
    ),
    (
        "1b append/append other partition",
        append(D1, range(1000, 1003)),
        append(D4, range(2000, 2003)),
        P,
        OK,
    ),
    (
        "2 append no stats overlap/delete",
        append(D1, range(1000, 1003)),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        OK,
    ),
    (
        "2' append stats overlap/delete",
        append(D1, range(3)),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        APPEND,
    ),
    (
        "2b append d4/delete d1",
        append(D4, range(3)),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        OK,
    ),
    (
        "2c delete d1/append d1",
        delete(f"date = '{D1}' AND user_id < 3"),
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    (
        "3 delete/delete disjoint rows same file",
        delete(f"date = '{D1}' AND user_id < 3"),
        delete(f"date = '{D1}' AND user_id > 7"),
        P,
        APPEND,
    ),
    (
        "3b identical deletes",
        delete(f"date = '{D1}' AND user_id < 3"),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        DELREAD,
    ),
    (
        "3c whole partition/rows",
        delete(f"date = '{D1}'"),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        DELREAD,
    ),
    (
        "4 delete d1/delete d2",
        delete(f"date = '{D1}' AND user_id < 3"),
        delete(f"date = '{D2}' AND user_id > 102"),
        P,
        OK,
    ),
    (
        "4b delete partition d3/delete d2 rows",
        delete(f"date = '{D3}'"),
        delete(f"date = '{D2}' AND user_id > 102"),
        P,
        OK,
    ),
    (
        "4c delete d2/non-partition predicate",
        delete(f"date = '{D2}' AND user_id > 102"),
        delete("country = 'US' AND user_id < 3"),
        P,
        OK,
    ),
    (
        "5 merge d1/append d1",
        merge("t.user_id = s.user_id AND t.date = s.date", rows(D1, range(3))),
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    (
        "5b append d1/merge d1",
        append(D1, range(1000, 1003)),
        merge("t.user_id = s.user_id AND t.date = s.date", rows(D1, range(3))),
        P,
        APPEND,
    ),
    (
        "5c append d4/merge without literal",
        append(D4, range(1000, 1003)),
        merge("t.user_id = s.user_id AND t.date = s.date", rows(D1, range(3))),
        P,
        APPEND,
    ),
    (
        "5d append d4/merge with literal",
        append(D4, range(1000, 1003)),
        merge(f"t.user_id = s.user_id AND t.date = '{D1}' AND t.date = s.date", rows(D1, range(3))),
        P,
        OK,
    ),
    (
        "5e append d4/insert-only merge d4",
        append(D4, range(1000, 1003)),
        merge(
            "t.user_id = s.user_id AND t.date = s.date",
            rows(D4, range(5000, 5003)),
            update_matched=False,
        ),
        P,
        APPEND,
    ),
    (
        "5f merge d1/merge d1",
        merge("t.user_id = s.user_id AND t.date = s.date", rows(D1, range(3))),
        merge("t.user_id = s.user_id AND t.date = s.date", rows(D1, range(3, 6))),
        P,
        APPEND,
    ),
    ("6c update d2/update d1", update(f"date = '{D2}'"), update(f"date = '{D1}'"), P, OK),
    (
        "6d update d1/update d1",
        update(f"date = '{D1}' AND user_id < 3"),
        update(f"date = '{D1}' AND user_id > 7"),
        P,
        APPEND,
    ),
    ("6b z_order/update d1", z_order(), update(f"date = '{D1}'"), P2, APPEND),
    ("6e z_order/delete d1", z_order(), delete(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    ("O1 update d1/compact", update(f"date = '{D1}' AND user_id < 3"), compact(), P2, DELREAD),
    ("O2 compact/update d1", compact(), update(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    ("O3 compact/append d1", compact(), append(D1, range(2000, 2003)), P2, OK),
    ("O4 append d1/compact", append(D1, range(2000, 2003)), compact(), P2, OK),
    ("O5 compact/compact (duplicates data)", compact(), compact(), P2, OK),
    ("O6 compact/delete d1", compact(), delete(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    ("O7 delete d1/compact", delete(f"date = '{D1}' AND user_id < 3"), compact(), P2, DELREAD),
    ("7 add column/append", add_column(), append(D1, range(2000, 2003)), P, META),
    (
        "7b set properties/append",
        set_properties({"delta.logRetentionDuration": "interval 31 days"}),
        append(D1, range(2000, 2003)),
        P,
        META,
    ),
    ("7c append/add column", append(D1, range(2000, 2003)), add_column(), P, OK),
    (
        "7d set properties/delete",
        set_properties({"delta.logRetentionDuration": "interval 31 days"}),
        delete(f"date = '{D1}' AND user_id < 3"),
        P,
        META,
    ),
    ("7e add column/add column", add_column(), add_column(), P, META),
    (
        "P1 enable DVs/append d4",
        set_properties({"delta.enableDeletionVectors": "true"}),
        append(D4, range(2000, 2003)),
        P,
        PROTO,
    ),
    (
        "8 overwrite/append",
        overwrite(D1, range(5000, 5004)),
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    (
        "8b append/overwrite (lost overwrite)",
        append(D1, range(1000, 1003)),
        overwrite(D1, range(5000, 5004)),
        P,
        OK,
    ),
    (
        "8c replaceWhere d1/append d1",
        overwrite(D1, range(5000, 5004), f"date = '{D1}'"),
        append(D1, range(2000, 2003)),
        P,
        DELREAD,
    ),
    (
        "8d append d1/replaceWhere d1",
        append(D1, range(1000, 1003)),
        overwrite(D1, range(5000, 5004), f"date = '{D1}'"),
        P,
        APPEND,
    ),
    (
        "8e append d1/replaceWhere d3",
        append(D1, range(1000, 1003)),
        overwrite(D3, range(5000, 5004), f"date = '{D3}'"),
        P,
        OK,
    ),
    (
        "8f overwrite/overwrite",
        overwrite(D1, range(5000, 5004)),
        overwrite(D2, range(6000, 6004)),
        P,
        DELREAD,
    ),
    (
        "T1 same app id",
        append(D1, range(1000, 1003), app=("appA", 1)),
        append(D1, range(2000, 2003), app=("appA", 2)),
        P,
        TXN,
    ),
    (
        "T2 different app ids",
        append(D1, range(1000, 1003), app=("appA", 1)),
        append(D1, range(2000, 2003), app=("appB", 1)),
        P,
        OK,
    ),
    (
        "U1 unpartitioned append/append",
        append(D1, range(1000, 1003)),
        append(D1, range(2000, 2003)),
        U,
        OK,
    ),
    (
        "U2 unpartitioned append/delete no overlap",
        append(D1, range(1000, 1003)),
        delete("user_id < 3"),
        U,
        OK,
    ),
    (
        "U3 unpartitioned delete/delete disjoint",
        delete("user_id < 3"),
        delete("user_id > 7"),
        U,
        APPEND,
    ),
    (
        "U4 unpartitioned update/compact",
        update("user_id < 3"),
        compact(),
        {"partitioned": False, "d1_files": 2},
        DELREAD,
    ),
    (
        "U5 unpartitioned merge/append",
        merge("t.user_id = s.user_id", rows(D1, range(3))),
        append(D1, range(2000, 2003)),
        U,
        DELREAD,
    ),
    (
        "U6 unpartitioned append/merge",
        append(D1, range(1000, 1003)),
        merge("t.user_id = s.user_id", rows(D1, range(3))),
        U,
        APPEND,
    ),
    (
        "I1 snapshotIsolation append/delete overlap",
        append(D1, range(3)),
        delete(f"date = '{D1}' AND user_id < 3"),
        {"configuration": {"delta.isolationLevel": "snapshotIsolation"}},
        OK,
    ),
    (
        "I2 Spark spelling WriteSerializable is ignored",
        append(D1, range(3)),
        delete(f"date = '{D1}' AND user_id < 3"),
        {"configuration": {"delta.isolationLevel": "WriteSerializable"}},
        APPEND,
    ),
]


@pytest.mark.engine
@pytest.mark.parametrize(
    ("op_a", "op_b", "setup_kw", "known"),
    [pytest.param(a, b, s, k, id=i) for i, a, b, s, k in CASES],
)
def test_delta_rs_profile_predicts_the_engine(tmp_path: Path, op_a, op_b, setup_kw, known) -> None:
    real, predicted, reason = run_pair(tmp_path, op_a, op_b, **setup_kw)
    assert predicted == real, f"engine: {real}; model: {predicted} ({reason})"
    assert real == known, f"deltalake itself now gives {real} (field notes measured {known})"


def test_there_are_at_least_forty_pairs() -> None:
    assert len(CASES) >= 40
