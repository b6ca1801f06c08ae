"""The one place I/O meets logic: a store and an engine in, replayed history out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from deltaforensics.engines.base import Engine
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import (
    DeltaForensicsError,
    LogCorruptError,
    VersionNotFoundError,
)
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch
from deltaforensics.log.commit_names import commits_between
from deltaforensics.log.file_facts import fetch_facts
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.segment import LogSegment, diagnose_listing
from deltaforensics.log.storage import LogStore
from deltaforensics.model.collector import collector_paused
from deltaforensics.model.diagnostic_codes import (
    CHECKPOINT_FALLBACK,
    COMMIT_RETRIES_EXHAUSTED,
    EMPTY_COMMIT,
    MODEL_DISAGREEMENT,
    NO_EXCEPTION_IN_ERROR_TEXT,
    RACES_NOT_VISIBLE,
    READ_VERSION_NOT_BEFORE_VERSION,
    READ_VERSION_UNKNOWN,
    UNRELEASED_BEHAVIOUR,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.gaps import Range, count, describe, runs, version_spans
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.replay import Replay, content_diagnostics

if TYPE_CHECKING:  # imported where used: loading a log needs neither
    from deltaforensics.attempts.specs import AttemptSpec
    from deltaforensics.conflicts.checker import Verdict
    from deltaforensics.evidence.winners import ErrorConflict
    from deltaforensics.transactions import CommitFacts, CommittedTransactions
    from deltaforensics.whatif.recommendations.candidates import Recommendation


def open_store(uri: str, storage_options: Mapping[str, str] | None = None) -> LogStore:
    return FsspecLogStore.from_uri(uri, storage_options)


# A time window's analysis starts from a checkpoint at least this many commits before the
# window: a transaction in it that read an older version has winners before that (a W302
# diagnostic names them), which on a busy table means a job that ran through 250 commits.
WINDOW_LOOKBACK = 250


# A history whose segment (commit files and checkpoint) is smaller than this many bytes is
# loaded with its files' statistics; a larger one without them, and they are read back from
# the log for the rows a rule, an attempt or a what-if asks about (log/file_stats.py). The
# statistics are two thirds of a log's bytes: on benchmarks/' synthetic logs (docs/
# performance.md, issue #23, session 10) the 100,000-commit log (416 MB) holds 192 MB of them
# in its frames and `explain` peaks 185-358 MB higher with them, a 10,000-commit window over a
# 72 MB checkpoint ~250 MB higher, while the 10,000-commit log (42 MB) costs the same either
# way. 64 MB keeps that log, every corpus table and the samples holding them (a what-if layout
# estimate reads every add's statistics, so small race-heavy logs keep their speed) and puts
# the window and the 100,000-commit log above it.
FILE_STATS_BUDGET = 64 * 2**20


def holds_file_stats(listing: LogListing, segment: LogSegment) -> bool:
    """Whether ``segment`` is small enough to load with its files' statistics
    (:data:`FILE_STATS_BUDGET`); a size the listing does not know counts as nothing.

    Summed a slice at a time, and no further than the budget: a local listing reads a
    file's size when asked (:mod:`deltaforensics.log.file_facts`), and asking for all of a
    1,000,000-commit log's would cost the ~10 s its listing saved."""
    names = list(segment.checkpoint.names) if segment.checkpoint is not None else []
    names += [name for _, name in segment.commits]
    total = 0
    for start in range(0, len(names), _SIZES_AT_ONCE):
        part = names[start : start + _SIZES_AT_ONCE]
        fetch_facts(listing.sizes, part)
        total += sum(listing.sizes.get(n) or 0 for n in part)
        if total >= FILE_STATS_BUDGET:
            return False
    return True


_SIZES_AT_ONCE = 4096


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedLog:
    listing: LogListing
    segment: LogSegment
    replay: Replay
    diagnostics: tuple[Diagnostic, ...] = field(default=())


