"""The ``explain`` document (``report-v2``): what the analysis found, as typed values.

:meth:`ExplainDocument.from_analysis` is the only place the explain report is assembled; the
renderers (rich, Markdown, HTML, the audit datasets) and the JSON writer take what it builds.
Commit details are built only for the commits a finding names, so a history of 100,000 commits
costs no more than the handful of races it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypedDict

from deltaforensics.analysis import ConflictAnalysis, TableIsolation
from deltaforensics.conflicts.checker import Fragility, Verdict
from deltaforensics.conflicts.checker import Race as FoundRace
from deltaforensics.conflicts.race_visibility import RaceVisibility
from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.log.commit_times import VersionWindow
from deltaforensics.model.anomaly_codes import COMMIT_GAP
from deltaforensics.model.clustering import clustering_columns
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.model.gaps import Range
from deltaforensics.model.words import plural
from deltaforensics.report.document.conflict import Conflict, Partition
from deltaforensics.report.document.entry import FORMAT_VERSION, Entry
from deltaforensics.transactions import Transaction
from deltaforensics.transactions.reads import reads_every_file
from deltaforensics.version import VERSION
from deltaforensics.whatif.recommendations.candidates import Recommendation
from deltaforensics.whatif.transaction_edits import touched_partitions

MAX_LISTED_PARTITIONS = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class Generator(Entry):
    name: str = "deltaforensics"
    version: str = VERSION


@dataclass(frozen=True, slots=True, kw_only=True)
class Table(Entry):
    """The table as of its latest analysed version."""

    uri: str
    first_version: int
    latest_version: int
    partition_columns: tuple[str, ...]
    clustering_columns: tuple[str, ...]
    isolation_level: TableIsolation
    features: tuple[str, ...]
    engines_seen: tuple[str, ...]
    num_commits: int
    num_files: int

    @classmethod
    def from_analysis(cls, analysis: ConflictAnalysis) -> Table:
        rep = analysis.loaded.replay
        # the latest snapshot's facts without its file list: only the files' count is shown,
        # and ordering a large checkpoint's files would cost more than the rest of the report
        protocol, metadata = rep.protocol_at(rep.end_version), rep.metadata_at(rep.end_version)
        return cls(
            uri=rep.uri,
            first_version=rep.first_version,
            latest_version=rep.end_version,
            partition_columns=tuple(metadata.partition_columns),
            clustering_columns=clustering_columns(rep.domains_at(rep.end_version), metadata),
            isolation_level=analysis.table_isolation(),
            features=tuple(protocol.features),
            engines_seen=tuple(
                sorted({p.engine for p in analysis.transactions.facts.profiles_seen()})
            ),
            num_commits=len(analysis.transactions),
            num_files=rep.num_files_at(rep.end_version),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Race(Entry):
    """A commit that read an older snapshot, and what the replayed checker decides of it."""

    version: int
    read_version: int | None
    winners: tuple[int, ...]
    profile: str
    outcome: str
    code: str | None
    reason: str
    operation: str
    isolation_level: TableIsolation
    read_predicate: str | None
    read_reason: str
    confidence: str
    missing_winners: tuple[Range, ...]  # [first, last] inclusive: a gap of 10,000 is one entry
    fragile_under: tuple[Fragility, ...]

    @classmethod
    def from_race(cls, race: FoundRace) -> Race:
        v = race.verdict
        t = v.loser
        return cls(
            version=race.version,
            read_version=t.read.version,
            winners=tuple(v.winners),
            profile=v.profile.name,
            outcome=v.outcome,
            code=v.code,
            reason=v.reason if v.raised else _quiet_reason(v),
            **_reads(t),
            missing_winners=tuple(race.missing_winners),
            fragile_under=tuple(race.fragile_under),
        )


def _quiet_reason(verdict: Verdict) -> str:
    t = verdict.loser
    if t.read.reads.blind:
        return f"{t.read.reads.reason}, so no winner's files can conflict with it"
    return f"no rule fires against v{', v'.join(map(str, verdict.winners)) or '-'}: {t.read.reads.reason}"


def _predicate_sql(t: Transaction) -> str | None:
    return (
        t.read.reads.partition_predicate.to_sql()
        if t.read.reads.partition_predicate is not None
        else None
    )


class _Reads(TypedDict):
    operation: str
    isolation_level: TableIsolation
    read_predicate: str | None
    read_reason: str
    confidence: str


def _reads(t: Transaction) -> _Reads:
    """What a race and an attempt both say of their transaction: its operation, isolation level
    and what it read, with how sure that is."""
    return {
        "operation": t.provenance.operation,
        "isolation_level": TableIsolation(
            value=t.read.isolation.value, source=t.read.isolation_source
        ),
        "read_predicate": _predicate_sql(t),
        "read_reason": t.read.reads.reason,
        "confidence": t.read.reads.confidence,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt(Entry):
    """An ``--attempt`` statement checked against the commits after its read version."""

    statement: str
    read_version: int | None
    profile: str
    outcome: str
    winner_version: int | None
    code: str | None
    reason: str
    operation: str
    winners: tuple[int, ...]
    isolation_level: TableIsolation
    read_predicate: str | None
    read_whole_table: bool
    read_reason: str
    confidence: str
    files_added: int
    files_removed: int
    engine_error: str | None = None  # see Conflict.engine_error
    omitted_when_null: ClassVar[tuple[str, ...]] = ("engine_error",)

    @classmethod
    def from_verdict(cls, verdict: Verdict) -> Attempt:
        a = verdict.loser
        return cls(
            statement=a.provenance.statement or a.provenance.operation,
            read_version=a.read.version,
            profile=verdict.profile.name,
            outcome=verdict.outcome,
            winner_version=verdict.winner_version,
            code=verdict.code,
            reason=verdict.reason,
            winners=tuple(verdict.winners),
            **_reads(a),
            read_whole_table=reads_every_file(a.read.reads, a.provenance.profile),
            files_added=a.written.added.height,
            files_removed=a.written.removed.height,
            engine_error=verdict.raised.engine_error if verdict.raised else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(Entry):
    """The details of one commit that a reader needs to recognise it."""

    version: int | None
    timestamp: int | None
    operation: str
    writer: str
    user_name: str | None
    job_name: str | None  # the names the writer's one name was chosen from (issue #31)
    notebook: str | None  # the notebook's path, else its id
    engine: str
    read_version: int | None
    isolation_level: str
    predicate: str | None
    num_added_files: int
    num_removed_files: int
    partitions: tuple[Partition, ...]
    more_partitions: int

    @classmethod
    def from_transaction(cls, t: Transaction) -> Commit:
        touched = touched_partitions(t)
        info = t.provenance.commit_info
        user, job, nb = info.get("userName"), info.get("job"), info.get("notebook")
        job_name = job.get("jobName") or job.get("jobId") if isinstance(job, dict) else job
        notebook = nb.get("notebookPath") or nb.get("notebookId") if isinstance(nb, dict) else None
        return cls(
            version=t.version,
            timestamp=t.provenance.timestamp,
            operation=t.provenance.operation,
            writer=t.provenance.writer,
            user_name=user if isinstance(user, str) else None,
            job_name=str(job_name) if job_name else None,
            notebook=str(notebook) if notebook else None,
            engine=t.provenance.profile.engine,
            read_version=t.read.version,
            isolation_level=t.read.isolation.value,
            predicate=_predicate_sql(t),
            num_added_files=t.written.added.height,
            num_removed_files=t.written.removed.height,
            partitions=tuple(touched[:MAX_LISTED_PARTITIONS]),
            more_partitions=max(0, len(touched) - MAX_LISTED_PARTITIONS),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ExplainDocument(Entry):
    """The ``explain`` report (``report-v2``)."""

    format_version: int = FORMAT_VERSION
    generator: Generator = Generator()
    table: Table
    races: tuple[Race, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    recommendations: tuple[Recommendation, ...] = ()
    recommendations_more: int = 0
    recommendations_note: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    commits: tuple[Commit, ...] = ()
    time_window: VersionWindow | None = None  # --since/--until
    race_visibility: RaceVisibility | None = None  # versions whose races cannot be seen
    omitted_when_null = ("time_window", "race_visibility")

    @classmethod
    def from_analysis(cls, analysis: ConflictAnalysis) -> ExplainDocument:
        races = tuple(Race.from_race(r) for r in analysis.races)
        verdicts = analysis.attempt_verdicts
        failed = (Conflict.from_attempt(v) for v in verdicts)
        conflicts = tuple(Conflict.from_error(c) for c in analysis.error_conflicts) + tuple(
            c for c in failed if c is not None
        )
        attempts = tuple(Attempt.from_verdict(v) for v in verdicts)
        wanted = involved_versions(races, conflicts, attempts)
        return cls(
            table=Table.from_analysis(analysis),
            races=races,
            conflicts=conflicts,
            attempts=attempts,
            anomalies=tuple(analysis.anomalies),
            recommendations=tuple(analysis.recommendations),
            recommendations_more=analysis.recommendations_more,
            recommendations_note=analysis.recommendations_note,
            diagnostics=tuple(analysis.diagnostics),
            race_visibility=analysis.race_visibility,
            commits=tuple(
                Commit.from_transaction(analysis.transactions.at(v))
                for v in sorted(wanted)
                if analysis.transactions.has(v)
            ),
        )


ALL_READ_THE_VERSION_BEFORE = "every commit read the version just before it"


def no_race_reason(doc: ExplainDocument) -> str:
    """Why the report shows no race, only as strong as what was read: when commits are
    missing from the log (AN008), not every commit's read version was seen."""
    unseen = f"; {doc.race_visibility.describe()}" if doc.race_visibility is not None else ""
    if not any(a.code == COMMIT_GAP.code for a in doc.anomalies):
        if doc.race_visibility is not None:
            return f"no commit with a known read version read an older one{unseen}"
        return ALL_READ_THE_VERSION_BEFORE
    t = doc.table
    seen = (
        f"no commit was analysed (the log is read from the checkpoint at version {t.first_version})"
        if t.num_commits == 0
        else f"each of the {plural(t.num_commits, 'commit')} analysed read the version just before it"
    )
    return f"{seen}; commits missing from the log ({COMMIT_GAP.code}) cannot be judged{unseen}"


def involved_versions(
    races: Sequence[Race], conflicts: Sequence[Conflict], attempts: Sequence[Attempt]
) -> set[int]:
    """Every commit a finding names: racing commits, their winners, conflict winners."""
    found: set[int] = set()
    for r in races:
        found.add(r.version)
        found.update(r.winners)
    for c in conflicts:
        found.update(v for v in (c.winner_version, *c.candidates) if v is not None)
        if c.loser.version is not None:
            found.add(c.loser.version)
    for a in attempts:
        found.update(a.winners)
    return found


def explain_document(analysis: ConflictAnalysis) -> ExplainDocument:
    """The explain report (what ``--format json`` writes and ``--redact`` rewrites)."""
    return ExplainDocument.from_analysis(analysis)
