"""``deltaforensics history``: one row per commit."""

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
    TimeWindow,
)
from deltaforensics.cli.output import emit_table_or_json
from deltaforensics.cli.progress import ProgressBar, reporting
from deltaforensics.cli.redaction import redacted
from deltaforensics.cli.storage import open_table
from deltaforensics.cli.time_window import chosen_versions
from deltaforensics.errors import UsageError
from deltaforensics.model.collector import collector_paused


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
    from deltaforensics.analysis import load_commits  # noqa: PLC0415
    from deltaforensics.report.document.history import (  # noqa: PLC0415
        history_head,
        history_json_chunks,
        history_rows,
    )
    from deltaforensics.report.to_text import history_text  # noqa: PLC0415

    if from_version is not None and to_version is not None and from_version > to_version:
        raise UsageError("--from-version must not be greater than --to-version")
    store = open_table(table, storage, invocation, catalog)
    versions = chosen_versions(store, window, from_version=from_version, to_version=to_version)
    from_version, to_version = versions.from_version, versions.to_version
    chosen = chosen_engine(store, engine)
    # the load's 100,000s of tuples and names live on: the cyclic collector would rescan them
    with collector_paused(), ProgressBar("reading the log", quiet=invocation.quiet) as progress:
        _, commits, diagnostics = load_commits(
            store if chosen is not None else reporting(store, progress),
            from_version=from_version,
            to_version=to_version,
            engine=chosen,
        )
    doc = history_head(store.uri, diagnostics)
    if output_format is TableFormat.json and not redact:
        # the rows straight to text: a dict per commit cost more than reading the log
        doc = replace(doc, time_window=versions.window)
        for chunk in history_json_chunks(doc, commits):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    doc = redacted(replace(doc, commits=history_rows(commits)), redact)
    doc = replace(doc, time_window=versions.window)
    from deltaforensics.report.terminal_views import render_history  # noqa: PLC0415

    emit_table_or_json(
        doc, output_format, history_text, quiet=invocation.quiet, terminal_view=render_history
    )
