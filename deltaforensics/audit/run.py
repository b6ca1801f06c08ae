"""The scheduled audit: every configured table read, analysed and written; none stops another.

Output directory::

    OUT/summary.json                                       one entry per table (audit-summary-v1)
    OUT/reports/<table>.json                               the explain report (report-v2)
    OUT/datasets/<dataset>/table=<table>/part-0.parquet    flat rows, see docs/audit.md
    OUT/dashboard.html                                     the fleet at a glance, over the datasets

With a state directory (:mod:`deltaforensics.audit.state`) a table is read from where the last
run stopped, and its history outlives the log's retention.

Every output file is written under a temporary name of its own and renamed into place
(:mod:`deltaforensics.audit.files`), so runs writing into one output directory at once never
leave a half-written file: each report and dataset part is one run's whole file (the last
run to finish it wins).
"""

from __future__ import annotations

import json
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any, cast

from deltaforensics.analysis import load
from deltaforensics.audit.config import AuditConfig, TableSpec
from deltaforensics.audit.core import AuditSettings, TableOutcome, audit_frames
from deltaforensics.audit.dashboard.page import DASHBOARD, write_dashboard
from deltaforensics.audit.datasets import DATASETS
from deltaforensics.audit.failure_sources import SourcesRead, read_sources, write_cursor
from deltaforensics.audit.files import write_atomically
from deltaforensics.audit.incremental import ReadPlan, TableState, commit_frames, plan_read
from deltaforensics.audit.state import StateWrite, read_state_marked, write_parquet, write_state
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError, UsageError
from deltaforensics.log.commit_reader import read_commits
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.options import redact as redact_secrets
from deltaforensics.log.options import secret_values
from deltaforensics.log.storage import LogStore
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.report.redact import redact_json
from deltaforensics.version import VERSION

SUMMARY_FORMAT_VERSION = 1
Progress = Callable[[int, int, str], None]  # (tables done, tables in all, what happens now)


@dataclass(frozen=True, slots=True)
class TableRead:
    """What one table's read produced, before analysis."""

    listing: LogListing
    plan: ReadPlan
    new: ActionFrames | None
    prior: TableState | None
    diagnostics: tuple[Diagnostic, ...]
    files_read: int
    state_seen: str | None = None  # the mark of the kept state read (state.read_state_marked)


def read_table(spec: TableSpec, store: LogStore, state_dir: Path | None) -> TableRead:
    """List, plan against the kept state, and read only what the plan needs (polars engine)."""
    listing = list_log(store)
    prior, seen = (
        read_state_marked(state_dir, spec.name, store.uri)
        if state_dir is not None
        else (None, None)
    )
    plan = plan_read(listing, prior)
    if plan.mode == "full":
        # with the files' statistics whatever the log's size: the kept state holds them, and
        # a later run analyses that state with no log to read them back from
        loaded = load(store, mode="history", listing=listing, engine=PolarsEngine(store))
        segment = loaded.segment
        parts = len(segment.checkpoint.names) if segment.checkpoint else 0
        return TableRead(
            listing,
            plan,
            loaded.replay.frames,
            prior,
            loaded.diagnostics,
            len(segment.commits) + parts,
            seen,
        )
    if plan.mode == "incremental" and plan.segment is not None and prior is not None:
        names = [name for _, name in plan.segment.commits]
        blobs = store.read_many(names)
        triples = [(v, name, blobs[name]) for v, name in plan.segment.commits]
        frames = commit_frames(plan.segment, read_commits(triples), triples, prior)
        return TableRead(listing, plan, frames, prior, (), len(triples), seen)
    return TableRead(listing, plan, None, prior, (), 0, seen)


