"""``audit``: every table of a config, one report each, a summary and datasets."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deltaforensics.audit.config import AuditConfig, load_config
from deltaforensics.audit.core import AuditSettings
from deltaforensics.audit.run import run_audit
from deltaforensics.commands.reading import spark_settings
from deltaforensics.commands.requests import AuditRequest
from deltaforensics.commands.tables import secrets_of
from deltaforensics.errors import UsageError
from deltaforensics.report.gates import FAIL_ON_CHOICES
from deltaforensics.report.redact import Redactor


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditPlan:
    """An audit ready to run: its config with catalog names resolved, where its state is kept,
    the findings that fail it."""

    request: AuditRequest
    config: AuditConfig
    state_dir: Path | None
    fail_on: tuple[str, ...]
    settings: AuditSettings
    schemas: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditResult:
    """The summary document (``audit-summary-v1``) and the directory holding the reports."""

    summary: Mapping[str, Any]
    output: Path


def plan_audit(request: AuditRequest) -> AuditPlan:
    """Read the config, resolve its catalog tables and learn their secrets."""
    unknown = [f for f in request.fail_on if f not in FAIL_ON_CHOICES]
    if unknown:
        raise UsageError(f"fail_on {unknown[0]!r} is not one of {', '.join(FAIL_ON_CHOICES)}")
    cfg = load_config(request.config, os.environ)
    if request.output is not None:
        cfg = replace(cfg, output=request.output.resolve())
    state_dir = request.state.resolve() if request.state is not None else cfg.state
    from deltaforensics.audit.catalog_tables import resolve_catalog_tables  # noqa: PLC0415

    cfg, schemas = resolve_catalog_tables(cfg, state_dir, os.environ)
    if request.on_secret is not None:
        request.on_secret(
            tuple(sorted({v for t in cfg.tables for v in secrets_of(t.storage_options)}))
        )
    settings = AuditSettings(
        recommendations=(
            cfg.recommendations if request.recommendations is None else request.recommendations
        ),
        redact=_document_redactor() if request.redact else None,
    )
    return AuditPlan(
        request=request,
        config=cfg,
        state_dir=state_dir,
        fail_on=request.fail_on or cfg.fail_on,
        settings=settings,
        schemas=schemas,
    )


def run_planned(plan: AuditPlan) -> AuditResult:
    """Audit every table of ``plan``: on Spark, the tables read by path first."""
    request, cfg = plan.request, plan.config
    outcomes = None
    if request.spark is not None:
        conf = spark_settings(request.spark.conf)
        from deltaforensics.audit.on_spark import spark_outcomes  # noqa: PLC0415
        from deltaforensics.engines.spark_engine import spark_session  # noqa: PLC0415

        spark = spark_session(request.spark.master, conf)
        # catalog tables are read with vended credentials on the driver, by run_audit
        by_path = replace(cfg, tables=tuple(t for t in cfg.tables if t.opener is None))
        outcomes = spark_outcomes(
            by_path,
            spark=spark,
            state_dir=plan.state_dir,
            fail_on=plan.fail_on,
            settings=plan.settings,
            jobs=request.jobs,
        )
    if request.progress is None:
        summary = _run(plan, None, outcomes)
    else:
        with request.progress("auditing") as progress:
            summary = _run(plan, progress, outcomes)
    return AuditResult(summary=summary, output=cfg.output)


def _run(plan: AuditPlan, progress: Any, outcomes: Any) -> dict[str, Any]:
    extra: dict[str, Any] = {} if progress is None else {"progress": progress}
    return run_audit(
        plan.config,
        state_dir=plan.state_dir,
        fail_on=plan.fail_on,
        settings=plan.settings,
        engine=plan.request.engine_name,
        outcomes=outcomes,
        jobs=plan.request.jobs,
        schemas=plan.schemas,
        **extra,
    )


def audit(request: AuditRequest) -> AuditResult:
    return run_planned(plan_audit(request))


def _document_redactor() -> Redactor:
    """One redactor for the whole run: a person keeps one pseudonym across every table."""
    return Redactor()
