"""The one place I/O meets logic: a store and an engine in, replayed history out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from deltaforensics.engines.base import Engine
from deltaforensics.loading import (
    LoadedLog,
    holds_file_stats,
    load,
    load_commits,
    open_store,
)
from deltaforensics.log.selection import FILE_STATS_BUDGET, WINDOW_LOOKBACK, ResolvedRange
from deltaforensics.log.storage import LogStore
from deltaforensics.model.collector import collector_paused
from deltaforensics.model.diagnostic_codes import (
    COMMIT_RETRIES_EXHAUSTED,
    MODEL_DISAGREEMENT,
    NO_EXCEPTION_IN_ERROR_TEXT,
    READ_VERSION_NOT_BEFORE_VERSION,
    READ_VERSION_UNKNOWN,
    UNRELEASED_BEHAVIOUR,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.gaps import count, describe, runs
from deltaforensics.replay import Replay

if TYPE_CHECKING:  # imported where used: loading a log needs neither
    from deltaforensics.attempts.specs import AttemptSpec
    from deltaforensics.conflicts.checker import Verdict
    from deltaforensics.evidence.conflict_evidence import ConflictEvidence
    from deltaforensics.evidence.winners import ErrorConflict
    from deltaforensics.transactions import CommitFacts, CommittedTransactions

# loading the log is deltaforensics.loading's; its names stay importable from here
__all__ = [
    "FILE_STATS_BUDGET",
    "WINDOW_LOOKBACK",
    "ConflictAnalysis",
    "ErrorText",
    "LoadedLog",
    "analyze",
    "analyze_loaded",
    "holds_file_stats",
    "load",
    "load_commits",
    "observed_attempts",
    "open_store",
    "read_error_texts",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorText:
    """An ``--error`` text as read once: its name and the Delta exceptions found in it."""

    source: str
    found: tuple[ConflictEvidence, ...]

    @classmethod
    def read(cls, source: str, text: str) -> ErrorText:
        from deltaforensics.evidence.error_text import extract_conflicts  # noqa: PLC0415

        return cls(source=source, found=tuple(extract_conflicts(text, source=source)))


def read_error_texts(texts: Iterable[tuple[str, str] | ErrorText]) -> tuple[ErrorText, ...]:
    """``(name, text)`` pairs parsed (texts parsed already kept as they are)."""
    return tuple(t if isinstance(t, ErrorText) else ErrorText.read(*t) for t in texts)


def error_times(texts: Sequence[ErrorText]) -> tuple[int, ...]:
    """When the texts' exceptions were logged, for the window around them; none when a text
    names its winner's version (the analysis finds it by number) or no time was logged."""
    found = [c for t in texts for c in t.found]
    if not found or any(c.winner_version is not None for c in found):
        return ()
    return tuple(c.observed_at for c in found if c.observed_at is not None)


RECORDED = "commitInfo.isolationLevel"  # a transaction's isolation_source when its commit says


@dataclass(frozen=True, slots=True, kw_only=True)
class TableIsolation:
    """An isolation level and where it was found (a table property, commitInfo, a default)."""

    value: str
    source: str


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
    recommendations: tuple[dict[str, Any], ...] = ()
    recommendations_more: int = 0  # left out of the report (``--all`` shows them)
    recommendations_note: str | None = None  # nothing to prevent, none helps, or sampled

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
    error_texts: Iterable[tuple[str, str] | ErrorText] = (),
    attempts: Sequence[AttemptSpec] = (),
    recommendations: bool = True,
    all_recommendations: bool = False,
    window_from: int | None = None,
    selected: ResolvedRange | None = None,
) -> ConflictAnalysis:
    """Replay the retained history, rebuild per-commit transactions, re-check every race.

    ``all_recommendations``: every recommendation, not only the best few. ``selected``: the
    range a selection resolved to (:func:`deltaforensics.loading.resolve_range`), in place of
    ``from_version``/``to_version``/``window_from``: a time window's history is read from a
    checkpoint shortly before its first version (:func:`load`), not from the start of the
    retained log, on the listing the window was placed on."""
    chosen = selected or ResolvedRange(from_version=from_version, to_version=to_version)
    loaded = load(
        store,
        version=chosen.to_version,
        mode="history",
        engine=engine,
        window_from=chosen.window_from if selected is not None else window_from,
        listing=chosen.listing,
        prefetched=chosen.prefetched,
    )
    return analyze_loaded(
        loaded,
        from_version=chosen.from_version,
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
    error_texts: Iterable[tuple[str, str] | ErrorText] = (),
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

    texts = read_error_texts(error_texts)
    profile = profile_by_name(profile_name) if profile_name else None
    txns = reconstruct_transactions(loaded.replay, profile=profile)
    lo = from_version if from_version is not None else -1
    facts_in_range = txns.facts.frame.filter(pl.col("version") >= lo)
    races = [r for r in find_races(txns, loaded.replay, profile=profile) if r.version >= lo]
    diags = [*loaded.diagnostics, *_history_diagnostics(txns.facts, facts_in_range, races)]
    anomalies = [
        a
        for a in find_anomalies(txns, loaded.replay, loaded.listing.commit_versions)
        if not a.versions or max(a.versions) >= lo
    ]
    evidence_found, error_conflicts = _error_evidence(texts, txns, loaded.replay, diags)
    result = ConflictAnalysis(
        loaded=loaded,
        transactions=txns,
        races=tuple(races),
        diagnostics=tuple(diags),
        anomalies=tuple(anomalies),
        error_conflicts=tuple(error_conflicts),
        error_evidence=tuple(evidence_found),
        attempt_verdicts=tuple(attempt_verdicts(attempts, txns, loaded.replay)),
    )
    if not recommendations:
        return result
    from deltaforensics.whatif.advising import MAX_SHOWN, advise  # noqa: PLC0415

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
    texts: Sequence[ErrorText],
    txns: Sequence[Any],
    rep: Replay,
    diags: list[Diagnostic],
) -> tuple[list[Any], list[ErrorConflict]]:
    """Every exception found in the texts, and the conflicts among them explained."""
    from deltaforensics.evidence.winners import explain_error, match_winner  # noqa: PLC0415

    found: list[Any] = []
    conflicts: list[ErrorConflict] = []
    for text in texts:
        source = text.source
        if not text.found:
            diags.append(
                warning(
                    NO_EXCEPTION_IN_ERROR_TEXT, f"no Delta concurrency exception found in {source}"
                )
            )
        for ev in text.found:
            found.append(ev)
            if ev.kind != "conflict":
                retried = f"{ev.exception} (commit retries exhausted, not a conflict)"
                diags.append(info(COMMIT_RETRIES_EXHAUSTED, f"{source} line {ev.line}: {retried}"))
                continue
            match = match_winner(ev, txns, rep.first_version)
            conflicts.append(explain_error(ev, match, txns))
    return found, conflicts
