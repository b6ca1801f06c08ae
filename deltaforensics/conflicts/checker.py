"""Check a loser against its winners, in version order, rules in the profile's order.

Delta throws the first failing check, so :attr:`Verdict.raised` is that finding; every other
finding against the same winner is kept in :attr:`Verdict.findings` for investigators.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from deltaforensics.conflicts.registry import rule_for
from deltaforensics.conflicts.rule import (
    FileHistory,
    Finding,
    Rule,
    RuleContext,
    has_row_level_concurrency,
)
from deltaforensics.model.gaps import Range, missing_ranges
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.ir import TRUE
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions import CommittedTransactions, Transaction

COMMITS = "commits"

# The single changes :func:`fragility` tries, by the names a race's ``fragile_under`` carries in
# the JSON report. The report's prose turns each into words (it must know every one of them:
# a test checks), so the names stay machine keys and never reach a human format.
TO_SERIALIZABLE = "isolation=Serializable"
TO_WRITE_SERIALIZABLE = "isolation=WriteSerializable"
WINNER_NOT_BLIND = "winner-not-blind-append"
WIDER_PREDICATE = "wider-predicate"
NO_ROW_LEVEL_CONCURRENCY = "no-row-level-concurrency"
PERTURBATIONS = (
    TO_SERIALIZABLE,
    TO_WRITE_SERIALIZABLE,
    WINNER_NOT_BLIND,
    WIDER_PREDICATE,
    NO_ROW_LEVEL_CONCURRENCY,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    loser: Transaction
    profile: Profile
    winners: tuple[int, ...]
    outcome: str
    winner_version: int | None = None
    raised: Finding | None = None
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def code(self) -> str | None:
        return self.raised.code if self.raised else None

    @property
    def reason(self) -> str:
        if self.raised:
            return self.raised.reason
        return "; ".join(self.notes) or "no rule fires against any winner"


def check(
    loser: Transaction,
    winners: Sequence[Transaction],
    *,
    profile: Profile | None = None,
    history: FileHistory | None = None,
    overrides: dict[str, Any] | None = None,
) -> Verdict:
    prof = profile or loser.provenance.profile
    order = [rule_for(c) for c in prof.rule_order]
    versions = tuple(w.version for w in winners if w.version is not None)
    skipped = unchecked(loser, prof, overrides or {})
    if skipped and winners:
        return Verdict(
            loser=loser, profile=prof, winners=versions, outcome=COMMITS, notes=(skipped,)
        )
    for winner in winners:
        ctx = RuleContext(
            loser=loser,
            winner=winner,
            profile=prof,
            history=history,
            overrides=dict(overrides or {}),
        )
        found = findings(order, ctx)
        if found:
            return Verdict(
                loser=loser,
                profile=prof,
                winners=versions,
                outcome=found[0].exception,
                winner_version=winner.version,
                raised=found[0],
                findings=tuple(found),
            )
    return Verdict(loser=loser, profile=prof, winners=versions, outcome=COMMITS)


def findings(rules: Sequence[Rule], ctx: RuleContext) -> list[Finding]:
    """What each of ``rules`` finds against ``ctx``'s winner, in order, each hit stamped with
    its rule's code and exception (the rules do not spell them)."""
    return [rule.finding(hit) for rule in rules if (hit := rule.check(ctx)) is not None]


def unchecked(loser: Transaction, profile: Profile, overrides: dict[str, Any]) -> str | None:
    """Why the engine would commit ``loser`` without running any conflict rule, or ``None``."""
    if not profile.checks_create_race and loser.read.version is not None and loser.read.version < 0:
        return ("delta-rs does not check a table-creation race: it reloads the table at the "
                "winner's version and writes its own create as the next version")  # fmt: skip
    level = overrides.get("isolation", loser.read.isolation)
    if empty_commit_skipped(loser, profile, level):
        return (f"an empty {loser.provenance.operation} under {level.value} is not recorded at all "
                "(skipRecordingEmptyCommits), so nothing is checked; only WriteSerializable "
                "records, and checks, empty data-changing commits")  # fmt: skip
    return None


