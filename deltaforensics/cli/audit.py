"""``deltaforensics audit``: every table of a config, one report each, a summary and datasets."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from deltaforensics.cli.engine_choice import spark_settings
from deltaforensics.cli.gate import GatedTable, gate, read_baseline
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    EngineChoice,
    EngineName,
    FailOn,
    GateOptions,
    RedactOpt,
    TableFormat,
)
from deltaforensics.cli.output import emit, emit_json
from deltaforensics.cli.progress import ProgressBar
from deltaforensics.cli.redaction import document_redactor, secrets_of


def audit(
    ctx: typer.Context,
    config: Annotated[
        Path, typer.Argument(help="The audit's TOML file: tables, storage, output directory.")
    ],
    state: Annotated[
        Path | None,
        typer.Option(
            "--state",
            help="Directory keeping each table's commit facts between runs: later runs read only new commits.",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Output directory (overrides the config's output)."),
    ] = None,
    fail_on: Annotated[
        list[FailOn] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when any table's report has these findings (repeatable; overrides the config).",
        ),
    ] = None,
    output_format: Annotated[
        TableFormat, typer.Option("--format", help="Summary on stdout: table or json.")
    ] = TableFormat.table,
    recommendations: Annotated[
        bool | None,
        typer.Option(
            "--recommendations/--no-recommendations",
            help="Run the what-if recommendations per table (default: the config's, else on).",
        ),
    ] = None,
    redact: RedactOpt = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            min=1,
            max=64,
            help=(
                "Tables read concurrently (analysis stays in order); on Spark, tables the "
                "driver lists and plans at once."
            ),
        ),
    ] = 4,
    *,
    engine: EngineChoice,
    ci_gate: GateOptions,
) -> None:
    """Audit every table of a config: one report each, a summary, parquet datasets, kept state.

    Example: deltaforensics audit audit.toml --state audit-state --fail-on conflict --baseline baseline.json
    """
    invocation = invocation_of(ctx)
    import os  # noqa: PLC0415
    from dataclasses import replace  # noqa: PLC0415

    from deltaforensics.audit.config import load_config  # noqa: PLC0415
    from deltaforensics.audit.core import AuditSettings  # noqa: PLC0415
    from deltaforensics.audit.run import run_audit  # noqa: PLC0415
    from deltaforensics.report.audit import audit_text  # noqa: PLC0415

    cfg = load_config(config, os.environ)
    if output is not None:
        cfg = replace(cfg, output=output.resolve())
    state_dir = state.resolve() if state is not None else cfg.state
    from deltaforensics.audit.catalog_tables import resolve_catalog_tables  # noqa: PLC0415

    cfg, schemas = resolve_catalog_tables(cfg, state_dir, os.environ)
    invocation.secrets = tuple(
        sorted({v for t in cfg.tables for v in secrets_of(t.storage_options)})
    )
    chosen = tuple(f.value for f in fail_on) if fail_on else cfg.fail_on
    invocation.redact = redact
    settings = AuditSettings(
        recommendations=cfg.recommendations if recommendations is None else recommendations,
        redact=document_redactor() if redact else None,
    )
    baseline = read_baseline(ci_gate)
    started = datetime.now(UTC)
    outcomes = None
    if engine.uses_spark:
        conf = spark_settings(engine.spark_conf)
        from deltaforensics.audit.on_spark import spark_outcomes  # noqa: PLC0415
        from deltaforensics.engines.spark_engine import spark_session  # noqa: PLC0415

        spark = spark_session(engine.spark_master, conf)
        # catalog tables are read with vended credentials on the driver, by run_audit
        by_path = replace(cfg, tables=tuple(t for t in cfg.tables if t.opener is None))
        outcomes = spark_outcomes(
            by_path,
            spark=spark,
            state_dir=state_dir,
            fail_on=chosen,
            settings=settings,
            jobs=jobs,
        )
    with ProgressBar("auditing", quiet=invocation.quiet) as progress:
        summary = run_audit(
            cfg,
            state_dir=state_dir,
            fail_on=chosen,
            settings=settings,
            progress=progress,
            engine=(engine.engine or EngineName.polars).value,
            outcomes=outcomes,
            jobs=jobs,
            schemas=schemas,
        )
    if output_format is TableFormat.json:
        emit_json(summary)
    else:
        emit(audit_text(summary))
    tables = [_gated(entry, cfg.output) for entry in summary["tables"]]
    failing = gate(tables, chosen, ci_gate, baseline, started=started, quiet=invocation.quiet)
    failed_tables = max(
        (e["exit_code"] for e in summary["tables"] if e["status"] != "ok"), default=0
    )
    failed_tables = max(failed_tables, 3 if summary["exit_code"] == 3 else 0)  # [[failures]]
    if failed_tables or failing:
        raise typer.Exit(failed_tables or 1)


def _gated(entry: dict[str, Any], output: Path) -> GatedTable:
    """A table of the summary before the gate, its findings read back from its report."""
    import json  # noqa: PLC0415

    from deltaforensics.report.document import ExplainDocument  # noqa: PLC0415

    if entry["status"] != "ok":
        return GatedTable(name=entry["name"], suite=entry["name"], error=entry["error"])
    doc = json.loads((output / entry["report"]).read_text(encoding="utf-8"))
    return GatedTable.of_report(ExplainDocument.from_dict(doc), entry["name"])
