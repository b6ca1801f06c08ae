"""The options and choices of the command line, each declared once and reused by every command."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class TableFormat(StrEnum):
    table = "table"
    json = "json"


class EngineName(StrEnum):
    polars = "polars"
    spark = "spark"


class WhatIfFormat(StrEnum):
    json = "json"
    markdown = "markdown"


class FailOn(StrEnum):
    conflict = "conflict"
    anomaly = "anomaly"
    disagreement = "disagreement"


class ExplainFormat(StrEnum):
    rich = "rich"
    json = "json"
    html = "html"
    markdown = "markdown"


class AuditFormat(StrEnum):
    table = "table"
    json = "json"


TableArg = Annotated[
    str,
    typer.Argument(
        help="Table path, its _delta_log folder, or a URL (file://, abfss://, az://, …)."
    ),
]
StorageOption = Annotated[
    list[str] | None,
    typer.Option(
        "--storage-option",
        help="Storage option KEY=VALUE (repeatable); adlfs and delta-rs/object_store key names.",
    ),
]
StorageOptionsFile = Annotated[
    Path | None,
    typer.Option(
        "--storage-options-file",
        help="JSON or TOML file of storage options (keeps secrets off argv).",
    ),
]


EngineOpt = Annotated[
    EngineName | None,
    typer.Option(
        "--engine", help="How to read the log: polars (default) or spark (PySpark, extra [spark])."
    ),
]
SparkMasterOpt = Annotated[
    str, typer.Option("--spark-master", help="Spark master for --engine spark.")
]
SparkConfOpt = Annotated[
    list[str] | None,
    typer.Option("--spark-conf", help="Spark conf KEY=VALUE for --engine spark (repeatable)."),
]
ErrorOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--error",
        help="A driver log, job output or stack trace holding the failure (repeatable; - for stdin).",
    ),
]
AttemptOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--attempt", help="A statement that failed or is planned, as Spark SQL (repeatable)."
    ),
]
ReadVersionOpt = Annotated[
    list[int] | None,
    typer.Option(
        "--read-version",
        min=0,
        help="The version each --attempt read (once for all, or once per attempt).",
    ),
]
StartedAtOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--started-at",
        help="When each --attempt started (ISO-8601 or epoch ms); it read the version current then.",
    ),
]
AttemptProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--attempt-profile",
        help="Engine profile of the attempts (default: the table's recent writers).",
    ),
]
WritesOpt = Annotated[
    str | None,
    typer.Option(
        "--writes",
        help='Partitions an INSERT writes when the statement does not show them: "col=value,...".',
    ),
]
ReplaceWhereOpt = Annotated[
    str | None, typer.Option("--replace-where", help="replaceWhere predicate of an overwrite.")
]
TxnOpt = Annotated[
    str | None,
    typer.Option("--txn", help="The attempt's own application transaction APPID:VERSION."),
]
OverwriteModeOpt = Annotated[
    str | None,
    typer.Option(
        "--partition-overwrite-mode", help="dynamic marks an INSERT OVERWRITE as dynamic."
    ),
]
RedactOpt = Annotated[
    bool,
    typer.Option(
        "--redact",
        help="Replace user names and ids, e-mails and notebook/workspace paths with pseudonyms (user#1, email#1, notebook#1, path#1) in every format.",
    ),
]
