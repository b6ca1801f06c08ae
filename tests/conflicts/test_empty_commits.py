"""Which commits without file actions Delta-Spark writes, and checks, and which it skips.

``OptimisticTransaction.commitImpl`` skips a commit only when the command committed through
``commitIfNeeded`` (WRITE, DELETE, UPDATE, MERGE), its prepared actions are empty (no file,
``metaData``, ``protocol``, ``txn`` or domain action) and it runs under Serializable or
SnapshotIsolation (``skipRecordingEmptyCommitAllowed``). TRUNCATE, the streaming sink, RESTORE
and CLONE commit through ``commit()`` / ``commitLarge`` and are always written; a commit that is
written is checked (delta-io/delta ``OptimisticTransaction.scala``, ``DeltaSink.scala``,
``RestoreTableCommand.scala``). Each case here is a loser with no file action read before a
winner that fails it when it is checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import load, open_store
from deltaforensics.attempts import attempt_transaction, check_attempt
from deltaforensics.conflicts.checker import COMMITS, empty_commit_skipped
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.transactions import reconstruct_transactions
from tests.conflicts.scenarios import DBR, OSS41, WS, A, S, Variant, load_race, seed, table

SNAPSHOT = "SnapshotIsolation"


def _race(tmp_path: Path, variant: Variant, isolation: str, winner: str, loser: str) -> Any:
    b = table(tmp_path, variant, isolation=isolation)
    r = seed(b, {A: 1})
    if winner == "metadata":
        b.set_properties({"delta.appendOnly": "false"})
    elif winner == "txn":
        b.streaming_update("query-Q", 7, add=[b.file(f"date={A}")])
    else:
        b.write(add=[b.file(f"date={A}")])
    LOSERS[loser](b, r)
    return load_race(tmp_path, variant, r)


LOSERS = {
    # an empty table's TRUNCATE as an engine that commits it records it: no action at all
    "truncate": lambda b, r: b.commit("TRUNCATE", read_version=r, isolation=SNAPSHOT, blind=False),
    # a streaming batch that wrote no rows: the sink commits its txn alone
    "streaming-batch": lambda b, r: b.streaming_update("query-Q", 7, read_version=r),
    # a DataFrame write of no rows with txnAppId/txnVersion: only the txn action
    "idempotent-write": lambda b, r: b.write(actions=[b.txn("query-Q", 7)], read_version=r),
    # RESTORE to a version with the same files: metaData and protocol, through commitLarge
    "restore": lambda b, r: b.commit(
        "RESTORE",
        parameters={"version": r, "timestamp": None},
        metadata=b.metadata,
        protocol=b.protocol,
        read_version=r,
        isolation="Serializable",
        blind=False,
    ),
    # CLONE onto the existing table from a source with the same files
    "clone": lambda b, r: b.commit(
        "CLONE",
        parameters={"source": "main.src", "sourceVersion": 3},
        metadata=b.metadata,
        read_version=r,
        isolation="Serializable",
        blind=False,
    ),
    # the empty DELETE/UPDATE/MERGE/WRITE: Spark writes no commit under Serializable
    "delete": lambda b, r: b.delete("id = -1", remove=[], read_version=r, isolation=SNAPSHOT),
    "update": lambda b, r: b.update("id = -1", read_version=r, isolation=SNAPSHOT),
    "merge": lambda b, r: b.merge("t.id = s.id", read_version=r, isolation=SNAPSHOT),
    "write": lambda b, r: b.write(read_version=r, isolation=SNAPSHOT),
}


@pytest.mark.parametrize("variant", [OSS41, DBR], ids=lambda v: v.key)
@pytest.mark.parametrize(
    ("loser", "winner", "outcome", "code"),
    [
        ("truncate", "metadata", "MetadataChangedException", "DC002"),
        ("streaming-batch", "txn", "ConcurrentTransactionException", "DC004"),
        ("streaming-batch", "metadata", "MetadataChangedException", "DC002"),
        ("idempotent-write", "txn", "ConcurrentTransactionException", "DC004"),
        ("restore", "append", "ConcurrentWriteException", "DC005"),
        ("clone", "append", "ConcurrentWriteException", "DC005"),
    ],
)
def test_an_empty_commit_spark_writes_is_checked(
    tmp_path: Path, variant: Variant, loser: str, winner: str, outcome: str, code: str
) -> None:
    race = _race(tmp_path, variant, S, winner, loser)
    for level in (None, IsolationLevel.SERIALIZABLE, IsolationLevel.SNAPSHOT_ISOLATION):
        verdict = race.check(**({"isolation": level} if level else {}))
        assert (verdict.outcome, verdict.code) == (outcome, code), (level, verdict.reason)
        assert not empty_commit_skipped(
            race.loser, variant.profile, level or race.loser.read.isolation
        )


@pytest.mark.parametrize("loser", ["delete", "update", "merge", "write"])
def test_an_empty_commit_if_needed_is_not_written_under_serializable(
    tmp_path: Path, loser: str
) -> None:
    """The same winner; the loser holds no action and commits through commitIfNeeded."""
    race = _race(tmp_path, OSS41, S, "metadata", loser)
    verdict = race.check()
    assert verdict.outcome == COMMITS and "not recorded" in verdict.reason
    ws = race.check(isolation=IsolationLevel.WRITE_SERIALIZABLE)  # written, and checked
    assert (ws.outcome, ws.code) == ("MetadataChangedException", "DC002")


def test_the_skipping_operations_are_profile_data() -> None:
    assert OSS41.profile.empty_commit_skipping_operations == {"WRITE", "DELETE", "UPDATE", "MERGE"}
    assert (
        DBR.profile.empty_commit_skipping_operations
        == OSS41.profile.empty_commit_skipping_operations
    )


def test_a_write_serializable_truncate_is_checked_too(tmp_path: Path) -> None:
    race = _race(tmp_path, OSS41, WS, "metadata", "truncate")
    assert race.check().code == "DC002"


# --- attempts: what the engine would have written for a statement that changes nothing ------


def _attempt(tmp_path: Path, sql: str, isolation: str, files: bool) -> Any:
    b = table(tmp_path, OSS41, isolation=isolation)
    b.create()
    r = b.write(add=[b.file(f"date={A}")]) if files else b.version
    b.set_properties({"delta.appendOnly": "false"})
    rep = load(open_store(str(tmp_path)), mode="history").replay
    attempt = attempt_transaction(sql, rep, read_version=r, profile=OSS41.profile)
    return check_attempt(attempt, reconstruct_transactions(rep, profile=OSS41.profile), rep)


@pytest.mark.parametrize("isolation", [S, WS])
def test_a_truncate_of_an_empty_table_commits_nothing(tmp_path: Path, isolation: str) -> None:
    """TruncateDeltaTableCommand commits only ``if (deleteActions.nonEmpty)``."""
    verdict = _attempt(tmp_path, "TRUNCATE TABLE t", isolation, files=False)
    assert verdict.outcome == COMMITS and "TRUNCATE with nothing to do" in verdict.reason


def test_an_optimize_with_nothing_to_compact_commits_nothing(tmp_path: Path) -> None:
    """OptimizeTableCommand commits only ``if (addedFiles.size > 0)``."""
    verdict = _attempt(tmp_path, "OPTIMIZE t", WS, files=True)
    assert verdict.outcome == COMMITS and "OPTIMIZE with nothing to do" in verdict.reason


def test_an_empty_delete_is_written_and_checked_under_write_serializable(tmp_path: Path) -> None:
    verdict = _attempt(tmp_path, "DELETE FROM t WHERE date = '1999-01-01'", WS, files=True)
    assert verdict.code == "DC002", verdict.reason
    skipped = _attempt(tmp_path / "s", "DELETE FROM t WHERE date = '1999-01-01'", S, files=True)
    assert skipped.outcome == COMMITS and "skips recording" in skipped.reason