def empty_commit_skipped(loser: Transaction, profile: Profile, level: IsolationLevel) -> bool:
    """Whether the engine writes no commit for ``loser`` at all because it holds no action.

    Delta-Spark's ``commitImpl`` skips a commit when the command committed through
    ``commitIfNeeded`` (the profile's ``empty_commit_skipping_operations``), its prepared actions
    are empty (no file, metadata, protocol, ``txn`` or domain action; ``commitInfo`` is made
    after the check) and the level it uses is Serializable or SnapshotIsolation
    (``skipRecordingEmptyCommitAllowed``). Any other command's empty commit, TRUNCATE, a
    streaming batch holding only its ``txn``, RESTORE and CLONE among them, is written and
    checked.
    """
    return (
        loser.provenance.operation in profile.empty_commit_skipping_operations
        and level is not IsolationLevel.WRITE_SERIALIZABLE
        and loser.written.added.is_empty()
        and loser.written.removed.is_empty()
        and not (loser.written.changes_metadata or loser.written.changes_protocol)
        and not (loser.written.app_ids or loser.written.domains)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Fragility:
    change: str
    outcome: str
    winner_version: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Race:
    """A committed transaction that was rebased over commits it did not read."""

    verdict: Verdict
    missing_winners: tuple[Range, ...] = ()  # [first, last] runs: a gap is one entry, not 10,000
    fragile_under: tuple[Fragility, ...] = field(default=())

    @property
    def version(self) -> int:
        assert self.verdict.loser.version is not None
        return self.verdict.loser.version


def find_races(
    transactions: CommittedTransactions, history: Replay, *, profile: Profile | None = None
) -> list[Race]:
    """Every commit rebased over commits it did not read, checked against them.

    The candidates come from the history's columns (:meth:`CommitFacts.raced`); transactions
    are made only for them and their winners."""
    # winners from the versions present, never by counting from readVersion to the version: a
    # commit at 2^63-1 that read version 0 would count for ever (issue #19)
    present = transactions.versions
    races: list[Race] = []
    for v, rv in transactions.facts.raced().select("version", "read_version").iter_rows():
        t = transactions.at(v)
        between = present[bisect_right(present, rv) : bisect_left(present, v)]
        winners = [transactions.at(w) for w in between]
        missing = tuple(missing_ranges(between, rv + 1, v - 1))
        prof = profile or t.provenance.profile
        verdict = check(t, winners, profile=prof, history=history)
        races.append(
            Race(
                verdict=verdict,
                missing_winners=missing,
                fragile_under=tuple(fragility(t, winners, prof, history, verdict)),
            )
        )
    return races


def fragility(
    loser: Transaction,
    winners: Sequence[Transaction],
    profile: Profile,
    history: FileHistory | None,
    base: Verdict,
) -> list[Fragility]:
    """Single changes that would have flipped the outcome."""
    if base.outcome != COMMITS:
        return []
    changes: list[tuple[str, dict[str, Any]]] = []
    if loser.read.isolation is IsolationLevel.WRITE_SERIALIZABLE:
        changes.append((TO_SERIALIZABLE, {"isolation": IsolationLevel.SERIALIZABLE}))
    elif loser.read.isolation is IsolationLevel.SERIALIZABLE:
        changes.append((TO_WRITE_SERIALIZABLE, {"isolation": IsolationLevel.WRITE_SERIALIZABLE}))
    if any(w.provenance.is_blind_append for w in winners):
        changes.append((WINNER_NOT_BLIND, {"winner_blind": False}))
    if (
        not loser.read.reads.blind
        and not loser.read.reads.whole_table
        and loser.read.reads.partition_predicate is not None
        and loser.read.reads.partition_predicate != TRUE
    ):
        changes.append((WIDER_PREDICATE, {"read_predicate": TRUE}))
    if has_row_level_concurrency(profile, loser):
        changes.append((NO_ROW_LEVEL_CONCURRENCY, {"row_level_concurrency": False}))
    out = []
    for name, overrides in changes:
        v = check(loser, winners, profile=profile, history=history, overrides=overrides)
        if v.outcome != COMMITS:
            out.append(Fragility(change=name, outcome=v.outcome, winner_version=v.winner_version))
    return out
