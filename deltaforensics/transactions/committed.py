"""A replayed history's transactions: their facts as columns for every commit
(:mod:`.facts`), and a full :class:`Transaction` made only for the commits someone asks about.

Questions about the whole history (race candidates, anomalies, writers seen) read the columns;
the checker, the report and the what-if evaluation ask for the transactions of the few commits
that raced or are shown. Anything that walks every transaction still can (iteration makes them
all, in version order, each once), so every consumer sees the same transactions as before
(issue #23: ~1% of the commits of a long history race)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any, overload

from deltaforensics.model.collector import collector_paused
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions.builder import committed_transaction
from deltaforensics.transactions.commit_history import CommitHistory
from deltaforensics.transactions.commits import CommitRow, commit_rows
from deltaforensics.transactions.decode import json_or_none
from deltaforensics.transactions.facts import CommitFacts, commit_facts
from deltaforensics.transactions.record import Transaction


def reconstruct_transactions(
    rep: Replay, *, profile: Profile | None = None
) -> CommittedTransactions:
    """The transactions of every commit of the replay (commits with a commit file)."""
    return CommittedTransactions(rep, profile=profile)


class CommittedTransactions(Sequence[Transaction]):
    """One transaction per commit of a replay (commits with a commit file), in version order,
    each made when first asked for and kept."""

    def __init__(self, rep: Replay, *, profile: Profile | None = None) -> None:
        self._history = CommitHistory(rep, profile)
        self._facts: CommitFacts | None = None
        # ascending (the commit table's order): a row is found by bisection, not through a
        # dict of every version (~60 MB at 1,000,000 commits)
        self._versions: list[int] = rep.core_commits.get_column("version").to_list()
        self._made: dict[int, Transaction] = {}
        self._all = False

    @property
    def facts(self) -> CommitFacts:
        if self._facts is None:
            self._facts = commit_facts(self._history)
        return self._facts

    @property
    def versions(self) -> list[int]:
        """The committed versions, ascending."""
        return self._versions

    def has(self, version: int) -> bool:
        return self._row_of(version) is not None

    def _row_of(self, version: int) -> int | None:
        at = bisect_left(self._versions, version)
        return at if at < len(self._versions) and self._versions[at] == version else None

    def at(self, version: int) -> Transaction:
        """The transaction of the commit at ``version`` (``KeyError`` when there is none)."""
        found = self._made.get(version)
        if found is None:
            found = self._made[version] = committed_transaction(
                self._history, self._commit(version)
            )
        return found

    def _commit(self, version: int) -> CommitRow:
        at = self._row_of(version)
        if at is None:
            raise KeyError(version)
        return CommitRow._make(self._history.rep.core_commits.select(CommitRow._fields).row(at))

    def __len__(self) -> int:
        return len(self._versions)

    @overload
    def __getitem__(self, index: int) -> Transaction: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Transaction]: ...
    def __getitem__(self, index: int | slice) -> Transaction | Sequence[Transaction]:
        if isinstance(index, slice):
            return [self.at(v) for v in self._versions[index]]
        return self.at(self._versions[index])

    def __iter__(self) -> Iterator[Transaction]:
        # a generator: a walk that is set up but never taken (an unused generator expression
        # over the transactions) makes none of them
        if not self._all:
            self._make_all()
        for v in self._versions:
            yield self._made[v]

    def commit_infos(self) -> Iterator[dict[str, Any]]:
        """Every commit's decoded ``commitInfo``, in version order, as its transaction's
        ``commit_info`` has it, without making the transactions (``--redact`` learns the
        identities in them)."""
        for text in self._history.rep.core_commits.get_column("commit_info"):
            yield json_or_none(text) or {}

    def _make_all(self) -> None:
        """Every transaction, from whole columns in one pass (as a walk over all of them
        wants), keeping any made before so that each commit has one transaction."""
        with collector_paused():
            for commit in commit_rows(self._history.rep.core_commits):
                if commit.version not in self._made:
                    self._made[commit.version] = committed_transaction(self._history, commit)
        self._all = True
