"""One table's audit, without I/O: frames in, report, datasets and the state to keep out.

Both engines call :func:`audit_frames` — the polars engine in this process, the Spark engine
inside a grouped function on an executor — so the conflict model stays one implementation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from deltaforensics.analysis import FailureInput, LoadedLog, analyze_loaded
from deltaforensics.audit.config import TableSpec
from deltaforensics.audit.datasets import build_datasets
from deltaforensics.audit.incremental import ReadPlan, TableState, merge_frames
from deltaforensics.failures.records import FailedStatement
from deltaforensics.log.listing import LogListing
from deltaforensics.log.segment import LogSegment, diagnose_listing
from deltaforensics.model.diagnostic_codes import HISTORY_KEPT_BEYOND_RETENTION
from deltaforensics.model.diagnostics import Diagnostic, info
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.replay import Replay, content_diagnostics
from deltaforensics.report.document import ExplainDocument, explain_document
from deltaforensics.report.gates import fail_on_hits
from deltaforensics.report.redact import Redactor, redact_document, redact_json


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditSettings:
    fail_on: tuple[str, ...] = ()
    recommendations: bool = True
    redact: Redactor | None = None  # pseudonymises the commits, reports and summary before use
    # failed statements read from the [[failures]] sources (audit.failure_sources): each table
    # keeps its own (analysis.FailureInput)
    failures: tuple[FailedStatement, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TableOutcome:
    name: str
    report: ExplainDocument
    datasets: Mapping[str, pl.DataFrame]
    state: TableState
    commits: pl.DataFrame
    read: Mapping[str, Any] = field(default_factory=dict)
    fail_on_hits: tuple[str, ...] = ()


def audit_frames(
    spec: TableSpec,
    listing: LogListing,
    plan: ReadPlan,
    new: ActionFrames | None,
    prior: TableState | None,
    settings: AuditSettings,
    *,
    read_diagnostics: tuple[Diagnostic, ...] = (),
    commit_files_read: int = 0,
    state_seen: str | None = None,
) -> TableOutcome:
    """Join ``new`` to ``prior`` as ``plan`` says, analyse the whole kept history, report.

    ``state_seen`` is the mark of the kept state the read saw; the state to keep carries it, so
    that publishing it can tell whether a concurrent run published meanwhile."""
    frames = _kept_frames(plan, new, prior)
    replay = Replay(spec.uri, frames)
    first = replay.first_version
    diagnostics = read_diagnostics + _kept_history_diagnostics(listing, plan, replay)
    loaded = LoadedLog(
        listing=listing,
        segment=LogSegment(
            uri=spec.uri,
            end_version=frames.end_version,
            base_version=frames.base_version,
            checkpoint=None,
            commits=tuple((v, "") for v in frames.commit_versions),
        ),
        replay=replay,
        diagnostics=plan.diagnostics + diagnostics,
    )
    analysis = analyze_loaded(
        loaded,
        profile_name=spec.profile,
        recommendations=settings.recommendations,
        failures=FailureInput(read=settings.failures) if settings.failures else None,
    )
    report = explain_document(analysis)
    commits = replay.commits
    if settings.redact is not None:  # commits first: the redactor learns names from commitInfo
        commits = redacted_commits(commits, settings.redact)
        report = redact_document(report, settings.redact)
    latest = max(frames.commit_versions) if frames.commit_versions else frames.end_version
    last_name = listing.commits.get(latest)
    state = TableState(
        uri=spec.uri,
        frames=frames,
        last_commit=(latest, last_name, listing.sizes.get(last_name)) if last_name else None,
        runs=(prior.runs + 1) if prior is not None and plan.mode != "full" else 1,
        first_seen_version=(
            prior.first_seen_version if prior is not None and plan.mode != "full" else first
        ),
        based_on=state_seen,
    )
    return TableOutcome(
        name=spec.name,
        report=report,
        datasets=build_datasets(spec.name, report, commits),
        state=state,
        commits=commits,
        read={
            "mode": plan.mode,
            "reason": plan.reason,
            "commit_files_read": commit_files_read,
            "from_version": plan.segment.commits[0][0]
            if plan.segment and plan.segment.commits
            else None,
            "to_version": frames.end_version,
        },
        fail_on_hits=tuple(fail_on_hits(report, settings.fail_on)),
    )


def _kept_frames(
    plan: ReadPlan, new: ActionFrames | None, prior: TableState | None
) -> ActionFrames:
    """The history to analyse: what a full read read, or the prior state joined to it."""
    if plan.mode == "full":
        if new is None:
            raise ValueError("a full read needs the frames it read")
        return new
    if prior is None:
        raise ValueError(f"a {plan.mode} read needs the prior state")
    return merge_frames(prior.frames, new) if new is not None else prior.frames


def _kept_history_diagnostics(
    listing: LogListing, plan: ReadPlan, replay: Replay
) -> tuple[Diagnostic, ...]:
    """What a full read would say of this listing and content (after an incremental read), and
    W702 when the kept history starts before the oldest commit still in the log."""
    frames = replay.frames
    oldest_listed = min(listing.commits, default=None)
    kept_earlier = (
        oldest_listed is not None
        and bool(frames.commit_versions)
        and frames.commit_versions[0] < oldest_listed
    )
    diagnostics: tuple[Diagnostic, ...] = ()
    if plan.mode != "full":  # what a full read would say of this listing, and of the content
        diagnostics += tuple(
            d
            for d in diagnose_listing(listing, frames.end_version, None, frozenset())
            if not (kept_earlier and d.code == "W107")
        )
        diagnostics += tuple(content_diagnostics(replay))
    if kept_earlier and oldest_listed is not None:
        diagnostics += (
            info(
                HISTORY_KEPT_BEYOND_RETENTION,
                f"versions {frames.commit_versions[0]}..{oldest_listed - 1} are no longer in the "
                "log; they come from the audit state",
                replay.first_version,
            ),
        )
    return diagnostics


def redacted_commits(commits: pl.DataFrame, redactor: Redactor) -> pl.DataFrame:
    """The commit frame with its people pseudonymised (before the report: the redactor learns
    names from commitInfo)."""
    rows = redact_json({"commits": commits.to_dicts()}, redactor)
    assert isinstance(rows, dict)
    return pl.DataFrame(rows["commits"], schema=commits.schema, orient="row")
