"""``deltaforensics whatif``: what a change of layout or isolation would avoid or introduce."""

from __future__ import annotations

from typing import Annotated

import typer

from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    AttemptOptions,
    CatalogAccess,
    RedactOpt,
    StorageAccess,
    TableArg,
    TimeWindow,
    WhatIfFormat,
)
from deltaforensics.cli.output import at_terminal, emit, emit_json, terminal_console
from deltaforensics.cli.request_parts import evidence, table_access
from deltaforensics.commands import WhatIfRequest, checked_profile, scenario_changes, selection_of
from deltaforensics.commands.whatif_report import whatif_report
from deltaforensics.report.terminal_views import render_whatif
from deltaforensics.report.to_markdown import whatif_to_markdown
from deltaforensics.report.whatif_html import whatif_to_html


def whatif(
    ctx: typer.Context,
    table: TableArg,
    partition_by: Annotated[
        str | None, typer.Option("--partition-by", help="Comma-separated columns to partition by.")
    ] = None,
    isolation: Annotated[
        str | None,
        typer.Option(
            "--isolation",
            help="Serializable or WriteSerializable (as the writers' engine spells it).",
        ),
    ] = None,
    deletion_vectors: Annotated[
        bool,
        typer.Option(
            "--deletion-vectors",
            help="Enable deletion vectors (row-level concurrency where the engine has it).",
        ),
    ] = False,
    liquid: Annotated[
        str | None, typer.Option("--liquid", help="Comma-separated liquid clustering columns.")
    ] = None,
    explicit_merge_predicates: Annotated[
        bool,
        typer.Option(
            "--explicit-merge-predicates",
            help="Add literal partition conjuncts to MERGE conditions.",
        ),
    ] = False,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Force an engine profile (as for explain).")
    ] = None,
    output_format: Annotated[
        WhatIfFormat,
        typer.Option(
            "--format",
            help="rich (default at a terminal), json (default otherwise), html or markdown.",
        ),
    ] = None,  # type: ignore[assignment]
    show_all: Annotated[
        bool,
        typer.Option("--all", help="List every pair in markdown or html, not only the first 50."),
    ] = False,
    from_version: Annotated[
        int | None,
        typer.Option("--from-version", min=0, help="Measure races from this version on."),
    ] = None,
    to_version: Annotated[
        int | None, typer.Option("--to-version", min=0, help="Read the log up to this version.")
    ] = None,
    *,
    attempts: AttemptOptions,
    storage: StorageAccess,
    window: TimeWindow,
    catalog: CatalogAccess,
    redact: RedactOpt = False,
) -> None:
    """Which conflicts and fragile races a change would avoid or introduce, measured on this history.

    Example: deltaforensics whatif /lake/orders --partition-by date --format markdown
    """
    invocation = invocation_of(ctx)
    invocation.redact = redact
    checked_profile(profile)
    changes = scenario_changes(
        partition_by=_columns(partition_by or ""),
        isolation=isolation,
        deletion_vectors=deletion_vectors,
        liquid=_columns(liquid or ""),
        explicit_merge_predicates=explicit_merge_predicates,
    )
    request = WhatIfRequest(
        table=table,
        changes=changes,
        evidence=evidence(attempts),
        access=table_access(storage, invocation, catalog),
        selection=selection_of(
            from_version=from_version, to_version=to_version, since=window.since, until=window.until
        ),
        profile=profile,
        redact=redact,
    )
    doc = whatif_report(request)
    fmt = output_format or (WhatIfFormat.rich if at_terminal() else WhatIfFormat.json)
    max_rows = len(doc.pairs) + 1 if show_all else 50
    if fmt is WhatIfFormat.markdown:
        emit(whatif_to_markdown(doc, max_rows=max_rows))
    elif fmt is WhatIfFormat.html:
        emit(whatif_to_html(doc, max_rows=max_rows))
    elif fmt is WhatIfFormat.rich:
        render_whatif(doc, terminal_console())
    else:
        emit_json(doc.to_dict())  # the JSON writer: the one place the document becomes a dict


def _columns(text: str) -> tuple[str, ...]:
    """``"a, b,"`` as ``("a", "b")``."""
    return tuple(c.strip() for c in text.split(",") if c.strip())
