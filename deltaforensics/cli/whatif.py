"""``deltaforensics whatif``: what a change of layout or isolation would avoid or introduce."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from deltaforensics.cli.attempt_specs import attempt_specs, error_texts, failure_input
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
from deltaforensics.cli.redaction import redacted
from deltaforensics.cli.storage import open_table, storage_options
from deltaforensics.cli.time_window import chosen_versions


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
            help="rich (default at a terminal), json (default otherwise) or markdown.",
        ),
    ] = None,  # type: ignore[assignment]
    show_all: Annotated[
        bool,
        typer.Option("--all", help="List every pair in the markdown, not only the first 50."),
    ] = False,
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
    from deltaforensics.analysis import analyze, observed_attempts  # noqa: PLC0415
    from deltaforensics.api import checked_profile, scenario_changes  # noqa: PLC0415
    from deltaforensics.report.document import whatif_document  # noqa: PLC0415
    from deltaforensics.whatif.document import compare_scenario  # noqa: PLC0415
    from deltaforensics.whatif.scenario import Scenario  # noqa: PLC0415

    checked_profile(profile)
    changes = scenario_changes(
        partition_by=_columns(partition_by or ""),
        isolation=isolation,
        deletion_vectors=deletion_vectors,
        liquid=_columns(liquid or ""),
        explicit_merge_predicates=explicit_merge_predicates,
    )
    specs = attempt_specs(attempts)
    texts = error_texts(attempts)
    store = open_table(table, storage, invocation, catalog)
    versions = chosen_versions(store, window, from_version=None, to_version=None, error_texts=texts)
    analysis = analyze(
        store,
        from_version=versions.from_version,
        to_version=versions.to_version,
        profile_name=profile,
        error_texts=texts,
        attempts=specs,
        recommendations=False,
        window_from=versions.window_from,
        listing=versions.listing,
        prefetched=versions.prefetched,
        failures=failure_input(attempts, storage_options(storage, invocation), versions.window),
    )
    comparison = compare_scenario(
        analysis, Scenario.of(*changes), attempts=observed_attempts(analysis)
    )
    doc = redacted(
        whatif_document(analysis, comparison), redact, analysis.transactions.commit_infos()
    )
    doc = replace(doc, time_window=versions.window)
    fmt = output_format or (WhatIfFormat.rich if at_terminal() else WhatIfFormat.json)
    if fmt is WhatIfFormat.markdown:
        from deltaforensics.report.to_markdown import whatif_to_markdown  # noqa: PLC0415

        emit(whatif_to_markdown(doc, max_rows=len(doc.pairs) + 1 if show_all else 50))
    elif fmt is WhatIfFormat.rich:
        from deltaforensics.report.terminal_views import render_whatif  # noqa: PLC0415

        render_whatif(doc, terminal_console())
    else:
        emit_json(doc)


def _columns(text: str) -> tuple[str, ...]:
    """``"a, b,"`` as ``("a", "b")``."""
    return tuple(c.strip() for c in text.split(",") if c.strip())
