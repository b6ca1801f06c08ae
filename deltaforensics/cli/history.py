"""``deltaforensics history``: one row per commit."""

from __future__ import annotations

from typing import Annotated

import typer

from deltaforensics.cli.engine_choice import chosen_engine
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    EngineOpt,
    RedactOpt,
    SparkConfOpt,
    SparkMasterOpt,
    StorageOption,
    StorageOptionsFile,
    TableArg,
    TableFormat,
)
from deltaforensics.cli.output import emit, emit_json, warn
from deltaforensics.cli.progress import ProgressBar, reporting
from deltaforensics.cli.redaction import redacted
from deltaforensics.cli.storage import storage_options
from deltaforensics.errors import UsageError


def history(
    ctx: typer.Context,
    table: TableArg,
    from_version: Annotated[
        int | None, typer.Option("--from-version", min=0, help="First version to show.")
    ] = None,
    to_version: Annotated[
        int | None, typer.Option("--to-version", min=0, help="Last version to show.")
    ] = None,
    output_format: Annotated[
        TableFormat, typer.Option("--format", help="table or json.")
    ] = TableFormat.table,
    engine: EngineOpt = None,
    spark_master: SparkMasterOpt = "local[2]",
    spark_conf: SparkConfOpt = None,
    storage_option: StorageOption = None,
    storage_options_file: StorageOptionsFile = None,
    redact: RedactOpt = False,
) -> None:
    """One row per commit: operation, parameters, readVersion, isolation level, writer, files."""
    invocation = invocation_of(ctx)
    invocation.redact = redact
    from deltaforensics.analysis import load_commits, open_store  # noqa: PLC0415
    from deltaforensics.report.history import history_document, history_text  # noqa: PLC0415

    if from_version is not None and to_version is not None and from_version > to_version:
        raise UsageError("--from-version must not be greater than --to-version")
    store = open_store(table, storage_options(storage_option, storage_options_file, invocation))
    chosen = chosen_engine(store, engine, spark_master, spark_conf)
    with ProgressBar("reading the log", quiet=invocation.quiet) as progress:
        _, commits, diagnostics = load_commits(
            store if chosen is not None else reporting(store, progress),
            from_version=from_version,
            to_version=to_version,
            engine=chosen,
        )
    doc = redacted(history_document(store.uri, commits, diagnostics), redact)
    if output_format is TableFormat.json:
        emit_json(doc)
    else:
        emit(history_text(doc))
        warn(doc["diagnostics"], quiet=invocation.quiet)
