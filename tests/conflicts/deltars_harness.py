"""Run a stale pair on the real deltalake engine and our model on the same commits.

Winner A commits at v3 from a fresh snapshot; loser B runs from a snapshot at v2. The engine's
real outcome for B is what ``CommitFailedError`` says (or "commits"). B's would-be commit is
recorded by running B alone on a copy of the v2 table; that commit becomes v4 (read at v2) of
an analysis log holding A as v3, and our checker predicts B's outcome against A.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
from deltalake.exceptions import CommitFailedError

from deltaforensics.analysis import load, open_store
from deltaforensics.conflicts.checker import check
from deltaforensics.profiles import delta_rs
from deltaforensics.transactions import reconstruct_transactions

Op = Callable[[DeltaTable, str], Any]

D1, D2, D3, D4 = "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"

MESSAGES = {
    "a concurrent transactions added new data": "ConcurrentAppendException",
    "deleted data this operation read": "ConcurrentDeleteReadException",
    "deleted the same data": "ConcurrentDeleteDeleteException",
    "Metadata changed since last commit": "MetadataChangedException",
    "Protocol changed since last commit": "ProtocolChangedException",
    "Concurrent transaction failed": "ConcurrentTransactionException",
}


def rows(date: str | None, ids: range, country: str = "US") -> pa.Table:
    n = len(ids)
    data: dict[str, Any] = {
        "user_id": pa.array(list(ids), pa.int32()),
        "country": pa.array([country] * n),
        "value": pa.array([float(i) * 1.5 for i in ids]),
    }
    if date is not None:
        data["date"] = pa.array([date] * n)
    return pa.table(data)


def setup(
    path: str,
    *,
    partitioned: bool = True,
    d1_files: int = 1,
    configuration: dict[str, str] | None = None,
) -> None:
    """v0..v2 (plus extra d1 files): d1 holds user_id 0-9, d2 100-104, d3 200-204."""
    kw: dict[str, Any] = {"partition_by": ["date"]} if partitioned else {}
    if configuration:
        kw["configuration"] = configuration
    write_deltalake(path, rows(D1, range(10)), **kw)
    write_deltalake(path, rows(D2, range(100, 105), "DE"), mode="append")
    write_deltalake(path, rows(D3, range(200, 205), "FR"), mode="append")
    for i in range(d1_files - 1):
        write_deltalake(path, rows(D1, range(10 + 10 * i, 20 + 10 * i)), mode="append")


def classify(exc: BaseException) -> str:
    text = str(exc)
    for needle, name in MESSAGES.items():
        if needle in text:
            return name
    return f"unclassified: {text[:80]}"


def run_pair(tmp: Path, op_a: Op, op_b: Op, **setup_kw: Any) -> tuple[str, str, str]:
    """Returns (real outcome, predicted outcome, predicted reason)."""
    real, shadow, analysis = str(tmp / "real"), str(tmp / "shadow"), tmp / "analysis"
    setup(real, **setup_kw)
    base = DeltaTable(real).version()
    shutil.copytree(real, shadow)
    stale = DeltaTable(real)
    op_a(DeltaTable(real), real)
    winner_version = DeltaTable(real).version()
    assert winner_version == base + 1, "the winner must commit exactly one version"
    try:
        op_b(stale, real)
        outcome = "commits"
    except CommitFailedError as exc:
        outcome = classify(exc)
    op_b(DeltaTable(shadow), shadow)
    log = analysis / "_delta_log"
    log.mkdir(parents=True)
    for v in range(winner_version + 1):
        shutil.copy(Path(real) / "_delta_log" / f"{v:020d}.json", log / f"{v:020d}.json")
    shutil.copy(
        Path(shadow) / "_delta_log" / f"{base + 1:020d}.json",
        log / f"{winner_version + 1:020d}.json",
    )
    rep = load(open_store(str(analysis)), mode="history").replay
    txns = reconstruct_transactions(rep, profile=delta_rs())
    loser = txns[winner_version + 1].revised(read_version=base, read_version_source="test harness")
    verdict = check(loser, [txns[winner_version]], profile=delta_rs(), history=rep)
    return outcome, verdict.outcome, verdict.reason


# ----- operations (dt is the DeltaTable whose snapshot the operation uses) -----


def append(date: str | None, ids: range, *, app: tuple[str, int] | None = None) -> Op:
    def op(dt: DeltaTable, _path: str) -> None:
        props = CommitProperties(app_transactions=[Transaction(app[0], app[1])]) if app else None
        write_deltalake(dt, rows(date, ids), mode="append", commit_properties=props)

    return op


def delete(predicate: str | None = None) -> Op:
    return lambda dt, _p: dt.delete(predicate)


def update(predicate: str) -> Op:
    return lambda dt, _p: dt.update(updates={"value": "value * 2"}, predicate=predicate)


def merge(on: str, source: pa.Table, *, insert: bool = True, update_matched: bool = True) -> Op:
    def op(dt: DeltaTable, _path: str) -> None:
        m = dt.merge(source, on, source_alias="s", target_alias="t")
        if update_matched:
            m = m.when_matched_update_all()
        if insert:
            m = m.when_not_matched_insert_all()
        m.execute()

    return op


def compact() -> Op:
    return lambda dt, _p: dt.optimize.compact()


def z_order() -> Op:
    return lambda dt, _p: dt.optimize.z_order(["user_id"])


def add_column() -> Op:
    from deltalake.schema import Field, PrimitiveType

    return lambda dt, _p: dt.alter.add_columns(
        [Field("note", PrimitiveType("string"), nullable=True)]
    )


def set_properties(props: dict[str, str]) -> Op:
    return lambda dt, _p: dt.alter.set_table_properties(props)


def overwrite(date: str | None, ids: range, predicate: str | None = None) -> Op:
    def op(dt: DeltaTable, _path: str) -> None:
        write_deltalake(dt, rows(date, ids), mode="overwrite", predicate=predicate)

    return op
