"""``deltaforensics snapshot``: the live files of the table at a version."""

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
)
from deltaforensics.cli.output import emit_table_or_json
from deltaforensics.cli.request_parts import hooks, spark_choice, table_access
from deltaforensics.commands import SnapshotRequest, snapshot_selection
from deltaforensics.commands.snapshot_read import read_snapshot
from deltaforensics.report.tables_markdown import snapshot_to_markdown
from deltaforensics.report.terminal_views import render_snapshot
from deltaforensics.report.to_text import snapshot_text


def snapshot(
    ctx: typer.Context,
    table: TableArg,
    version: Annotated[
        int | None,
        typer.Option("--version", min=0, help="Version to reconstruct (default: latest)."),
    ] = None,
    output_format: TableFormatOpt = TableFormat.table,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            "--until",
            help="The version active at this time (Delta's TIMESTAMP AS OF): ISO-8601 (no zone: UTC), epoch ms, or 7d / 36h ago.",
        ),
    ] = None,
    *,
    engine: EngineChoice,
    storage: StorageAccess,
    catalog: CatalogAccess,
    redact: RedactOpt = False,
) -> None:
    """The live files of the table at a version.

    Example: deltaforensics snapshot /lake/orders --version 42 --format json
    """
    invocation = table_command_invocation(ctx, redact=redact)
    request = SnapshotRequest(
        table=table,
        access=table_access(storage, invocation, catalog),
        selection=snapshot_selection(version=version, at=at),
        redact=redact,
        spark=spark_choice(engine),
    )
    read = read_snapshot(request, hooks(invocation))
    if output_format is TableFormat.json:
        for chunk in read.json_chunks():  # a million files are written in slices
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    emit_table_or_json(
        read.document(),
        output_format,
        snapshot_text,
        quiet=invocation.quiet,
        terminal_view=render_snapshot,
        markdown_view=snapshot_to_markdown,
    )