def load(
    store: LogStore,
    *,
    version: int | None = None,
    mode: str = "history",
    engine: Engine | None = None,
    listing: LogListing | None = None,
    window_from: int | None = None,
    prefetched: CheckpointPrefetch | None = None,
) -> LoadedLog:
    """Read the segment for ``version``; an unreadable checkpoint falls back to an older base.

    ``mode="history"`` replays the longest retained chain (for races and lifecycles), or with
    ``window_from`` (a time window's first version) only from a checkpoint shortly before it;
    ``mode="snapshot"`` the cheapest one (newest checkpoint at or below ``version``).
    ``prefetched``: a checkpoint already decoding (:mod:`deltaforensics.log.checkpoint_prefetch`),
    taken by the default engine if the segment starts from it.
    """
    listing = listing or list_log(store)
    exclude: frozenset[tuple[str, ...]] = frozenset()
    extra: list[Diagnostic] = []
    while True:
        build = LogSegment.for_history if mode == "history" else LogSegment.for_version
        try:
            if mode == "history" and window_from is not None:
                segment = LogSegment.for_window(
                    listing, window_from, version, lookback=WINDOW_LOOKBACK, exclude=exclude
                )
            else:
                segment = build(listing, version, exclude=exclude)
        except VersionNotFoundError as err:
            if exclude:
                err.add_note(
                    f"unreadable checkpoint(s): {', '.join(n[0] for n in sorted(exclude))}"
                )
            raise
        # the analysis asks little of the checkpoint files no commit touches: their count,
        # and all of them only for a snapshot, a layout estimate or an overwrite's survivors
        reader = engine or PolarsEngine(
            store,
            with_stats=holds_file_stats(listing, segment),
            defer_untouched=True,
            prefetched=prefetched,
        )
        try:
            frames = reader.scan(segment)
        except LogCorruptError as err:
            cp = segment.checkpoint
            if cp is None or not _concerns(err, cp.names):
                raise
            exclude = exclude | {cp.names}
            extra.append(warning(CHECKPOINT_FALLBACK, f"{err}", cp.version))
            continue
        rep = Replay(store.uri, frames)
        return LoadedLog(
            listing=listing,
            segment=segment,
            replay=rep,
            diagnostics=segment.diagnostics + tuple(extra) + tuple(content_diagnostics(rep)),
        )


def load_commits(
    store: LogStore,
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    listing: LogListing | None = None,
    engine: Engine | None = None,
) -> tuple[LogListing, pl.DataFrame, tuple[Diagnostic, ...]]:
    """Commit-level facts for every retained commit in range; needs no checkpoint.

    ``engine`` reads the commits (as a segment without a checkpoint); by default the polars
    engine, without the files' statistics.
    """
    listing = listing or list_log(store)
    latest = listing.latest_version
    lo = 0 if from_version is None else from_version
    hi = latest if to_version is None else to_version
    if to_version is not None and to_version > latest:
        raise VersionNotFoundError(store.uri, to_version, f"the latest version is {latest}")
    wanted = commits_between(listing.commits, lo, hi)
    segment = LogSegment(
        uri=store.uri, end_version=hi, base_version=-1, checkpoint=None, commits=tuple(wanted)
    )
    # the commit table counts and sizes files: their statistics are never read, and the
    # default engine reads the commits in chunks, letting each chunk's bytes go once parsed
    frames = (engine or PolarsEngine(store, with_stats=False)).scan(segment)
    empty = _blank_commits(store, frames, dict(wanted))
    replay = Replay(store.uri, frames)
    found = diagnose_listing(listing, hi, None, frozenset()) + content_diagnostics(replay)
    if empty:
        found.append(
            warning(EMPTY_COMMIT, f"empty commit file(s) at version(s) {empty[:10]}", empty[0])
        )
    return listing, replay.commits, tuple(found)


def _blank_commits(store: LogStore, frames: ActionFrames, names: dict[int, str]) -> list[int]:
    """Versions whose commit file is empty or blank, judged as the default path judges them.

    Only commits that gave no action at all can be blank; their bytes are checked when the
    store can read them (it may not: some logs are reachable only through Spark).
    """
    candidates = _versions_without_actions(frames)
    if not candidates:
        return []
    try:
        blobs = store.read_many([names[v] for v in candidates])
    except DeltaForensicsError:
        return candidates
    return [v for v in candidates if not blobs[names[v]].strip()]


