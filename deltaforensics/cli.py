"""Command line: parse -> analysis -> report -> exit code. The only place that exits.

Exit codes: 0 done; 1 findings selected by ``--fail-on``; 2 usage error; 3 input or storage
error (one line on stderr naming the file or URL and version); 4 internal error; 130 Ctrl-C.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer import exceptions as typer_exceptions

from deltaforensics import __version__
from deltaforensics.errors import DeltaForensicsError, UsageError

app = typer.Typer(
    name="deltaforensics",
    help="Explain Delta Lake write conflicts from the table's own transaction log.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class _State:
    debug = False
    quiet = False
    redact = False
    secrets: tuple[str, ...] = ()
    ending = False  # the process ends with this command (:func:`entry`)

    def __init__(self) -> None:
        self.kept: list[Any] = []


STATE = _State()


class TableFormat(StrEnum):
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


class EngineName(StrEnum):
    polars = "polars"
    spark = "spark"


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


def _redacted(
    doc: dict[str, Any], redact: bool, commit_infos: Iterable[Any] = ()
) -> dict[str, Any]:
    """``doc`` with identities pseudonymised when ``--redact`` was given (before any rendering)."""
    if not redact:
        return doc
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    for commit_info in commit_infos:
        redactor.learn_commit_info(commit_info)
    return redact_document(doc, redactor)


def _storage_options(pairs: list[str] | None, file: Path | None) -> dict[str, str]:
    if not pairs and file is None:
        return {}
    from deltaforensics.log.options import load_storage_options, secret_values  # noqa: PLC0415

    options = load_storage_options(pairs or [], file)
    STATE.secrets = tuple(secret_values(options))
    return options


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _emit_json(doc: Any) -> None:
    _emit(json.dumps(doc, indent=2, default=str))


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress output on stderr.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    STATE.debug = debug
    STATE.quiet = quiet
    STATE.redact = False
    if version:
        _emit(f"deltaforensics {__version__}")
        raise typer.Exit(0)


@app.command()
def history(
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
    STATE.redact = redact
    from deltaforensics.analysis import load_commits, open_store  # noqa: PLC0415
    from deltaforensics.report.document import history_document  # noqa: PLC0415
    from deltaforensics.report.history import history_text  # noqa: PLC0415

    if from_version is not None and to_version is not None and from_version > to_version:
        raise UsageError("--from-version must not be greater than --to-version")
    store = open_store(table, _storage_options(storage_option, storage_options_file))
    chosen = _engine(store, engine, spark_master, spark_conf)
    with _progress("reading the log") as progress:
        _, commits, diagnostics = load_commits(
            store if chosen is not None else _reporting(store, progress),
            from_version=from_version,
            to_version=to_version,
            engine=chosen,
        )
    doc = _redacted(history_document(store.uri, commits, diagnostics), redact)
    if output_format is TableFormat.json:
        _emit_json(doc)
    else:
        _emit(history_text(doc))
        _warn(doc["diagnostics"])


@app.command()
def snapshot(
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
    STATE.redact = redact
    from deltaforensics.analysis import load, open_store  # noqa: PLC0415
    from deltaforensics.engines.polars_engine import PolarsEngine  # noqa: PLC0415
    from deltaforensics.report.document import snapshot_document  # noqa: PLC0415
    from deltaforensics.report.history import snapshot_json_chunks, snapshot_text  # noqa: PLC0415

    store = open_store(table, _storage_options(storage_option, storage_options_file))
    chosen = _engine(store, engine, spark_master, spark_conf) or PolarsEngine(
        store, with_stats=False
    )
    with _progress("reading the log") as progress:
        if engine in (None, EngineName.polars):
            chosen = PolarsEngine(_reporting(store, progress), with_stats=False)
        loaded = load(store, version=version, mode="snapshot", engine=chosen)
    snap = loaded.replay.snapshot_at(version)
    if output_format is TableFormat.json and not redact:
        # the same text as _emit_json(snapshot_document(...)), written in slices
        for chunk in snapshot_json_chunks(store.uri, snap, loaded.diagnostics):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return
    doc = _redacted(snapshot_document(store.uri, snap, loaded.diagnostics), redact)
    if output_format is TableFormat.json:
        _emit_json(doc)
    else:
        _emit(snapshot_text(doc))
        _warn(doc["diagnostics"])


def _engine(store: Any, name: EngineName | None, master: str, conf: list[str] | None) -> Any:
    """The log-reading engine; ``None`` means the default polars engine."""
    if name is None or name is EngineName.polars:
        return None
    settings = _spark_settings(conf)
    from deltaforensics.engines.spark_engine import SparkEngine  # noqa: PLC0415

    return SparkEngine(store, master=master, conf=settings)


def _spark_settings(conf: list[str] | None) -> dict[str, str]:
    """``--spark-conf`` pairs, after checking that pyspark is there at all."""
    try:
        import pyspark  # noqa: F401, PLC0415
    except ImportError:
        raise UsageError(
            "--engine spark needs pyspark: pip install 'deltaforensics[spark]'"
        ) from None
    settings: dict[str, str] = {}
    for pair in conf or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--spark-conf takes KEY=VALUE, got {pair!r}")
        settings[key.strip()] = value.strip()
    return settings


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


@app.command()
def explain(
    table: TableArg,
    output_format: Annotated[
        ExplainFormat | None, typer.Option("--format", help="rich (default on a terminal) or json.")
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
    error: ErrorOpt = None,
    attempt: AttemptOpt = None,
    read_version: ReadVersionOpt = None,
    started_at: StartedAtOpt = None,
    attempt_profile: AttemptProfileOpt = None,
    writes: WritesOpt = None,
    replace_where: ReplaceWhereOpt = None,
    txn: TxnOpt = None,
    partition_overwrite_mode: OverwriteModeOpt = None,
    engine: EngineOpt = None,
    spark_master: SparkMasterOpt = "local[2]",
    spark_conf: SparkConfOpt = None,
    storage_option: StorageOption = None,
    storage_options_file: StorageOptionsFile = None,
    redact: RedactOpt = False,
    recommendations: Annotated[
        bool,
        typer.Option(
            "--recommendations/--no-recommendations",
            help="Measure the what-if recommendations (the slow part on long histories).",
        ),
    ] = True,
) -> None:
    """Races and conflicts in the table's history, which rule of Delta's checker decides them, and why."""
    STATE.redact = redact
    _one_table_then_exit()
    from deltaforensics.analysis import analyze, open_store  # noqa: PLC0415
    from deltaforensics.report.document import explain_document  # noqa: PLC0415

    if profile is not None:
        from deltaforensics.conflicts.profiles import profile_by_name  # noqa: PLC0415

        try:
            profile_by_name(profile)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    specs = _attempt_specs(
        attempt or [],
        read_version or [],
        started_at or [],
        attempt_profile,
        writes,
        replace_where,
        txn,
        partition_overwrite_mode,
    )
    texts = [_read_error_text(e) for e in error or []]
    store = open_store(table, _storage_options(storage_option, storage_options_file))
    with _progress("reading the log") as progress:
        analysis = analyze(
            _reporting(store, progress),
            from_version=from_version,
            to_version=to_version,
            profile_name=profile,
            error_texts=texts,
            attempts=specs,
            engine=_engine(store, engine, spark_master, spark_conf),
            recommendations=recommendations,
        )
    doc = _redacted(
        explain_document(analysis), redact, (t.commit_info for t in analysis.transactions)
    )
    _keep(analysis)
    fmt = output_format or (
        ExplainFormat.rich if sys.stdout.isatty() and output is None else ExplainFormat.json
    )
    _write_report(doc, fmt, output)
    if failing_findings(doc, fail_on or []):
        raise typer.Exit(1)


def _read_error_text(name: str) -> tuple[str, str]:
    if name == "-":
        return "<stdin>", sys.stdin.read()
    path = Path(name)
    try:
        return name, path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"--error {name}: {exc.strerror or exc}") from None


def _parse_time_ms(text: str) -> int:
    from datetime import UTC, datetime  # noqa: PLC0415

    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    try:
        moment = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--started-at {text!r}: not ISO-8601 or epoch milliseconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _attempt_specs(
    statements: list[str],
    read_versions: list[int],
    started: list[str],
    profile: str | None,
    writes: str | None,
    replace_where: str | None,
    txn: str | None,
    overwrite_mode: str | None,
) -> list[Any]:
    from deltaforensics.analysis import AttemptSpec  # noqa: PLC0415

    if not statements:
        if read_versions or started or writes or replace_where or txn or overwrite_mode:
            raise UsageError(
                "--read-version, --started-at, --writes, --replace-where, --txn and --partition-overwrite-mode go with --attempt"
            )
        return []
    for name, values in (("--read-version", read_versions), ("--started-at", started)):
        if len(values) not in (0, 1, len(statements)):
            raise UsageError(f"give {name} once, or once per --attempt ({len(statements)})")
    if not read_versions and not started:
        raise UsageError("--attempt needs --read-version N or --started-at TIMESTAMP")
    written = None
    if writes:
        try:
            written = dict(part.split("=", 1) for part in writes.split(",") if part.strip())
        except ValueError:
            raise UsageError('--writes takes "col=value,col2=value2"') from None
        written = {k.strip(): v.strip() for k, v in written.items()}
    app = None
    if txn:
        app_id, _, version = txn.rpartition(":")
        if not app_id or not version.isdigit():
            raise UsageError("--txn takes APPID:VERSION")
        app = (app_id, int(version))
    if overwrite_mode is not None and overwrite_mode.lower() not in ("dynamic", "static"):
        raise UsageError("--partition-overwrite-mode is dynamic or static")
    specs = []
    for i, sql in enumerate(statements):
        rv = read_versions[i if len(read_versions) > 1 else 0] if read_versions else None
        at = (
            _parse_time_ms(started[i if len(started) > 1 else 0])
            if started and rv is None
            else None
        )
        specs.append(
            AttemptSpec(
                sql=sql,
                read_version=rv,
                started_at_ms=at,
                profile_name=profile,
                writes=written,
                replace_where=replace_where,
                txn=app,
                partition_overwrite_mode=overwrite_mode,
            )
        )
    return specs


def _write_report(doc: dict[str, Any], fmt: ExplainFormat, output: Path | None) -> None:
    if fmt is ExplainFormat.rich:
        from rich.console import Console  # noqa: PLC0415

        from deltaforensics.report.to_rich import render_explain  # noqa: PLC0415

        if output is None:
            render_explain(doc, Console(highlight=False))
            return
        with output.open("w", encoding="utf-8") as fh:
            render_explain(doc, Console(file=fh, highlight=False, width=120, color_system=None))
        return
    if fmt is ExplainFormat.json:
        text = json.dumps(doc, indent=2, default=str) + "\n"
    elif fmt is ExplainFormat.html:
        from deltaforensics.report.to_html import to_html  # noqa: PLC0415

        text = to_html(doc)
    else:
        from deltaforensics.report.to_markdown import to_markdown  # noqa: PLC0415

        text = to_markdown(doc)
    if output is None:
        _emit(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None


def failing_findings(doc: dict[str, Any], fail_on: list[FailOn]) -> list[str]:
    """Which ``--fail-on`` selections the report triggers."""
    from deltaforensics.report.gates import fail_on_hits  # noqa: PLC0415

    return fail_on_hits(doc, [f.value for f in fail_on])


@app.command()
def whatif(
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
        WhatIfFormat, typer.Option("--format", help="json or markdown.")
    ] = None,  # type: ignore[assignment]
    error: ErrorOpt = None,
    attempt: AttemptOpt = None,
    read_version: ReadVersionOpt = None,
    started_at: StartedAtOpt = None,
    attempt_profile: AttemptProfileOpt = None,
    writes: WritesOpt = None,
    replace_where: ReplaceWhereOpt = None,
    txn: TxnOpt = None,
    partition_overwrite_mode: OverwriteModeOpt = None,
    storage_option: StorageOption = None,
    storage_options_file: StorageOptionsFile = None,
    redact: RedactOpt = False,
) -> None:
    """Which conflicts and fragile races a change would avoid or introduce, measured on this history."""
    STATE.redact = redact
    from deltaforensics.analysis import analyze, observed_attempts, open_store  # noqa: PLC0415
    from deltaforensics.report.document import whatif_document  # noqa: PLC0415
    from deltaforensics.whatif.scenario import (  # noqa: PLC0415
        DeletionVectors,
        ExplicitMergePredicates,
        IsolationChange,
        Liquid,
        PartitionBy,
        Scenario,
    )

    changes: list[Any] = []
    if partition_by:
        changes.append(PartitionBy(tuple(c.strip() for c in partition_by.split(",") if c.strip())))
    if isolation:
        if isolation.strip().lower() not in (
            "serializable",
            "writeserializable",
            "snapshotisolation",
        ):
            raise UsageError("--isolation is Serializable or WriteSerializable")
        changes.append(IsolationChange(isolation.strip()))
    if deletion_vectors:
        changes.append(DeletionVectors())
    if liquid:
        changes.append(Liquid(tuple(c.strip() for c in liquid.split(",") if c.strip())))
    if explicit_merge_predicates:
        changes.append(ExplicitMergePredicates())
    if not changes:
        raise UsageError(
            "name at least one change: --partition-by, --isolation, --deletion-vectors, --liquid, --explicit-merge-predicates"
        )
    specs = _attempt_specs(
        attempt or [],
        read_version or [],
        started_at or [],
        attempt_profile,
        writes,
        replace_where,
        txn,
        partition_overwrite_mode,
    )
    texts = [_read_error_text(e) for e in error or []]
    store = open_store(table, _storage_options(storage_option, storage_options_file))
    analysis = analyze(
        store, profile_name=profile, error_texts=texts, attempts=specs, recommendations=False
    )
    doc = _redacted(
        whatif_document(analysis, Scenario.of(*changes), attempts=observed_attempts(analysis)),
        redact,
        (t.commit_info for t in analysis.transactions),
    )
    if (output_format or WhatIfFormat.json) is WhatIfFormat.markdown:
        from deltaforensics.report.to_markdown import whatif_to_markdown  # noqa: PLC0415

        _emit(whatif_to_markdown(doc))
    else:
        _emit_json(doc)


class AuditFormat(StrEnum):
    table = "table"
    json = "json"


@app.command()
def audit(
    config: Annotated[
        Path, typer.Argument(help="The audit's TOML file: tables, storage, output directory.")
    ],
    state: Annotated[
        Path | None,
        typer.Option(
            "--state",
            help="Directory keeping each table's commit facts between runs: later runs read only new commits.",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Output directory (overrides the config's output)."),
    ] = None,
    fail_on: Annotated[
        list[FailOn] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when any table's report has these findings (repeatable; overrides the config).",
        ),
    ] = None,
    output_format: Annotated[
        AuditFormat, typer.Option("--format", help="Summary on stdout: table or json.")
    ] = AuditFormat.table,
    recommendations: Annotated[
        bool | None,
        typer.Option(
            "--recommendations/--no-recommendations",
            help="Run the what-if recommendations per table (default: the config's, else on).",
        ),
    ] = None,
    redact: RedactOpt = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", min=1, max=64, help="Tables read concurrently (analysis stays in order)."
        ),
    ] = 4,
    engine: EngineOpt = None,
    spark_master: SparkMasterOpt = "local[2]",
    spark_conf: SparkConfOpt = None,
) -> None:
    """Audit every table of a config: one report each, a summary, parquet datasets, kept state."""
    import os  # noqa: PLC0415
    from dataclasses import replace  # noqa: PLC0415

    from deltaforensics.audit.config import load_config  # noqa: PLC0415
    from deltaforensics.audit.core import AuditSettings  # noqa: PLC0415
    from deltaforensics.audit.run import run_audit  # noqa: PLC0415
    from deltaforensics.report.audit import audit_text  # noqa: PLC0415

    cfg = load_config(config, os.environ)
    if output is not None:
        cfg = replace(cfg, output=output.resolve())
    STATE.secrets = tuple(sorted({v for t in cfg.tables for v in _secrets_of(t.storage_options)}))
    chosen = tuple(f.value for f in fail_on) if fail_on else cfg.fail_on
    STATE.redact = redact
    settings = AuditSettings(
        recommendations=cfg.recommendations if recommendations is None else recommendations,
        redact=_document_redactor() if redact else None,
    )
    state_dir = state.resolve() if state is not None else cfg.state
    outcomes = None
    if engine is EngineName.spark:
        conf = _spark_settings(spark_conf)
        from deltaforensics.audit.on_spark import spark_outcomes  # noqa: PLC0415
        from deltaforensics.engines.spark_engine import spark_session  # noqa: PLC0415

        spark = spark_session(spark_master, conf)
        outcomes = spark_outcomes(
            cfg, spark=spark, state_dir=state_dir, fail_on=chosen, settings=settings
        )
    with _progress("auditing") as progress:
        summary = run_audit(
            cfg,
            state_dir=state_dir,
            fail_on=chosen,
            settings=settings,
            progress=progress,
            engine=(engine or EngineName.polars).value,
            outcomes=outcomes,
            jobs=jobs,
        )
    if output_format is AuditFormat.json:
        _emit_json(summary)
    else:
        _emit(audit_text(summary))
    if summary["exit_code"]:
        raise typer.Exit(summary["exit_code"])


def _document_redactor() -> Any:
    """One redactor for the whole run: a person keeps one pseudonym across every table."""
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    return lambda doc: redact_document(doc, redactor)


def _secrets_of(options: Any) -> set[str]:
    from deltaforensics.log.options import secret_values  # noqa: PLC0415

    return set(secret_values(options))


def _reporting(store: Any, progress: Any) -> Any:
    """The store, reporting read progress to an active progress bar."""
    if isinstance(progress, _NoProgress):
        return store
    from deltaforensics.log.storage import ReportingStore  # noqa: PLC0415

    def on_read(done: int, total: int) -> None:
        progress(done, total, "log files" if done < total else "log files read; analysing")

    return ReportingStore(store, on_read)


class _NoProgress:
    def __call__(self, done: int, total: int, label: str) -> None:
        return None


class _progress:  # noqa: N801 - used as a context manager: ``with _progress(...) as p``
    """A rich progress bar on stderr, only when stderr is a terminal and not ``--quiet``."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if STATE.quiet or not sys.stderr.isatty():
            return _NoProgress()
        from rich.console import Console  # noqa: PLC0415
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[label]}"),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.what, total=None, label="")
        return self._update

    def _update(self, done: int, total: int, label: str) -> None:
        self.bar.update(self.task, completed=done, total=total, label=label)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command()
