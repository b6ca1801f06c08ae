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

from deltaforensics.conflicts.checker import COMMITS, empty_commit_skipped
from deltaforensics.model.ids import IsolationLevel
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
        assert not empty_commit_skipped(race.loser, variant.profile, level or race.loser.isolation)


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
