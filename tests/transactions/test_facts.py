"""The history's columns (``CommitFacts``) say of every commit what its transaction says, and a
transaction made on demand is the one a walk over all of them makes: on every real log of
the corpus, with each commit's own engine and with a forced profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltaforensics.analysis import RECORDED, load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.evidence.anomalies import FORGEABLE_PROVENANCE, forgeable_provenance
from deltaforensics.profiles import profile_by_name
from deltaforensics.replay import Replay
from deltaforensics.transactions import CommittedTransactions, Transaction, reconstruct_transactions
from tests.conftest import corpus_tables
from tests.support import LogBuilder


def _replays() -> list[Replay]:
    found = []
    for table in corpus_tables():
        try:
            found.append(load(open_store(str(table)), mode="history").replay)
        except DeltaForensicsError:
            continue
    return found


_COLUMNS = (
    "version",
    "read_version",
    "operation",
    "recorded_isolation",
    "is_blind_append",
    "changes_metadata",
    "num_added_files",
    "num_removed_files",
    "has_app_ids",
)


def _facts_of(t: Transaction) -> dict[str, object]:
    """What the columns hold for ``t``, read from the transaction."""
    return {
        "version": t.version,
        "read_version": t.read.version,
        "operation": t.provenance.operation,
        "recorded_isolation": t.read.isolation.value
        if t.read.isolation_source == RECORDED
        else None,
        "is_blind_append": t.provenance.is_blind_append,
        "changes_metadata": t.written.changes_metadata,
        "num_added_files": t.written.file_counts[0],
        "num_removed_files": t.written.file_counts[1],
        "has_app_ids": bool(t.written.app_ids),
    }


@pytest.mark.parametrize("forced", [None, "delta-rs", "delta-spark"])
def test_every_column_says_what_the_transaction_says(forced: str | None) -> None:
    checked = 0
    profile = profile_by_name(forced) if forced else None
    for rep in _replays():
        txns = reconstruct_transactions(rep, profile=profile)
        facts = txns.facts
        rows = facts.frame.select(*_COLUMNS, "profile").iter_rows(named=True)
        infos = txns.commit_infos()
        for t, row, info in zip(txns, rows, infos, strict=True):
            assert facts.profile_of(row.pop("profile")) is t.provenance.profile, (
                rep.uri,
                t.version,
            )
            assert row == _facts_of(t), (rep.uri, t.version)
            assert info == t.provenance.commit_info, (rep.uri, t.version)
            checked += 1
        assert facts.profiles_seen() == tuple(dict.fromkeys(t.provenance.profile for t in txns))
    assert checked > 400  # every commit of the corpus


def test_a_transaction_made_on_demand_is_the_one_a_walk_makes() -> None:
    for rep in _replays():
        versions = CommittedTransactions(rep).versions
        backwards = CommittedTransactions(rep)
        alone = [backwards.at(v) for v in reversed(versions)][::-1]
        walked = list(CommittedTransactions(rep))
        for a, w in zip(alone, walked, strict=True):
            assert (a.read, a.table, a.provenance) == (w.read, w.table, w.provenance), a.version
            assert a.written.file_counts == w.written.file_counts
            assert a.written.added.equals(w.written.added) and a.written.removed.equals(
                w.written.removed
            )
        assert list(backwards) == alone  # a walk after keeps the ones made before
        assert all(x is y for x, y in zip(backwards, alone, strict=True))


def test_forgeable_provenance_decodes_only_where_a_key_can_be() -> None:
    """The commits flagged are those whose decoded commitInfo holds a caller-given key, as the
    definition over every transaction has them; a key spelled with escapes counts."""
    seen = 0
    for rep in _replays():
        txns = reconstruct_transactions(rep, profile=profile_by_name("delta-rs"))
        keys = {"isolationLevel", "isBlindAppend", "userName", "userId", "job", "notebook"}
        expected = tuple(t.version for t in txns if not keys.isdisjoint(t.provenance.commit_info))[
            :50
        ]
        found = forgeable_provenance(txns)
        assert tuple(a.versions for a in found) == ((expected,) if expected else ())
        assert all(a.code == FORGEABLE_PROVENANCE.code for a in found)
        seen += len(expected)
    assert seen  # the corpus has such commits


def test_a_key_spelled_with_escapes_is_found(tmp_path: Path) -> None:
    """A commitInfo whose only caller-given key is written with ``\\u`` escapes."""
    b = LogBuilder(tmp_path / "t", columns={"id": "long"})
    b.create()
    b.write(add=[b.file()])
    last = sorted((tmp_path / "t" / "_delta_log").glob("*.json"))[-1]
    lines = last.read_text().splitlines()
    info = '{"commitInfo":{"timestamp":1,"operation":"WRITE","user\\u004eame":"x"}}'
    last.write_text("\n".join([info, *(n for n in lines if '"commitInfo"' not in n)]) + "\n")
    rep = load(open_store(str(tmp_path / "t")), mode="history").replay
    txns = reconstruct_transactions(rep, profile=profile_by_name("delta-rs"))
    assert txns[-1].provenance.commit_info.get("userName") == "x"
    (found,) = forgeable_provenance(txns)
    assert txns[-1].version in found.versions