def rules(
    code: Annotated[
        str | None, typer.Argument(help="A rule code such as DC010; all rules when omitted.")
    ] = None,
) -> None:
    """Document the conflict rules (Delta's checks, in Delta's order)."""
    from deltaforensics.conflicts.registry import RULES, rule_by_code  # noqa: PLC0415

    if code is None:
        for rule in RULES:
            _emit(f"{rule.code}  {rule.name:<26} {rule.exception}")
        return
    try:
        rule = rule_by_code(code)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    _emit(f"# {rule.code} {rule.name} ({rule.exception})\n{rule.doc.strip()}")


def _warn(diagnostics: list[dict[str, Any]]) -> None:
    if STATE.quiet:
        return
    for d in diagnostics:
        if d["severity"] != "info":
            where = f" (version {d['version']})" if d["version"] is not None else ""
            sys.stderr.write(f"{d['severity']}: {d['code']} {d['message']}{where}\n")


def _redact(text: str) -> str:
    """Remove every secret the user gave us (options, options file, environment)."""
    from deltaforensics.log.options import redact, secret_values, storage_options_from_env  # noqa: PLC0415

    secrets = set(secret_values(storage_options_from_env(os.environ)))
    secrets.update(s for s in STATE.secrets if s)
    text = redact(text, sorted(secrets))
    if STATE.redact:  # --redact covers error messages too (paths under /Users/<e-mail>/…)
        from deltaforensics.report.redact import Redactor  # noqa: PLC0415

        text = Redactor().redact_text(text)
    return text


