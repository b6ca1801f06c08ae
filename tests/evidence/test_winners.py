"""Error texts resolve to the winning commit and the rule that fired, on a matching log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import analyze, open_store
from deltaforensics.report.document import explain_document
from tests.support import LogBuilder

DOC = "https://docs.delta.io/latest/concurrency-control.html"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("winners") / "orders"
    b = LogBuilder(
        root,
        partition_by=["date"],
        writer="spark-3.5.0",
        columns={"id": "long", "date": "string", "amount": "double"},
    )
    b.create()
    b.write(add=[b.file("date=A"), b.file("date=B")], read_version=0, blind=True)  # v1
    b.write(add=[b.file("date=A")], read_version=1, blind=True)  # v2 append
    b.merge(
        "t.id = s.id AND t.date = s.date",
        remove=b.live_files("date=A")[:1],
        add=[b.file("date=A")],
        read_version=2,
    )  # v3
    b.delete("date = 'B'", read_version=3)  # v4 removes B
    b.add_columns({"note": "string"}, read_version=4)  # v5 metadata
    b.streaming_update("q-1", 7, add=[b.file("date=A")], read_version=5)  # v6 txn q-1
    b.write(add=[b.file("date=C")], read_version=6, blind=True)  # v7
    infos: dict[str, dict[str, Any]] = {}
    for f in sorted((root / "_delta_log").glob("*.json")):
        for line in f.read_text().splitlines():
            if line.startswith('{"commitInfo"'):
                infos[str(int(f.stem))] = json.loads(line)["commitInfo"]
    return root, infos


def _json(info: dict[str, Any], version: int | None, decoded: bool = False) -> str:
    doc = dict(info)
    if version is not None:
        doc = {"version": version, **doc}
    if decoded and isinstance(doc.get("operationParameters"), dict):
        doc["operationParameters"] = {
            k: (json.loads(v) if isinstance(v, str) and v[:1] in "[{" else v)
            for k, v in doc["operationParameters"].items()
        }
    return json.dumps(doc, separators=(",", ":"))


def messages(infos: dict[str, dict[str, Any]]) -> list[tuple[str, str, int | None, str]]:
    """(id, text, expected winner, expected rule code)."""
    c = lambda v: _json(infos[str(v)], v)  # noqa: E731
    return [
        (
            "A-append",
            f"io.delta.exceptions.ConcurrentAppendException: Files were added to partition [date=A] by a concurrent update. Please try the operation again.\nConflicting commit: {c(3)}\nRefer to {DOC} for more details.",
            3,
            "DC010",
        ),
        (
            "A-delete-read",
            f"io.delta.exceptions.ConcurrentDeleteReadException: This transaction attempted to read one or more files that were deleted (for example date=B/x.parquet in partition [date=B]) by a concurrent update. Please try the operation again.\nConflicting commit: {c(4)}\nRefer to {DOC} for more details.",
            4,
            "DC011",
        ),
        (
            "A-delete-delete",
            f"io.delta.exceptions.ConcurrentDeleteDeleteException: This transaction attempted to delete one or more files that were deleted (for example date=B/x.parquet in partition [date=B]) by a concurrent update. Please try the operation again.\nConflicting commit: {c(4)}\nRefer to {DOC} for more details.",
            4,
            "DC012",
        ),
        (
            "A-metadata",
            f"io.delta.exceptions.MetadataChangedException: The metadata of the Delta table has been changed by a concurrent update. Please try the operation again.\nConflicting commit: {c(5)}\nRefer to {DOC} for more details.",
            5,
            "DC002",
        ),
        (
            "A-transaction",
            f"io.delta.exceptions.ConcurrentTransactionException: This error occurs when multiple streaming queries are using the same checkpoint to write into this table. Did you run multiple instances of the same streaming query at the same time?\nConflicting commit: {c(6)}\nRefer to {DOC} for more details.",
            6,
            "DC004",
        ),
        (
            "B-append",
            f"[DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added to partition [date=A] by a concurrent update. Please try the operation again.\nConflicting commit: {c(3)}\nRefer to {DOC} for more details.",
            3,
            "DC010",
        ),
        (
            "B-delete-read",
            f"[DELTA_CONCURRENT_DELETE_READ] ConcurrentDeleteReadException: This transaction attempted to read one or more files that were deleted (for example date=B/x.parquet in partition [date=B]) by a concurrent update. Please try the operation again.\nConflicting commit: {c(4)}\nRefer to {DOC} for more details.",
            4,
            "DC011",
        ),
        (
            "B-metadata",
            f"[DELTA_METADATA_CHANGED] MetadataChangedException: The metadata of the Delta table has been changed by a concurrent update. Please try the operation again.\nConflicting commit: {c(5)}\nRefer to {DOC} for more details.",
            5,
            "DC002",
        ),
        (
            "C-append",
            f"[DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT] Transaction conflict detected. a concurrent MERGE added data to table spark_catalog.default.orders committed at version 3. The concurrent operation modified data in the partition [date=A] that should have been read by this operation. Please retry the operation. Refer to {DOC} for more information.",
            3,
            "DC010",
        ),
        (
            "C-delete-read",
            f"[DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT] Transaction conflict detected, a concurrent DELETE deleted data from table spark_catalog.default.orders (committed at version 4) that this transaction read. The concurrent operation deleted data in the partition [date=B] that was read by this operation. Please retry the operation. Refer to {DOC} for more information.",
            4,
            "DC011",
        ),
        (
            "C-delete-delete",
            f"[DELTA_CONCURRENT_DELETE_DELETE.WITHOUT_HINT] Transaction conflict detected, a concurrent DELETE deleted data from table spark_catalog.default.orders (committed at version 4) that this transaction attempted to delete. The concurrent operation deleted data that was read by this operation. Please retry the operation. Refer to {DOC} for more information.",
            4,
            "DC012",
        ),
        (
            "C-metadata",
            f"[DELTA_METADATA_CHANGED] MetadataChangedException: The metadata of the Delta table spark_catalog.default.orders has been changed by a concurrent update. Please try the operation again.\nConflicting commit: {c(5)}\nRefer to {DOC} for more details.",
            5,
            "DC002",
        ),
        (
            "dbr-no-version-txnid",
            "delta.connect.exceptions.ConcurrentAppendException: Files were added to partition [date=A] by a concurrent update. Please try the operation again.\nConflicting commit: "
            + _json(infos["3"], None, decoded=True)
            + "\nRefer to https://docs.microsoft.com/azure/databricks/delta/concurrency-control for more details.",
            3,
            "DC010",
        ),
        (
            "not-in-retained-log",
            f"[DELTA_CONCURRENT_APPEND.WITHOUT_HINT] Transaction conflict detected. a concurrent WRITE added data to table t committed at version 999. The concurrent operation modified data that should have been read by this operation. Please retry the operation. Refer to {DOC} for more information.",
            None,
            "DC010",
        ),
    ]


@pytest.mark.parametrize(
    "case",
    range(14),
    ids=[
        m[0]
        for m in messages(
            {
                str(v): {"timestamp": 0, "operation": "X", "operationParameters": {}}
                for v in range(8)
            }
        )
    ],
)
def test_each_era_and_class_resolves_winner_and_rule(
    table: tuple[Path, dict[str, dict[str, Any]]], case: int
) -> None:
    root, infos = table
    name, text, winner, code = messages(infos)[case]
    result = analyze(open_store(str(root)), error_texts=[(name, text)])
    conflicts = explain_document(result).to_dict()["conflicts"]
    assert len(conflicts) == 1, (name, result.diagnostics)
    entry = conflicts[0]
    assert entry["source"] == "error" and entry["code"] == code
    assert entry["winner_version"] == winner, entry["reason"]
    if winner is None:
        assert "not found in the retained log" in entry["reason"]
        assert entry["confidence"] == "low"
    else:
        assert entry["confidence"] == "high"
        assert entry["candidates"] == [winner]


def test_timestamp_and_operation_find_a_winner_without_version_or_txn_id(
    table: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    root, infos = table
    info = {k: v for k, v in infos["4"].items() if k != "txnId"}
    text = f"io.delta.exceptions.ConcurrentDeleteReadException: This transaction attempted to read one or more files that were deleted (for example date=B/x.parquet in partition [date=B]) by a concurrent update. Please try the operation again.\nConflicting commit: {json.dumps(info)}\nRefer to {DOC} for more details."
    entry = explain_document(analyze(open_store(str(root)), error_texts=[("e", text)])).to_dict()[
        "conflicts"
    ][0]
    assert entry["winner_version"] == 4 and "timestamp" in entry["reason"]


def test_delta_rs_messages_name_candidates_from_the_log_line_time(
    table: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    root, infos = table
    from datetime import UTC, datetime

    at = datetime.fromtimestamp((infos["4"]["timestamp"] + 30_000) / 1000, tz=UTC).strftime(
        "%Y-%m-%dT%H:%M:%S"
    )
    text = (
        f"{at}Z ERROR worker: commit failed\n_internal.CommitFailedError: Failed to commit transaction: "
        "Commit failed: a concurrent transaction deleted data this operation read.\n"
        "Help: This transaction's query must be rerun to exclude the removed data."
    )
    entry = explain_document(analyze(open_store(str(root)), error_texts=[("rs", text)])).to_dict()[
        "conflicts"
    ][0]
    assert entry["exception"] == "ConcurrentDeleteReadException" and entry["code"] == "DC011"
    assert entry["candidates"][0] == 4  # the nearest commit that removed files before the error
    assert "candidate" in entry["reason"]