def _versions_without_actions(frames: ActionFrames) -> list[int]:
    """Commits that gave no row in any frame (no line, known or not)."""
    parts = (
        frames.files.filter(pl.col("source") == "commit"),
        frames.commit_infos,
        frames.metadata,
        frames.protocols,
        frames.txns,
        frames.domains,
        frames.cdc,
        frames.unknown,
    )
    seen: set[int] = set()
    for part in parts:
        seen.update(part["version"].unique().to_list())
    return [v for v in frames.commit_versions if v not in seen]


def _concerns(err: LogCorruptError, names: tuple[str, ...]) -> bool:
    """Was the failure in this checkpoint (or one of its sidecars)?"""
    return err.path.startswith("_sidecars/") or any(n in err.path for n in names)


RECORDED = "commitInfo.isolationLevel"  # a transaction's isolation_source when its commit says


@dataclass(frozen=True, slots=True, kw_only=True)
class TableIsolation:
    """An isolation level and where it was found (a table property, commitInfo, a default)."""

    value: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceVisibility:
    """The versions whose races cannot be seen (no read version recorded), as ranges, and why:
    "no races" means "checked, nothing found" only outside them."""

    unknown_versions: tuple[Range, ...]
    reason: str

    @classmethod
    def of(cls, facts: CommitFacts, in_range: pl.DataFrame) -> RaceVisibility | None:
        """``None`` when every commit of ``in_range`` (rows of ``facts``) has a known read
        version."""
        unread = in_range.filter(pl.col("read_version").is_null())
        if unread.is_empty():
            return None
        engines = sorted(
            {facts.profile_of(i).engine for i in unread.get_column("profile").unique()}
        )
        return cls(
            unknown_versions=tuple(runs(unread.get_column("version").to_list())),
            reason=f"no readVersion recorded (written by {', '.join(engines)}): whether these "
            "commits read an older snapshot cannot be checked",
        )

    def describe(self) -> str:
        """``races: unknown for v1–v13, v15``."""
        return f"races: unknown for {version_spans(self.unknown_versions)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConflictAnalysis:
    """Everything ``explain`` reports, before formatting.

    ``error_conflicts`` are the conflicts the ``--error`` texts show, in order;
    ``attempt_verdicts`` what the checker decides of each ``--attempt``."""

    loaded: LoadedLog
    transactions: CommittedTransactions
    races: tuple[Any, ...]
    diagnostics: tuple[Diagnostic, ...]
    anomalies: tuple[Any, ...] = ()
    error_conflicts: tuple[ErrorConflict, ...] = ()
    error_evidence: tuple[Any, ...] = ()
    attempt_verdicts: tuple[Verdict, ...] = ()
    recommendations: tuple[Recommendation, ...] = ()
    recommendations_more: int = 0  # left out of the report (``--all`` shows them)
    recommendations_note: str | None = None  # nothing to prevent, none helps, or sampled
    race_visibility: RaceVisibility | None = None  # None: every commit's read version is known

    def table_isolation(self) -> TableIsolation:
        """The table's isolation level: its property, else what commits record most, else the
        writers' default."""
        rep = self.loaded.replay
        prop = rep.metadata_at(rep.end_version).configuration.get("delta.isolationLevel")
        if prop:
            return TableIsolation(value=prop, source="table property delta.isolationLevel")
        facts = self.transactions.facts
        recorded = Counter(facts.frame.get_column("recorded_isolation").drop_nulls().to_list())
        if recorded:
            value = recorded.most_common(1)[0][0]
            return TableIsolation(value=value, source=f"most frequent {RECORDED}")
        defaults = {p.default_isolation for p in facts.profiles_seen()}
        value = defaults.pop().value if len(defaults) == 1 else "Serializable"
        return TableIsolation(value=value, source="engine default (no property, nothing recorded)")