def _one_table_then_exit() -> None:
    """When the process ends with this one table's command (:func:`entry`), pause the cyclic
    collector for all of it, not only the analysis: it would re-scan the objects the analysis
    keeps to the end, to free nothing (0.4 s of an explain of 100,000 commits)."""
    if STATE.ending:
        gc.disable()


def _keep(*results: Any) -> None:
    """Keep a command's results referenced when the process ends with the command
    (:func:`entry`): releasing an explain's millions of objects one by one took half a second
    at 100,000 commits, for nothing."""
    if STATE.ending:
        STATE.kept.extend(results)


def entry() -> NoReturn:
    """The console script and ``python -m deltaforensics``: :func:`main`, then the process
    ends at once. The output is flushed first (exit code 1 if it cannot be); the heap is left
    to the operating system instead of being released object by object and torn down by the
    interpreter (about a second after an explain of 100,000 commits). Nothing of ours runs at
    exit, and a Spark engine's JVM ends when its gateway pipe closes."""
    STATE.ending = True
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away: not all of the output arrived
            code = code or 1  # as typer exits when that happens while the command writes
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Console entry point; maps every outcome to an exit code."""
    try:
        # without standalone mode, click returns a command's typer.Exit code instead of raising
        returned = app(args=argv, standalone_mode=False)
        if isinstance(returned, int):
            return returned
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 130
    except typer_exceptions.TyperException as exc:  # usage: bad option, unknown command
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            sys.stderr.write(f"error: {exc}\n")
        return int(getattr(exc, "exit_code", 2) or 2)
    except UsageError as exc:
        sys.stderr.write(f"error: {_redact(str(exc))}\n")
        return 2
    except DeltaForensicsError as exc:
        if STATE.debug:
            sys.stderr.write(_redact("".join(traceback.format_exception(exc))))
        message = _redact(str(exc))
        sys.stderr.write(f"error: {message}\n")
        for note in getattr(exc, "__notes__", []):
            sys.stderr.write(f"{_redact(note)}\n")
        return 3
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:  # the reader of stdout went away: as typer exits when it sees that
        return 1
    except Exception as exc:
        if STATE.debug:
            sys.stderr.write(_redact("".join(traceback.format_exception(exc))))
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {_redact(str(exc))}\n"
            f"deltaforensics {__version__}, Python {sys.version.split()[0]}; "
            "please report this with --debug output\n"
        )
        return 4
    return 0


if __name__ == "__main__":  # pragma: no cover
    entry()
