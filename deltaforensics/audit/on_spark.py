"""The audit on Spark: one job reads every table's planned files; each table is analysed on an
executor by the same code the polars engine runs in this process.

The driver lists each table, reads its kept state and plans the read (:func:`plan_read`): the
history segment for a full read, the new commits for an incremental one, nothing when the table
is unchanged; a few tables at a time, since listing waits on storage. One Spark job
(:func:`~deltaforensics.engines.spark_fleet.run_fleet`) fetches the files of all tables and
groups them by table, the tables spread over a few tasks per executor core, so each added core
analyses its share of the fleet; on the executor the table's files become a
:class:`~deltaforensics.engines.spark_fleet.FetchedStore`, and :func:`read_table` and
:func:`audit_frames` run on it exactly as :func:`~deltaforensics.audit.run.run_audit` runs them
on the table's own store (frames built by the polars engine's ``assemble``, prior state loaded
from the state directory, one conflict model). The outcomes come back to the driver, where
:func:`run_audit` writes them with the same writers, so both engines write identical reports,
datasets and state.

Executors read the state directory, so on a cluster it must be a path they share (a Unity
Catalog Volume, DBFS, abfss through a mount). Storage options never leave the driver. A table
Spark cannot reach (``memory://``, a scheme without a Hadoop filesystem), or whose analysis
needed a file the job did not fetch (a damaged checkpoint whose fallback reads older files), is
audited on the driver by the polars engine, with a warning.

With ``--redact`` the executors analyse without redacting and the driver applies the run's one
redactor to each outcome in config order, as the polars engine does, so a person keeps one
pseudonym across every table (a table audited on the driver is redacted after those).
"""

from __future__ import annotations

import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deltaforensics.audit.config import AuditConfig, TableSpec
from deltaforensics.audit.core import AuditSettings, TableOutcome, redacted_commits
from deltaforensics.audit.datasets import build_datasets
from deltaforensics.audit.failure_sources import read_sources
from deltaforensics.audit.incremental import plan_read
from deltaforensics.audit.run import analyse_read, read_table
from deltaforensics.audit.state import read_state
from deltaforensics.engines.spark_engine import spark_log_uri
from deltaforensics.engines.spark_fleet import FleetTable, run_fleet
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import list_log
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore
from deltaforensics.report.gates import fail_on_hits
from deltaforensics.report.redact import redact_document

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _TableWork:
    """What an executor needs to audit one table (no storage options: they stay here)."""

    spec: TableSpec
    state_dir: Path | None


def spark_outcomes(
    config: AuditConfig,
    *,
    spark: Any,
    state_dir: Path | None,
    fail_on: tuple[str, ...] = (),
    settings: AuditSettings | None = None,
    jobs: int = 4,
) -> dict[str, TableOutcome | Exception]:
    """Audit the config's tables in one Spark job; pass the result to ``run_audit(outcomes=)``.

    Every table gets an outcome (or the exception its audit raised). A table Spark could not
    reach, or whose analysis needed a file the job did not fetch, is audited here, on the
    driver, through its own store. ``jobs`` tables are listed and planned at once.
    """
    settings = replace(settings or AuditSettings(), fail_on=fail_on)
    if config.failures:  # read on the driver, before any table (run_audit reads them again)
        settings = replace(settings, failures=read_sources(config.failures, state_dir).failures)
    # The run's one redactor stays here: on the executors each table would get its own copy,
    # and a person would get a different pseudonym in every table.
    on_executors = replace(settings, redact=None)
    outcomes: dict[str, TableOutcome | Exception] = {}
    fleet: list[FleetTable] = []
    on_driver: list[TableSpec] = []
    # The driver's share of every table runs before the job starts and no executor can take
    # it, so listing one table after another would cap what more executors gain; a listing is
    # mostly waiting on storage, which threads overlap.
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="audit-plan") as pool:
        plans = list(pool.map(functools.partial(_try_plan, state_dir=state_dir), config.tables))
    for spec, planned in zip(config.tables, plans, strict=True):
        if isinstance(planned, Exception):  # run_audit reports it, as it would its own
            outcomes[spec.name] = planned
            continue
        if planned is None:
            LOGGER.warning("%s: Spark cannot read %s; audited on the driver", spec.name, spec.uri)
            on_driver.append(spec)
        else:
            fleet.append(planned)
    results = run_fleet(spark, fleet, functools.partial(_audit_table, on_executors))
    by_name = {spec.name: spec for spec in config.tables}
    for name, result in results.items():
        if result.missed:
            LOGGER.warning(
                "%s: the Spark job did not fetch %s; audited on the driver",
                name,
                ", ".join(result.missed[:3]),
            )
            on_driver.append(by_name[name])
        elif result.error is not None:
            outcomes[name] = (
                result.error
                if isinstance(result.error, Exception)
                else RuntimeError(str(result.error))
            )
        else:
            outcomes[name] = result.value
    for spec in on_driver:
        try:
            store = FsspecLogStore.from_uri(spec.uri, spec.storage_options)
            work = _TableWork(spec=replace(spec, uri=store.uri), state_dir=state_dir)
            outcomes[spec.name] = _audit_table(on_executors, store, work)
        except Exception as exc:  # run_audit reports it for this table, as it would its own
            outcomes[spec.name] = exc
    return {  # redacted in config order, as run_audit redacts them
        spec.name: _redacted(outcomes[spec.name], settings) for spec in config.tables
    }


def _redacted(
    outcome: TableOutcome | Exception, settings: AuditSettings
) -> TableOutcome | Exception:
    """What :func:`audit_frames` returns with ``settings.redact``, from its outcome without."""
    redactor = settings.redact
    if redactor is None or not isinstance(outcome, TableOutcome):
        return outcome
    # commits first, as audit_frames does: the redactor learns names from commitInfo
    commits = redacted_commits(outcome.commits, redactor)
    report = redact_document(outcome.report, redactor)
    return replace(
        outcome,
        report=report,
        commits=commits,
        datasets=build_datasets(outcome.name, report, commits),
        fail_on_hits=tuple(fail_on_hits(report, settings.fail_on)),
    )


def _try_plan(spec: TableSpec, *, state_dir: Path | None) -> FleetTable | Exception | None:
    try:
        return _plan(spec, state_dir)
    except Exception as exc:  # the table's outcome: run_audit reports it for this table
        return exc


def _plan(spec: TableSpec, state_dir: Path | None) -> FleetTable | None:
    """List the table, plan against its state, and name the files the plan reads."""
    store = FsspecLogStore.from_uri(spec.uri, spec.storage_options)
    log_uri = spark_log_uri(store)
    if log_uri is None:
        return None
    spec = replace(spec, uri=store.uri)
    listing = list_log(store)
    prior = read_state(state_dir, spec.name, store.uri) if state_dir is not None else None
    plan = plan_read(listing, prior)
    segment: LogSegment | None = plan.segment
    if plan.mode == "full":
        try:
            segment = LogSegment.for_history(listing)  # what load() reads first
        except DeltaForensicsError:
            segment = None  # the executor's load() raises it again, for this table
    return FleetTable.for_segment(
        spec.name,
        listing,
        segment,
        store=store,
        log_uri=log_uri,
        context=_TableWork(spec=replace(spec, storage_options={}), state_dir=state_dir),
    )


def _audit_table(settings: AuditSettings, store: LogStore, work: _TableWork) -> TableOutcome:
    """``run_audit``'s own read and analysis: on an executor over the fetched files, or here."""
    return analyse_read(work.spec, read_table(work.spec, store, work.state_dir), settings)
