"""``deltaforensics snapshot``: the live files of the table at a version."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from deltaforensics.cli.engine_choice import chosen_engine
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    EngineName,
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


def snapshot(
    ctx: typer.Context,
    table: TableArg,
    version: Annotated[
        int | None,
        typer.Option("--version", min=0, help="Version to reconstruct (default: latest)."),
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
    """The live files of the table at a version."""
    invocation = invocation_of(ctx)
    invocation.redact = redact
    from deltaforensics.analysis import load, open_store  # noqa: PLC0415
    from deltaforensics.engines.polars_engine import PolarsEngine  # noqa: PLC0415
    from deltaforensics.report.history import (  # noqa: PLC0415
        snapshot_document,
        snapshot_json_chunks,
        snapshot_text,
    )

    store = open_store(table, storage_options(storage_option, storage_options_file, invocation))
    chosen = chosen_engine(store, engine, spark_master, spark_conf) or PolarsEngine(
        store, with_stats=False
    )
    with ProgressBar("reading the log", quiet=invocation.quiet) as progress:
        if engine in (None, EngineName.polars):
            chosen = PolarsEngine(reporting(store, progress), with_stats=False)
        loaded = load(store, version=version, mode="snapshot", engine=chosen)
    snap = loaded.replay.snapshot_at(version)
    if output_format is TableFormat.json and not redact:
        # the same text as emit_json(snapshot_document(...)), written in slices
        for chunk in snapshot_json_chunks(store.uri, snap, loaded.diagnostics):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    doc = redacted(snapshot_document(store.uri, snap, loaded.diagnostics), redact)
    if output_format is TableFormat.json:
        emit_json(doc)
    else:
        emit(snapshot_text(doc))
        warn(doc["diagnostics"], quiet=invocation.quiet)