def run_audit(
    config: AuditConfig,
    *,
    state_dir: Path | None,
    fail_on: tuple[str, ...],
    settings: AuditSettings | None = None,
    progress: Progress | None = None,
    engine: str = "polars",
    outcomes: Mapping[str, TableOutcome | Exception] | None = None,
    jobs: int = 4,
    schemas: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Audit every table and write the outputs; returns the summary (also in summary.json).

    ``outcomes`` lets another engine hand over tables it has already analysed (the Spark
    engine does); the rest are read here, ``jobs`` tables at a time, and analysed in order.
    ``schemas``: what :func:`~deltaforensics.audit.catalog_tables.resolve_catalog_tables`
    found, for the summary.
    """
    settings = replace(settings or AuditSettings(), fail_on=fail_on)
    started = _now()
    out = config.output
    _refuse_table_locations(config, state_dir)
    _mkdir(out)
    # before any table is listed: every winner a failure names has committed by then
    sources = read_sources(config.failures, state_dir) if config.failures else None
    if sources is not None:
        settings = replace(settings, failures=sources.failures)
    given = dict(outcomes or {})
    entries = []
    total = len(config.tables)
    to_read = [spec for spec in config.tables if spec.name not in given]
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="audit-read") as pool:
        reads = _read_ahead(pool, to_read, state_dir, window=2 * max(1, jobs))
        for index, spec in enumerate(config.tables):
            if progress is not None:
                progress(index, total, spec.name)
            source = given[spec.name] if spec.name in given else next(reads)
            entries.append(_audit_one(spec, out, state_dir, settings, source))
    if progress is not None:
        progress(total, total, "done")
    summary = _summary(config, entries, started, state_dir, fail_on, engine)
    if schemas:
        summary["schemas"] = [dict(s) for s in schemas]
    if sources is not None:
        _with_sources(summary, sources)
    if settings.redact is not None:  # failure messages can name people's paths
        summary = cast("dict[str, Any]", redact_json(summary, settings.redact))
    _write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    try:
        write_dashboard(out, summary)
    except OSError as exc:
        raise UsageError(f"cannot write {out / DASHBOARD}: {exc.strerror or exc}") from None
    if sources is not None and state_dir is not None:
        write_cursor(state_dir, sources)
    return summary


def _with_sources(summary: dict[str, Any], sources: SourcesRead) -> None:
    """The ``[[failures]]`` sources in the summary; one that could not be read fails the run
    (exit 3) as a table would, the tables still audited."""
    summary["failures"] = sources.summary
    summary["totals"]["failures_new"] = len(sources.failures)
    if sources.exit_code:
        summary["exit_code"] = max(summary["exit_code"], sources.exit_code)


def _read_ahead(
    pool: ThreadPoolExecutor, specs: list[TableSpec], state_dir: Path | None, *, window: int
) -> Iterator[Future[tuple[TableSpec, TableRead]]]:
    """Reads of ``specs`` in order, at most ``window`` in flight: storage latency overlaps with
    the analysis of earlier tables, and memory stays bounded."""
    queue: deque[Future[tuple[TableSpec, TableRead]]] = deque()
    pending = iter(specs)
    for spec in islice(pending, window):
        queue.append(pool.submit(_read, spec, state_dir))
    while queue:
        done = queue.popleft()
        following = next(pending, None)
        if following is not None:
            queue.append(pool.submit(_read, following, state_dir))
        yield done


def _read(spec: TableSpec, state_dir: Path | None) -> tuple[TableSpec, TableRead]:
    if spec.opener is not None:  # a Unity Catalog table (audit.catalog_tables)
        store = spec.opener()
    else:
        store = FsspecLogStore.from_uri(spec.uri, spec.storage_options)
    spec = replace(spec, uri=store.uri)
    return spec, read_table(spec, store, state_dir)


def _audit_one(
    spec: TableSpec,
    out: Path,
    state_dir: Path | None,
    settings: AuditSettings,
    source: TableOutcome | Exception | Future[tuple[TableSpec, TableRead]],
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": spec.name, "uri": spec.uri}
    secrets = sorted(secret_values(spec.storage_options))
    try:
        if isinstance(source, Exception):
            raise source
        outcome = (
            source if isinstance(source, TableOutcome) else analyse_read(*source.result(), settings)
        )
        kept = _write_outcome(out, state_dir, outcome)
    except DeltaForensicsError as exc:
        return {**entry, **_failure(exc, 2 if isinstance(exc, UsageError) else 3, secrets)}
    except Exception as exc:
        failure = _failure(exc, 4, secrets)
        failure["error"] = f"internal error: {type(exc).__name__}: {failure['error']}"
        failure["traceback"] = redact_secrets("".join(traceback.format_exception(exc)), secrets)
        return {**entry, **failure}
    report = outcome.report
    return {
        **entry,
        "uri": report.table.uri,
        "status": "ok",
        "exit_code": 1 if outcome.fail_on_hits else 0,
        "error": None,
        "report": f"reports/{spec.name}.json",
        "read": dict(outcome.read),
        "first_version": report.table.first_version,
        "latest_version": report.table.latest_version,
        "counts": {
            "commits": report.table.num_commits,
            "races": len(report.races),
            "predicted_conflicts": sum(r.outcome != "commits" for r in report.races),
            "conflicts": len(report.conflicts),
            "anomalies": len(report.anomalies),
            "recommendations": len(report.recommendations),
            "warnings": sum(str(d.severity) != "info" for d in report.diagnostics),
        },
        "fail_on_hits": list(outcome.fail_on_hits),
        **({"state": kept.to_dict()} if kept is not None else {}),
    }


def _failure(exc: BaseException, code: int, secrets: list[str]) -> dict[str, Any]:
    message = " ".join([str(exc), *getattr(exc, "__notes__", [])])
    return {"status": "failed", "exit_code": code, "error": redact_secrets(message, secrets)}


def analyse_read(spec: TableSpec, read: TableRead, settings: AuditSettings) -> TableOutcome:
    """One table's analysis from what :func:`read_table` read (both engines call it)."""
    return audit_frames(
        spec,
        read.listing,
        read.plan,
        read.new,
        read.prior,
        settings,
        read_diagnostics=read.diagnostics,
        commit_files_read=read.files_read,
        state_seen=read.state_seen,
    )


def _write_outcome(out: Path, state_dir: Path | None, outcome: TableOutcome) -> StateWrite | None:
    """Write the report and datasets, then publish the state (None: no state directory)."""
    name = outcome.name
    _write_text(
        out / "reports" / f"{name}.json", json.dumps(outcome.report.to_dict(), indent=2) + "\n"
    )
    for dataset in DATASETS:
        path = out / "datasets" / dataset / f"table={name}" / "part-0.parquet"
        try:
            write_parquet(outcome.datasets[dataset], path)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if state_dir is None:
        return None
    if outcome.read.get("mode") == "unchanged":
        return StateWrite(
            written=False, version=outcome.state.end_version, reason="no new commits to keep"
        )
    return write_state(state_dir, name, outcome.state, outcome.commits)


def _summary(
    config: AuditConfig,
    entries: list[dict[str, Any]],
    started: str,
    state_dir: Path | None,
    fail_on: tuple[str, ...],
    engine: str,
) -> dict[str, Any]:
    ok = [e for e in entries if e["status"] == "ok"]
    failed = [e for e in entries if e["status"] != "ok"]
    exit_code = max((e["exit_code"] for e in failed), default=0) or (
        1 if any(e["fail_on_hits"] for e in ok) else 0
    )

    def total(key: str) -> int:
        return sum(e["counts"][key] for e in ok)

    return {
        "format_version": SUMMARY_FORMAT_VERSION,
        "generator": {"name": "deltaforensics", "version": VERSION},
        "config": config.source,
        "engine": engine,
        "state": str(state_dir) if state_dir is not None else None,
        "fail_on": list(fail_on),
        "started_at": started,
        "finished_at": _now(),
        "tables": entries,
        "totals": {
            "tables": len(entries),
            "ok": len(ok),
            "failed": len(failed),
            "commits_read": sum(e["read"]["commit_files_read"] for e in ok),
            "races": total("races"),
            "predicted_conflicts": total("predicted_conflicts"),
            "conflicts": total("conflicts"),
            "anomalies": total("anomalies"),
            "recommendations": total("recommendations"),
        },
        "exit_code": exit_code,
    }


def _refuse_table_locations(config: AuditConfig, state_dir: Path | None) -> None:
    """The tool never writes under a table's location: refuse outputs placed there."""
    for spec in config.tables:
        if "://" in spec.uri and not spec.uri.startswith("file://"):
            continue
        table = Path(spec.uri.removeprefix("file://")).resolve()
        for label, path in (("output", config.output), ("state", state_dir)):
            if path is not None and path.resolve().is_relative_to(table):
                raise UsageError(
                    f"the {label} directory {path} is inside table {spec.name!r} ({table}); "
                    "deltaforensics never writes under a table's location"
                )


def _now() -> str:
    return datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="seconds")


def _mkdir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {path}: {exc.strerror or exc}") from None


def _write_text(path: Path, text: str) -> None:
    _mkdir(path.parent)
    try:
        write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
