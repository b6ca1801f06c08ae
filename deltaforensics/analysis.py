"""The one place I/O meets logic: a store and an engine in, replayed history out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from deltaforensics.conflicts.race_visibility import RaceVisibility
from deltaforensics.engines.base import Engine
from deltaforensics.evidence.error_texts import ErrorText, error_times, read_error_texts
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
from deltaforensics.model.diagnostic_codes import FAILURE_SOURCE_NOT_FULLY_READ
from deltaforensics.model.diagnostics import Diagnostic, warning
from deltaforensics.model.version_range import VersionRange
from deltaforensics.replay import unreadable_times

if TYPE_CHECKING:  # imported where used: loading a log needs neither
    from deltaforensics.attempts.specs import AttemptSpec
    from deltaforensics.conflicts.checker import Verdict
    from deltaforensics.evidence.failed_loser import InferredLoser
    from deltaforensics.evidence.winners import ErrorConflict
    from deltaforensics.transactions import CommittedTransactions
    from deltaforensics.whatif.recommendations.candidates import Recommendation

# loading the log is deltaforensics.loading's; its names stay importable from here
__all__ = [
    "FILE_STATS_BUDGET",
    "WINDOW_LOOKBACK",
    "ConflictAnalysis",
    "ErrorText",
    "LoadedLog",
    "analyze",
    "analyze_loaded",
    "error_times",
    "holds_file_stats",
    "load",
    "load_commits",
    "observed_attempts",
    "open_store",
    "read_error_texts",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureInput:
    """Failures Spark recorded outside the table (issue #33), to keep this table's of.

    ``sources`` are read here (files, folders, URLs, with ``storage_options``); ``read`` are
    failed statements already read (the audit reads its ``[[failures]]`` sources once, from
    their cursors, for every table). ``since_ms``/``until_ms``: the window (``--since`` /
    ``--until``); by default the analysed commits' time span
    (:func:`deltaforensics.failures.explained.window_of`)."""

    sources: tuple[str, ...] = ()
    storage_options: Mapping[str, str] | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    read: tuple[Any, ...] = ()


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
    # per error conflict: its failed statement inferred from the job the text names, or None
    error_losers: tuple[InferredLoser | None, ...] = ()
    error_evidence: tuple[Any, ...] = ()
    attempt_verdicts: tuple[Verdict, ...] = ()
    recommendations: tuple[Recommendation, ...] = ()
    recommendations_more: int = 0  # left out of the report (``--all`` shows them)
    recommendations_note: str | None = None  # nothing to prevent, none helps, or sampled
    race_visibility: RaceVisibility | None = None  # None: every commit's read version is known
    harvest: Any = None  # the failures.Harvest of --failures-from / [[failures]], when given

    def observed_errors(self) -> list[Any]:
        """The error conflicts measured as what-if evidence (:func:`observed_errors`)."""
        return observed_errors(self)

    def unmeasured_errors(self) -> int:
        """The error conflicts seen but not measured (:func:`unmeasured_errors`)."""
        return unmeasured_errors(self)

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
    failures: FailureInput | None = None,
) -> ConflictAnalysis:
    """Replay the retained history, rebuild per-commit transactions, re-check every race.

    ``all_recommendations``: every recommendation, not only the best few. ``selected``: the
    range a selection resolved to (:func:`deltaforensics.loading.resolve_range`), in place of
    ``from_version``/``to_version``/``window_from``: a time window's history is read from a
    checkpoint shortly before its first version (:func:`load`), not from the start of the
    retained log, on the listing the window was placed on."""
    chosen = selected or ResolvedRange(from_version=from_version, to_version=to_version)
    VersionRange(chosen.from_version, chosen.to_version)  # a reversed range is refused
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
        failures=failures,
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
    failures: FailureInput | None = None,
) -> ConflictAnalysis:
    """The analysis of an already replayed history (from the log, or from an audit's state),
    built with the cycle collector paused (:mod:`deltaforensics.model.collector`)."""
    from deltaforensics.attempts.specs import attempt_verdicts  # noqa: PLC0415
    from deltaforensics.conflicts.checker import find_races  # noqa: PLC0415
    from deltaforensics.conflicts.history_diagnostics import history_diagnostics  # noqa: PLC0415
    from deltaforensics.evidence.anomalies import find_anomalies  # noqa: PLC0415
    from deltaforensics.evidence.error_texts import error_evidence  # noqa: PLC0415
    from deltaforensics.profiles import profile_by_name  # noqa: PLC0415
    from deltaforensics.transactions import reconstruct_transactions  # noqa: PLC0415

    profile = profile_by_name(profile_name) if profile_name else None
    txns = reconstruct_transactions(loaded.replay, profile=profile)
    verdicts = tuple(attempt_verdicts(attempts, txns, loaded.replay))
    texts = read_error_texts(error_texts)
    lo = from_version if from_version is not None else -1
    facts_in_range = txns.facts.frame.filter(pl.col("version") >= lo)
    races = [r for r in find_races(txns, loaded.replay, profile=profile) if r.version >= lo]
    diags = [
        *loaded.diagnostics,
        *unreadable_times(loaded.replay.core_commits),
        *history_diagnostics(txns.facts, facts_in_range, races),
    ]
    visibility = RaceVisibility.of(txns.facts, facts_in_range)
    if visibility is not None:
        diags.append(visibility.diagnostic())
    anomalies = [
        a
        for a in find_anomalies(txns, loaded.replay, loaded.listing.commit_versions)
        if not a.versions or max(a.versions) >= lo
    ]
    evidence_found, error_conflicts, error_losers = error_evidence(
        texts, txns, loaded.replay, diags
    )
    harvest = None
    if failures is not None:
        pasted = dict(zip(map(id, error_conflicts), error_losers, strict=True))
        error_conflicts, harvest = _harvested(failures, loaded, txns, lo, error_conflicts, diags)
        # a harvested conflict's failed statement is not inferred (yet): counted as unmeasured
        error_losers = [pasted.get(id(c)) for c in error_conflicts]
    result = ConflictAnalysis(
        loaded=loaded,
        transactions=txns,
        races=tuple(races),
        diagnostics=tuple(diags),
        anomalies=tuple(anomalies),
        error_conflicts=tuple(error_conflicts),
        error_losers=tuple(error_losers),
        error_evidence=tuple(evidence_found),
        attempt_verdicts=verdicts,
        harvest=harvest,
        race_visibility=visibility,
    )
    if not recommendations:
        return result
    from deltaforensics.whatif.recommendations.budget import MAX_SHOWN, advise  # noqa: PLC0415

    evidence = observed_attempts(result)
    advice = advise(
        result,
        attempts=evidence,
        limit=None if all_recommendations else MAX_SHOWN,
    )
    return replace(
        result,
        recommendations=advice.entries,
        recommendations_more=advice.more,
        recommendations_note=advice.note,
    )


def observed_attempts(analysis: ConflictAnalysis) -> list[tuple[Any, tuple[Any, ...], str]]:
    """Attempts as (loser, winners, outcome) for the what-if evaluation."""
    txns = analysis.transactions
    out = []
    for verdict in analysis.attempt_verdicts:
        winners = tuple(txns.at(v) for v in verdict.winners if txns.has(v))
        out.append((verdict.loser, winners, verdict.outcome))
    return out


def _harvested(
    failures: FailureInput,
    loaded: LoadedLog,
    txns: Sequence[Any],
    lo: int,
    pasted: Sequence[ErrorConflict],
    diags: list[Diagnostic],
) -> tuple[list[ErrorConflict], Any]:
    """This table's conflicts among the failures Spark recorded (read here from
    ``failures.sources`` when given), merged with the pasted ones
    (:mod:`deltaforensics.failures.explained`)."""
    from deltaforensics.failures.explained import (  # noqa: PLC0415
        analysed_table,
        table_failures,
        window_of,
    )
    from deltaforensics.sources import read_failures  # noqa: PLC0415
    from deltaforensics.transactions.decode import json_or_none  # noqa: PLC0415

    rep = loaded.replay
    rows = rep.core_commits.filter(pl.col("version") >= lo).select("version", "commit_info")
    table = analysed_table(
        rep.uri,
        rep.uri,
        ((v, json_or_none(text) or {}) for v, text in rows.iter_rows()),
    )
    since, until = window_of(table, failures.since_ms, failures.until_ms)
    read = list(failures.read)
    for source in failures.sources:
        reading = read_failures(
            source, storage_options=failures.storage_options, since_ms=since, until_ms=until
        )
        read += reading.failures
        for d in reading.diagnostics:
            diags.append(warning(FAILURE_SOURCE_NOT_FULLY_READ, f"{d.source}: {d.message}"))
    found = table_failures(
        read,
        table,
        txns,
        rep.first_version,
        pasted=pasted,
        since_ms=failures.since_ms,
        until_ms=failures.until_ms,
    )
    return list(found.conflicts), found.harvest


def observed_errors(analysis: ConflictAnalysis) -> list[Any]:
    """The error conflicts whose failed statement is known, as what-if evidence
    (:class:`~deltaforensics.whatif.comparison.Observed`): inferred from the job the text names
    (:mod:`deltaforensics.evidence.failed_loser`), unless an ``--attempt`` already stands for
    the same failure (it lost to the same winner with the same exception). The others are
    :func:`unmeasured_errors`."""
    from deltaforensics.whatif.comparison import Observed  # noqa: PLC0415

    out: list[Any] = []
    for conflict, inferred in _error_pairs(analysis):
        if inferred is None:
            continue
        out.append(
            Observed(
                loser=inferred.loser,
                winners=inferred.winners,
                outcome=conflict.exception,
                source="error",
                label=inferred.label,
                inferred=inferred.how,
            )
        )
    return out


def unmeasured_errors(analysis: ConflictAnalysis) -> int:
    """Conflicts seen in error texts that no evaluated pair stands for: counted as seen, with
    an unknown outcome under any change (the failed statement is not known)."""
    return sum(1 for _, inferred in _error_pairs(analysis) if inferred is None)


def _error_pairs(analysis: ConflictAnalysis) -> Iterator[tuple[ErrorConflict, Any]]:
    """Each error conflict not already measured by an attempt, with its inferred loser."""
    attempted = {
        (v.outcome, v.winner_version) for v in analysis.attempt_verdicts if v.outcome != "commits"
    }
    losers = analysis.error_losers or (None,) * len(analysis.error_conflicts)
    for conflict, inferred in zip(analysis.error_conflicts, losers, strict=True):
        if (conflict.exception, conflict.winner_version) not in attempted:
            yield conflict, inferred
