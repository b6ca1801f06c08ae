"""``deltaforensics explain``: races and conflicts in the history, and the rule that decides each."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from deltaforensics.cli.gate import GatedTable, gate, read_baseline
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    AttemptOptions,
    CatalogAccess,
    EngineChoice,
    ExplainFormat,
    FailOn,
    GateOptions,
    RedactOpt,
    StorageAccess,
    TableArg,
    TimeWindow,
)
from deltaforensics.cli.output import at_terminal, write_report
from deltaforensics.cli.request_parts import evidence, hooks, spark_choice, table_access
from deltaforensics.commands import ExplainRequest, checked_profile, selection_of
from deltaforensics.commands.explain_report import explain_report


def explain(
    ctx: typer.Context,
    table: TableArg,
    output_format: Annotated[
        ExplainFormat | None,
        typer.Option(
            "--format",
            help="rich (default at a terminal), json (default otherwise), html or markdown.",
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help="Force an engine profile: delta-spark[-X.Y], databricks[-X.Y], delta-rs[-X.Y], kernel.",
        ),
    ] = None,
    from_version: Annotated[
        int | None, typer.Option("--from-version", min=0, help="Report races from this version on.")
    ] = None,
    to_version: Annotated[
        int | None, typer.Option("--to-version", min=0, help="Analyse the log up to this version.")
    ] = None,
    fail_on: Annotated[
        list[FailOn] | None,
        typer.Option(
            "--fail-on", help="Exit 1 when the report has any of these findings (repeatable)."
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report to this file instead of stdout."),
    ] = None,
    *,
    attempts: AttemptOptions,
    engine: EngineChoice,
    storage: StorageAccess,
    window: TimeWindow,
    catalog: CatalogAccess,
    ci_gate: GateOptions,
    redact: RedactOpt = False,
    recommendations: Annotated[
        bool,
        typer.Option(
            "--recommendations/--no-recommendations",
            help="Measure the what-if recommendations (the slow part on long histories).",
        ),
    ] = True,
    show_all: Annotated[
        bool,
        typer.Option("--all", help="Show every recommendation measured, not only the best three."),
    ] = False,
) -> None:
    """Races and conflicts in the table's history, which rule of Delta's checker decides them, and why.

    Example: deltaforensics explain /lake/orders --error driver.log

    A DataFrame write as an attempt (every mode: docs/attempts.md): deltaforensics explain /lake/orders --read-version 41 --attempt "df.write.format('delta').mode('overwrite').option('partitionOverwriteMode', 'dynamic').save(path)" --writes date=2024-03-04

    As a CI gate: deltaforensics explain /lake/orders --baseline baseline.json --fail-on conflict --junit-xml junit.xml
    """
    invocation = invocation_of(ctx)
    invocation.redact = redact
    invocation.one_table_then_exit()
    checked_profile(profile)
    found = evidence(attempts)
    baseline = read_baseline(ci_gate)
    started = datetime.now(UTC)
    request = ExplainRequest(
        table=table,
        access=table_access(storage, invocation, catalog),
        selection=selection_of(
            from_version=from_version, to_version=to_version, since=window.since, until=window.until
        ),
        profile=profile,
        evidence=found,
        recommendations=recommendations,
        all_recommendations=show_all,
        redact=redact,
        spark=spark_choice(engine),
    )
    doc = explain_report(request, hooks(invocation, keep=True))
    fmt = output_format or (
        ExplainFormat.rich if at_terminal() and output is None else ExplainFormat.json
    )
    write_report(doc, fmt, output)
    gated = [GatedTable.of_report(doc)]
    if gate(
        gated,
        [f.value for f in fail_on or []],
        ci_gate,
        baseline,
        started=started,
        quiet=invocation.quiet,
    ):
        raise typer.Exit(1)
