"""``deltaforensics snapshot``: the live files of the table at a version."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Annotated

import typer

from deltaforensics.cli.engine_choice import chosen_engine
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
from deltaforensics.cli.progress import ProgressBar, reporting
from deltaforensics.cli.redaction import redacted
from deltaforensics.cli.storage import open_table
from deltaforensics.cli.time_window import version_at
from deltaforensics.errors import UsageError


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
    from deltaforensics.analysis import load  # noqa: PLC0415
    from deltaforensics.engines.polars_engine import PolarsEngine  # noqa: PLC0415
    from deltaforensics.report.document import snapshot_document  # noqa: PLC0415
    from deltaforensics.report.to_text import snapshot_json_chunks, snapshot_text  # noqa: PLC0415

    store = open_table(table, storage, invocation, catalog)
    window = listing = None
    if at is not None:
        if version is not None:
            raise UsageError("give --version or --at, not both")
        at_version = version_at(store, at)
        version, window = at_version.to_version, at_version.window
        listing = at_version.listing
    chosen = chosen_engine(store, engine) or PolarsEngine(store, with_stats=False)
    with ProgressBar("reading the log", quiet=invocation.quiet) as progress:
        if not engine.uses_spark:
            chosen = PolarsEngine(reporting(store, progress), with_stats=False)
        loaded = load(store, version=version, mode="snapshot", engine=chosen, listing=listing)
    snap = loaded.replay.snapshot_at(version)
    if output_format is TableFormat.json and not redact and window is None:
        # the same text as emit_json(snapshot_document(...)), written in slices
        for chunk in snapshot_json_chunks(store.uri, snap, loaded.diagnostics):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    doc = redacted(snapshot_document(store.uri, snap, loaded.diagnostics), redact)
    doc = replace(doc, time_window=window)
    from deltaforensics.report.terminal_views import render_snapshot  # noqa: PLC0415

    emit_table_or_json(
        doc, output_format, snapshot_text, quiet=invocation.quiet, terminal_view=render_snapshot
    )
