"""``ALTER TABLE t ALTER COLUMN id SYNC IDENTITY`` as Delta-Spark records it, in races.

Delta has no ``SYNC IDENTITY`` operation: ``AlterTableChangeColumnDeltaCommand`` commits
``CHANGE COLUMN`` with the column as it was (``DeltaOperations.ChangeColumn``), only a
``metaData`` action, ``isBlindAppend=false`` (it called ``txn.readWholeTable()`` to find the
high-water mark), its ``readVersion`` and the ``delta.identity.schemaUpdate`` tag
(delta-io/delta ``commands/alterDeltaTableCommands.scala``, ``OptimisticTransaction.commitImpl``).
The expected outcomes are those of Delta's ``IdentityColumnConflictSuite``: SYNC IDENTITY
against an INSERT that appends fails with ConcurrentAppendException (also on a Serializable
table); against an INSERT generating identity values (a metadata update) with
MetadataChangedException; as the winner it fails nobody who changes no metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import load, open_store
from deltaforensics.attempts import attempt_transaction, check_attempt
from deltaforensics.conflicts.checker import COMMITS
from deltaforensics.profiles import delta_spark
from deltaforensics.profiles.statement_writers import SPARK
from deltaforensics.statements import parse_statement
from deltaforensics.transactions import reconstruct_transactions
from tests.conflicts.scenarios import OSS41, WS, S, add_field, load_race, rewrite, table
from tests.support import LogBuilder

SYNC = "ALTER TABLE t ALTER COLUMN id SYNC IDENTITY"


def _identity(high_water_mark: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"delta.identity.start": 1, "delta.identity.step": 1,
                           "delta.identity.allowExplicitInsert": True}  # fmt: skip
    if high_water_mark is not None:
        out["delta.identity.highWaterMark"] = high_water_mark
    return out


def _identity_table(path: Path, isolation: str) -> tuple[LogBuilder, int]:
    b = table(path, OSS41, isolation=isolation, partitioned=False,
              protocol={"minReaderVersion": 1, "minWriterVersion": 6})  # fmt: skip
    b.metadata = add_field(b, "id", "long", _identity())
    b.create()
    return b, b.write(add=[b.file(rows=100)])


def _field(b: LogBuilder) -> dict[str, Any]:
    fields = json.loads(b.metadata["schemaString"])["fields"]
    return next(f for f in fields if f["name"] == "id")


def sync_identity(b: LogBuilder, high_water_mark: int, **opts: Any) -> int:
    """The commit Delta-Spark writes for SYNC IDENTITY, its parameters from the writer model."""
    recorded = SPARK.sync_identity(_field(b))
    return b.commit(recorded.operation, parameters=recorded.parameters, blind=False,
                    metadata=add_field(b, "id", "long", _identity(high_water_mark)),
                    commit_info_extra={"tags": {"delta.identity.schemaUpdate": "true"}},
                    **opts)  # fmt: skip


def identity_insert(b: LogBuilder, high_water_mark: int) -> int:
    """An INSERT generating identity values: blind adds and a high-water-mark update."""
    return b.commit("WRITE", parameters={"mode": "Append", "partitionBy": "[]"},
                    add=[b.file(rows=10)], metadata=add_field(b, "id", "long", _identity(high_water_mark)),
                    commit_info_extra={"tags": {"delta.identity.schemaUpdate": "true"}})  # fmt: skip


def test_the_writer_model_records_a_change_column_with_the_column_as_it_was() -> None:
    field = {"name": "id", "type": "long", "nullable": True, "metadata": _identity(7)}
    recorded = SPARK.sync_identity(field)
    assert recorded.operation == "CHANGE COLUMN"
    assert json.loads(recorded.parameters["column"]) == field
    assert set(recorded.parameters) == {"column"}  # no "position": the column does not move


@pytest.mark.parametrize(
    "sql",
    [
        SYNC,
        "alter table t change column id sync identity",
        "ALTER TABLE t CHANGE id SYNC IDENTITY;",
    ],
)
def test_every_spelling_of_delta_grammar_is_one_sync_identity_action(sql: str) -> None:
    (action,) = parse_statement(sql).alter
    assert (action.kind, action.columns) == ("sync_identity", (("id", ""),))


def test_the_committed_change_column_reads_the_whole_table(tmp_path: Path) -> None:
    b, _r = _identity_table(tmp_path, S)
    sync_identity(b, 100)
    rep = load(open_store(str(tmp_path)), mode="history").replay
    t = reconstruct_transactions(rep, profile=delta_spark((4, 1)))[-1]
    assert t.provenance.operation == "CHANGE COLUMN" and t.provenance.is_blind_append is False
    assert (
        t.read.reads.whole_table
        and not t.read.reads.blind
        and "SYNC IDENTITY" in t.read.reads.reason
    )
    assert t.written.changes_metadata and t.written.metadata_change.identity_only


@pytest.mark.parametrize("isolation", [S, WS])
def test_sync_identity_loses_to_an_append(tmp_path: Path, isolation: str) -> None:
    """IdentityColumnConflictSuite: current syncIdentity, winner noMetadataUpdate (an INSERT
    with explicit ids) -> ConcurrentAppendException; WriteSerializable does not excuse the
    blind append because SYNC IDENTITY changes metadata."""
    b, r = _identity_table(tmp_path, isolation)
    b.write(add=[b.file(rows=1)])
    sync_identity(b, 100, read_version=r)
    verdict = load_race(tmp_path, OSS41, r).check()
    assert (verdict.outcome, verdict.code) == ("ConcurrentAppendException", "DC010"), verdict.reason


def test_sync_identity_loses_to_an_identity_insert_with_metadata_changed(tmp_path: Path) -> None:
    """IdentityColumnConflictSuite: current syncIdentity, winner generatedId."""
    b, r = _identity_table(tmp_path, S)
    identity_insert(b, 200)
    sync_identity(b, 100, read_version=r)
    verdict = load_race(tmp_path, OSS41, r).check()
    assert (verdict.outcome, verdict.code) == ("MetadataChangedException", "DC002")


def test_sync_identity_as_the_winner_fails_no_one_who_changes_no_metadata(tmp_path: Path) -> None:
    """IdentityColumnConflictSuite: winner syncIdentity, current noMetadataUpdate -> commits."""
    b, r = _identity_table(tmp_path, WS)
    sync_identity(b, 100)
    f = b.live_files(version=r)[0]
    b.delete("id = 5", remove=[f], add=[rewrite(b, f)], read_version=r)
    assert load_race(tmp_path, OSS41, r).check().outcome == COMMITS


def test_an_attempted_sync_identity_predicts_the_append_conflict(tmp_path: Path) -> None:
    b, r = _identity_table(tmp_path, WS)
    b.write(add=[b.file(rows=1)])
    rep = load(open_store(str(tmp_path)), mode="history").replay
    profile = delta_spark((4, 1))
    attempt = attempt_transaction(SYNC, rep, read_version=r, profile=profile)
    assert (
        attempt.provenance.operation == "CHANGE COLUMN"
        and attempt.provenance.is_blind_append is False
    )
    assert attempt.read.reads.whole_table and attempt.written.changes_metadata
    verdict = check_attempt(attempt, reconstruct_transactions(rep, profile=profile), rep)
    assert verdict.code == "DC010", verdict.reason


def test_sync_identity_on_a_column_without_identity_is_one_clear_error(tmp_path: Path) -> None:
    _b, r = _identity_table(tmp_path, S)
    rep = load(open_store(str(tmp_path)), mode="history").replay
    with pytest.raises(ValueError, match="not an identity column"):
        attempt_transaction("ALTER TABLE t ALTER COLUMN amount SYNC IDENTITY", rep,
                            read_version=r, profile=delta_spark())  # fmt: skip
