"""``deltaforensics audit``: every table of a config, one report each, a summary and datasets."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from deltaforensics.cli.gate import GatedTable, gate, read_baseline
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    EngineChoice,
    EngineName,
    FailOn,
    GateOptions,
    RedactOpt,
    SummaryFormat,
)
from deltaforensics.cli.output import emit, emit_json
from deltaforensics.cli.progress import ProgressBar
from deltaforensics.cli.request_parts import spark_choice
from deltaforensics.commands import AuditRequest
from deltaforensics.commands.audit_run import plan_audit, run_planned
from deltaforensics.report.audit import audit_text


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
        SummaryFormat, typer.Option("--format", help="Summary on stdout: table or json.")
    ] = SummaryFormat.table,
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

    def remember(secrets: tuple[str, ...]) -> None:
        invocation.secrets = secrets

    plan = plan_audit(
        AuditRequest(
            config=config,
            state=state,
            output=output,
            fail_on=tuple(f.value for f in fail_on or []),
            recommendations=recommendations,
            redact=redact,
            jobs=jobs,
            spark=spark_choice(engine),
            engine_name=(engine.engine or EngineName.polars).value,
            on_secret=remember,
            progress=partial(ProgressBar, quiet=invocation.quiet),
        )
    )
    invocation.redact = redact
    baseline = read_baseline(ci_gate)
    started = datetime.now(UTC)
    result = run_planned(plan)
    summary = result.summary
    if output_format is SummaryFormat.json:
        emit_json(summary)
    else:
        emit(audit_text(summary))
    tables = [_gated(entry, result.output) for entry in summary["tables"]]
    failing = gate(tables, plan.fail_on, ci_gate, baseline, started=started, quiet=invocation.quiet)
    failed_tables = max(
        (e["exit_code"] for e in summary["tables"] if e["status"] != "ok"), default=0
    )
    failed_tables = max(failed_tables, 3 if summary["exit_code"] == 3 else 0)  # [[failures]]
    if failed_tables or failing:
        if not invocation.quiet:  # a diagnostic: stdout holds the summary only
            sys.stderr.write(f"exit code {failed_tables or 1}\n")
        raise typer.Exit(failed_tables or 1)


def _gated(entry: dict[str, Any], output: Path) -> GatedTable:
    """A table of the summary before the gate, its findings read back from its report."""
    import json  # noqa: PLC0415

    from deltaforensics.report.document import ExplainDocument  # noqa: PLC0415

    if entry["status"] != "ok":
        return GatedTable(name=entry["name"], suite=entry["name"], error=entry["error"])
    doc = json.loads((output / entry["report"]).read_text(encoding="utf-8"))
    return GatedTable.of_report(ExplainDocument.from_dict(doc), entry["name"])
