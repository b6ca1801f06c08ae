"""``deltaforensics history``: one row per commit."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from deltaforensics.cli.invocation import table_command_invocation
from deltaforensics.cli.options import (
    CatalogAccess,
    EngineChoice,
    RedactOpt,
    StorageAccess,
    TableArg,
    TableFormat,
    TableFormatOpt,
    TimeWindow,
)
from deltaforensics.cli.output import emit_table_or_json
from deltaforensics.cli.request_parts import hooks, spark_choice, table_access
from deltaforensics.commands import HistoryRequest, selection_of
from deltaforensics.commands.history_read import read_history
from deltaforensics.report.tables_markdown import history_to_markdown
from deltaforensics.report.terminal_views import render_history
from deltaforensics.report.to_text import history_text


def history(
    ctx: typer.Context,
    table: TableArg,
    from_version: Annotated[
        int | None, typer.Option("--from-version", min=0, help="First version to show.")
    ] = None,
    to_version: Annotated[
        int | None, typer.Option("--to-version", min=0, help="Last version to show.")
    ] = None,
    output_format: TableFormatOpt = TableFormat.table,
    *,
    engine: EngineChoice,
    storage: StorageAccess,
    window: TimeWindow,
    catalog: CatalogAccess,
    redact: RedactOpt = False,
) -> None:
    """One row per commit: operation, parameters, readVersion, isolation level, writer, files.

    Example: deltaforensics history /lake/orders --from-version 100 --to-version 120
    """
    invocation = table_command_invocation(ctx, redact=redact)
    selection = selection_of(
        from_version=from_version, to_version=to_version, since=window.since, until=window.until
    )
    request = HistoryRequest(
        table=table,
        access=table_access(storage, invocation, catalog),
        selection=selection,
        redact=redact,
        spark=spark_choice(engine),
    )
    read = read_history(request, hooks(invocation))
    if output_format is TableFormat.json and read.rows is not None:
        # the rows straight to text: a value per commit costs more than reading the log
        for chunk in read.json_chunks():
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    emit_table_or_json(
        read.document(),
        output_format,
        history_text,
        quiet=invocation.quiet,
        terminal_view=render_history,
        markdown_view=history_to_markdown,
    )
