"""The options and choices of the command line, each declared once and reused by every command.

Options that travel together are a group: a frozen dataclass whose fields are the options, given
to a command as one value (:mod:`deltaforensics.cli.option_groups` spreads it into the command's
signature for typer). A single option shared by several commands is an ``Annotated`` alias.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class TableFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


class SummaryFormat(StrEnum):
    """The audit summary's formats."""

    table = "table"
    json = "json"


class EngineName(StrEnum):
    polars = "polars"
    spark = "spark"


class WhatIfFormat(StrEnum):
    rich = "rich"
    json = "json"
    html = "html"
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


TableArg = Annotated[
    str,
    typer.Argument(
        help="Table path, its _delta_log folder, a URL (file://, abfss://, az://, …), or a Unity Catalog name catalog.schema.table."
    ),
]
TableFormatOpt = Annotated[TableFormat, typer.Option("--format", help="table, json or markdown.")]
RedactOpt = Annotated[
    bool,
    typer.Option(
        "--redact",
        help="Replace user names and ids, e-mails and notebook/workspace paths with pseudonyms (user#1, email#1, notebook#1, path#1) in every format.",
    ),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class GlobalOptions:
    """``--debug`` and ``--quiet``: the root's options, also accepted after any command (the
    crash message's "report with --debug" works wherever the user adds it)."""

    debug: Annotated[
        bool,
        typer.Option(
            "--debug", help="Show tracebacks for errors.", rich_help_panel="Global options"
        ),
    ] = False
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", help="No progress output on stderr.", rich_help_panel="Global options"
        ),
    ] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class StorageAccess:
    """How to reach the table's storage: ``--storage-option`` and ``--storage-options-file``."""

    storage_option: Annotated[
        list[str] | None,
        typer.Option(
            "--storage-option",
            help="Storage option KEY=VALUE (repeatable); adlfs and delta-rs/object_store key names.",
        ),
    ] = None
    storage_options_file: Annotated[
        Path | None,
        typer.Option(
            "--storage-options-file",
            help="JSON or TOML file of storage options (keeps secrets off argv).",
        ),
    ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineChoice:
    """Which engine reads the log: ``--engine`` and, for Spark, its master and conf."""

    engine: Annotated[
        EngineName | None,
        typer.Option(
            "--engine",
            help="How to read the log: polars (default) or spark (PySpark, extra [spark]).",
        ),
    ] = None
    spark_master: Annotated[
        str, typer.Option("--spark-master", help="Spark master for --engine spark.")
    ] = "local[2]"
    spark_conf: Annotated[
        list[str] | None,
        typer.Option("--spark-conf", help="Spark conf KEY=VALUE for --engine spark (repeatable)."),
    ] = None

    @property
    def uses_spark(self) -> bool:
        """Spark reads the log; otherwise the default polars engine does."""
        return self.engine is EngineName.spark


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptOptions:
    """The failure the user brings: ``--error`` texts, and ``--attempt`` statements with what
    each read and wrote."""

    error: Annotated[
        list[str] | None,
        typer.Option(
            "--error",
            help="A driver log, job output or stack trace holding the failure (repeatable; - for stdin).",
        ),
    ] = None
    failures_from: Annotated[
        list[str] | None,
        typer.Option(
            "--failures-from",
            help="Where failures are recorded (repeatable): Spark event logs or driver logs"
            " (a file, a folder or a URL), openlineage:PATH_OR_URL (NDJSON run events),"
            " databricks-jobs:[JOB_ID] or databricks-queries:[WAREHOUSE_ID] (the workspace's"
            " Jobs API or query history); the conflicts they recorded on this table, in the --since/--until window.",
        ),
    ] = None
    attempt: Annotated[
        list[str] | None,
        typer.Option(
            "--attempt",
            help="A statement that failed or is planned, as Spark SQL or a DataFrame write"
            """ (df.write.format("delta").mode("overwrite").option("replaceWhere", "…")"""
            """.save(path); repeatable): docs/cli.md, DataFrame writes.""",
        ),
    ] = None
    read_version: Annotated[
        list[int] | None,
        typer.Option(
            "--read-version",
            min=0,
            help="The version each --attempt read (once for all, or once per attempt).",
        ),
    ] = None
    started_at: Annotated[
        list[str] | None,
        typer.Option(
            "--started-at",
            help="When each --attempt started (ISO-8601 or epoch ms); it read the version current then.",
        ),
    ] = None
    attempt_profile: Annotated[
        str | None,
        typer.Option(
            "--attempt-profile",
            help="Engine profile of the attempts (default: the table's recent writers).",
        ),
    ] = None
    writes: Annotated[
        str | None,
        typer.Option(
            "--writes",
            help="Partitions an INSERT or DataFrame write writes when the statement does not show"
            ' them: "col=value,...".',
        ),
    ] = None
    replace_where: Annotated[
        str | None,
        typer.Option(
            "--replace-where",
            help="replaceWhere predicate of an overwrite (as INSERT INTO t REPLACE WHERE …).",
        ),
    ] = None
    txn: Annotated[
        str | None,
        typer.Option("--txn", help="The attempt's own application transaction APPID:VERSION."),
    ] = None
    partition_overwrite_mode: Annotated[
        str | None,
        typer.Option(
            "--partition-overwrite-mode",
            help='dynamic marks an INSERT OVERWRITE or mode("overwrite") write as dynamic'
            " (the session's spark.sql.sources.partitionOverwriteMode).",
        ),
    ] = None


# -- issue #22: time windows and catalog names (kept together) ---------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeWindow:
    """``--since`` and ``--until``: a window of commit times instead of version numbers."""

    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Commits from this time on: ISO-8601 (no zone: UTC), epoch ms, or 7d / 36h / 90m ago.",
        ),
    ] = None
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            help="Commits up to this time (the version active then), in the same forms as --since.",
        ),
    ] = None

    @property
    def given(self) -> bool:
        return self.since is not None or self.until is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogAccess:
    """How a Unity Catalog name (``catalog.schema.table``) is resolved."""

    catalog_url: Annotated[
        str | None,
        typer.Option(
            "--catalog-url",
            envvar="DELTAFORENSICS_UC_URL",
            help="An open-source Unity Catalog server's base URL (default: the Databricks workspace of DATABRICKS_HOST or a profile).",
            rich_help_panel="Unity Catalog",
        ),
    ] = None
    catalog_profile: Annotated[
        str | None,
        typer.Option(
            "--catalog-profile",
            help="The ~/.databrickscfg profile for Unity Catalog names (Databricks auth).",
            rich_help_panel="Unity Catalog",
        ),
    ] = None


# --- The CI gate (issue #21): a baseline of accepted findings and a JUnit report -----------


@dataclass(frozen=True, slots=True, kw_only=True)
class GateOptions:
    """What a CI gate adds to ``--fail-on``: the findings already accepted, where to write them,
    and a JUnit XML report of the findings (``deltaforensics.report.findings``)."""

    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="Baseline file of accepted findings: --fail-on fires only on findings it does not list.",
            rich_help_panel="CI gate",
        ),
    ] = None
    write_baseline: Annotated[
        Path | None,
        typer.Option(
            "--write-baseline",
            help="Write every finding of this run to a baseline file (to accept them).",
            rich_help_panel="CI gate",
        ),
    ] = None
    junit_xml: Annotated[
        Path | None,
        typer.Option(
            "--junit-xml",
            help="Write a JUnit XML report: a test case per finding, failures for new findings --fail-on selects.",
            rich_help_panel="CI gate",
        ),
    ] = None
