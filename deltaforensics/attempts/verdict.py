"""The checker's verdict on an attempt: against every commit after its read version."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deltaforensics.conflicts.checker import COMMITS, Verdict, check, empty_commit_skipped
from deltaforensics.conflicts.rule import RuleContext
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.transactions.operations import COMPACTIONS


def writes_nothing(attempt: Transaction) -> bool:
    return (
        attempt.written.added.is_empty()
        and attempt.written.removed.is_empty()
        and not attempt.written.changes_metadata
        and not attempt.written.changes_protocol
        and not attempt.written.app_ids
    )


def not_committed(attempt: Transaction, profile: Profile) -> str | None:
    """Why the engine writes no commit for an attempt that changes nothing, or ``None`` when it
    writes (and checks) the empty commit."""
    if profile.elides_empty_commits:
        return f"{profile.engine} writes no commit"
    if attempt.provenance.operation in profile.idle_commands_commit_nothing:
        return (
            f"{profile.engine} {attempt.provenance.operation} with nothing to do writes no commit"
        )
    if empty_commit_skipped(attempt, profile, attempt.read.isolation):
        return f"{profile.engine} skips recording an empty {attempt.read.isolation.value} commit"
    return None


def check_attempt(
    attempt: Transaction, transactions: Sequence[Transaction], replay: Replay
) -> Verdict:
    """The attempt against every commit after its read version, in version order."""
    rv = attempt.read.version if attempt.read.version is not None else -1
    winners = sorted(
        (t for t in transactions if t.version is not None and t.version > rv),
        key=lambda t: t.version if t.version is not None else -1,
    )
    versions = tuple(t.version for t in winners if t.version is not None)
    seen = set(versions)
    missing = [v for v in range(rv + 1, replay.end_version + 1) if v not in seen]
    notes: list[str] = []
    if missing:
        notes.append(
            f"commits {missing[:10]} after the read version are not in the analysed history"
        )
    profile = attempt.provenance.profile
    if writes_nothing(attempt):
        who = not_committed(attempt, profile)
        if who is not None:
            return Verdict(
                loser=attempt,
                profile=profile,
                winners=versions,
                outcome=COMMITS,
                notes=(
                    f"the statement would change nothing ({who}), so nothing can conflict",
                    *notes,
                ),
            )
    if not winners:
        return Verdict(
            loser=attempt,
            profile=profile,
            winners=(),
            outcome=COMMITS,
            notes=(f"no commit after v{rv}: nothing to conflict with", *notes),
        )
    verdict = check(attempt, winners, profile=profile, history=replay)
    retried = optimize_retry(attempt, verdict, replay)
    if retried is not None:
        return retried
    if verdict.outcome == COMMITS:
        quiet = (
            attempt.blind_reason
            if attempt.read.reads.blind
            else f"no rule fires against v{', v'.join(map(str, versions))}: {attempt.read.reads.reason}"
        )
        notes.insert(0, quiet)
    return replace(verdict, notes=verdict.notes + tuple(notes)) if notes else verdict


def optimize_retry(attempt: Transaction, verdict: Verdict, replay: Replay) -> Verdict | None:
    """The verdict after Spark's OPTIMIZE retry, or ``None`` when there is none.

    A losing OPTIMIZE starts a new transaction on the newest version and commits again when
    every file it compacted is still in the table (with the same deletion vector, where the
    release compares them) and the partition columns did not change
    (``OptimizeExecutor.commitAndRetry``); the statement then succeeds, and its commit records
    the newer read version, so the log shows no race.
    """
    if (
        verdict.outcome == COMMITS
        or not attempt.provenance.profile.optimize_retries_on_conflict
        or attempt.provenance.operation not in COMPACTIONS
        or attempt.read.version is None
        or not verdict.winners
    ):
        return None
    latest = max(verdict.winners)
    compared = attempt.written.removed
    if not attempt.provenance.profile.optimize_reads_compacted_files_only:
        # Delta < 3.3 compares every file its partition predicate matched at the read version
        # (OptimizeExecutor.optimize: candidateFiles from txn.filterFiles(partitionPredicate))
        ctx = RuleContext(
            loser=attempt, winner=attempt, profile=attempt.provenance.profile, history=replay
        )
        read = ctx.read_files_among(replay.live_files(attempt.read.version).get_column("path"))
        compared = attempt.written.removed if read is None else read
    live = replay.live_files_among(latest, compared.get_column("path"))
    key = (
        ["path", "dv_id"]
        if attempt.provenance.profile.optimize_retry_compares_deletion_vectors
        else ["path"]
    )
    wanted = compared.select(key).unique()
    still_there = wanted.join(live.select(key).unique(), on=key, how="anti").is_empty()
    same_layout = (
        replay.metadata_at(latest).partition_columns
        == replay.metadata_at(attempt.read.version).partition_columns
    )
    if not (still_there and same_layout):
        return None
    which = (
        "compacted" if attempt.provenance.profile.optimize_reads_compacted_files_only else "read"
    )
    note = (
        f"{attempt.provenance.operation} first failed with {verdict.outcome} against "
        f"v{verdict.winner_version}, then re-ran its commit on v{latest}: every file it {which} "
        "is still in the table and the partition columns are unchanged (Delta's "
        "OptimizeExecutor.commitAndRetry)"
    )
    return replace(verdict, outcome=COMMITS, raised=None, winner_version=None, notes=(note,))