def analyze(
    store: LogStore,
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    profile_name: str | None = None,
    engine: Engine | None = None,
    error_texts: Sequence[tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    recommendations: bool = True,
    all_recommendations: bool = False,
    window_from: int | None = None,
    listing: LogListing | None = None,
    prefetched: CheckpointPrefetch | None = None,
) -> ConflictAnalysis:
    """Replay the retained history, rebuild per-commit transactions, re-check every race.

    ``all_recommendations``: every recommendation, not only the best few. ``window_from``: the
    first version of a time window; the history is then read from a checkpoint shortly before
    it (:func:`load`), not from the start of the retained log. ``listing``: the log's listing
    when the caller already has one (the time window was placed on it); ``prefetched``: its
    newest checkpoint, decoding since before the listing (:func:`load`)."""
    loaded = load(
        store,
        version=to_version,
        mode="history",
        engine=engine,
        window_from=window_from,
        listing=listing,
        prefetched=prefetched,
    )
    return analyze_loaded(
        loaded,
        from_version=from_version,
        profile_name=profile_name,
        error_texts=error_texts,
        attempts=attempts,
        recommendations=recommendations,
        all_recommendations=all_recommendations,
    )


@collector_paused()
def analyze_loaded(
    loaded: LoadedLog,
    *,
    from_version: int | None = None,
    profile_name: str | None = None,
    error_texts: Sequence[tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    recommendations: bool = True,
    all_recommendations: bool = False,
) -> ConflictAnalysis:
    """The analysis of an already replayed history (from the log, or from an audit's state),
    built with the cycle collector paused (:mod:`deltaforensics.model.collector`)."""
    from deltaforensics.attempts.specs import attempt_verdicts  # noqa: PLC0415
    from deltaforensics.conflicts.checker import find_races  # noqa: PLC0415
    from deltaforensics.evidence.anomalies import find_anomalies  # noqa: PLC0415
    from deltaforensics.profiles import profile_by_name  # noqa: PLC0415
    from deltaforensics.transactions import reconstruct_transactions  # noqa: PLC0415

    profile = profile_by_name(profile_name) if profile_name else None
    txns = reconstruct_transactions(loaded.replay, profile=profile)
    lo = from_version if from_version is not None else -1
    facts_in_range = txns.facts.frame.filter(pl.col("version") >= lo)
    races = [r for r in find_races(txns, loaded.replay, profile=profile) if r.version >= lo]
    diags = [*loaded.diagnostics, *_history_diagnostics(txns.facts, facts_in_range, races)]
    visibility = RaceVisibility.of(txns.facts, facts_in_range)
    if visibility is not None:
        diags.append(_races_not_visible(visibility))
    anomalies = [
        a
        for a in find_anomalies(txns, loaded.replay, loaded.listing.commit_versions)
        if not a.versions or max(a.versions) >= lo
    ]
    evidence_found, error_conflicts = _error_evidence(error_texts, txns, loaded.replay, diags)
    result = ConflictAnalysis(
        loaded=loaded,
        transactions=txns,
        races=tuple(races),
        diagnostics=tuple(diags),
        anomalies=tuple(anomalies),
        error_conflicts=tuple(error_conflicts),
        error_evidence=tuple(evidence_found),
        attempt_verdicts=tuple(attempt_verdicts(attempts, txns, loaded.replay)),
        race_visibility=visibility,
    )
    if not recommendations:
        return result
    from deltaforensics.whatif.recommendations.budget import MAX_SHOWN, advise  # noqa: PLC0415

    evidence = observed_attempts(result)
    advice = advise(result, attempts=evidence, limit=None if all_recommendations else MAX_SHOWN)
    return replace(
        result,
        recommendations=advice.entries,
        recommendations_more=advice.more,
        recommendations_note=advice.note,
    )


def _history_diagnostics(
    facts: CommitFacts, in_range: pl.DataFrame, races: Sequence[Any]
) -> Iterator[Diagnostic]:
    """W303 for a commit claiming to have read itself or later; W401 where the replayed checker
    disagrees with the log; W302 for winners the log no longer holds; W402 per writer release
    newer than every release the model was measured against (``in_range``: the rows of
    ``facts`` reported on)."""
    yield from _unreleased_writers(facts, in_range)
    rv = pl.col("read_version")
    for version, read_version in (
        in_range.filter(rv.is_not_null() & (rv >= pl.col("version")))
        .select("version", "read_version")
        .iter_rows()
    ):
        message = f"readVersion {read_version} is not before the commit's version"
        yield warning(READ_VERSION_NOT_BEFORE_VERSION, message, version)
    for r in races:
        v = r.verdict
        if v.outcome != "commits":
            message = (
                f"model predicts {v.outcome} ({v.code}) against v{v.winner_version} under "
                f"{v.profile.name}, but v{r.version} committed: {v.reason}"
            )
            yield warning(MODEL_DISAGREEMENT, message, r.version)
        if r.missing_winners:
            gone = r.missing_winners
            message = (
                f"{count(gone)} winner(s) {describe(gone)} of v{r.version} are not in the "
                "retained log"
            )
            yield info(READ_VERSION_UNKNOWN, message, r.version)


def _races_not_visible(visibility: RaceVisibility) -> Diagnostic:
    """W304: the versions without a read version, as ranges, at the first of them."""
    unknown = visibility.unknown_versions
    message = (
        f"{count(unknown)} commit(s) at versions {describe(unknown)} record no readVersion: "
        "whether they raced cannot be checked"
    )
    return warning(RACES_NOT_VISIBLE, message, unknown[0][0])


def _unreleased_writers(facts: CommitFacts, in_range: pl.DataFrame) -> Iterator[Diagnostic]:
    unreleased = [i for i, p in enumerate(facts.profiles) if p.unreleased_behaviour]
    by_profile: dict[str, list[int]] = {}
    rows = in_range.filter(pl.col("profile").is_in(unreleased)).select("version", "profile")
    for version, index in rows.iter_rows():
        by_profile.setdefault(facts.profile_of(index).name, []).append(version)
    for name, versions in sorted(by_profile.items()):
        written = runs(versions)
        message = (
            f"{count(written)} commit(s) at versions {describe(written)} were written by {name}: "
            "newer than every release measured, so their checker is modelled on its main branch"
        )
        yield info(UNRELEASED_BEHAVIOUR, message, versions[0])


def observed_attempts(analysis: ConflictAnalysis) -> list[tuple[Any, tuple[Any, ...], str]]:
    """Attempts as (loser, winners, outcome) for the what-if evaluation."""
    txns = analysis.transactions
    out = []
    for verdict in analysis.attempt_verdicts:
        winners = tuple(txns.at(v) for v in verdict.winners if txns.has(v))
        out.append((verdict.loser, winners, verdict.outcome))
    return out


def _error_evidence(
    texts: Sequence[tuple[str, str]],
    txns: Sequence[Any],
    rep: Replay,
    diags: list[Diagnostic],
) -> tuple[list[Any], list[ErrorConflict]]:
    """Every exception found in the texts, and the conflicts among them explained."""
    from deltaforensics.evidence.error_text import extract_conflicts  # noqa: PLC0415
    from deltaforensics.evidence.winners import explain_error, match_winner  # noqa: PLC0415

    found: list[Any] = []
    conflicts: list[ErrorConflict] = []
    for source, text in texts:
        items = extract_conflicts(text, source=source)
        if not items:
            diags.append(
                warning(
                    NO_EXCEPTION_IN_ERROR_TEXT, f"no Delta concurrency exception found in {source}"
                )
            )
        for ev in items:
            found.append(ev)
            if ev.kind != "conflict":
                retried = f"{ev.exception} (commit retries exhausted, not a conflict)"
                diags.append(info(COMMIT_RETRIES_EXHAUSTED, f"{source} line {ev.line}: {retried}"))
                continue
            match = match_winner(ev, txns, rep.first_version)
            conflicts.append(explain_error(ev, match, txns))
    return found, conflicts
