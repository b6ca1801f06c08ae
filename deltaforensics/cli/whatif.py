"""``deltaforensics whatif``: what a change of layout or isolation would avoid or introduce."""

from __future__ import annotations

from typing import Annotated

import typer

from deltaforensics.cli.attempt_specs import attempt_specs, error_texts
from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import (
    AttemptOptions,
    RedactOpt,
    StorageAccess,
    TableArg,
    WhatIfFormat,
)
from deltaforensics.cli.output import emit, emit_json
from deltaforensics.cli.storage import storage_options


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
        WhatIfFormat, typer.Option("--format", help="json or markdown.")
    ] = None,  # type: ignore[assignment]
    *,
    attempts: AttemptOptions,
    storage: StorageAccess,
    redact: RedactOpt = False,
) -> None:
    """Which conflicts and fragile races a change would avoid or introduce, measured on this history.

    Example: deltaforensics whatif /lake/orders --partition-by date --format markdown
    """
    invocation = invocation_of(ctx)
    invocation.redact = redact
    from deltaforensics.api import whatif as whatif_report  # noqa: PLC0415

    specs = attempt_specs(attempts)
    texts = error_texts(attempts)
    report = whatif_report(
        table,
        partition_by=_columns(partition_by),
        isolation=isolation,
        deletion_vectors=deletion_vectors,
        liquid=_columns(liquid),
        explicit_merge_predicates=explicit_merge_predicates,
        profile=profile,
        errors=texts,
        attempts=specs,
        storage_options=storage_options(storage, invocation),
        redact=redact,
    )
    doc = report.to_dict()
    if (output_format or WhatIfFormat.json) is WhatIfFormat.markdown:
        from deltaforensics.report.to_markdown import whatif_to_markdown  # noqa: PLC0415

        emit(whatif_to_markdown(doc))
    else:
        emit_json(doc)


def _columns(text: str | None) -> tuple[str, ...]:
    """``"a, b,"`` as ``("a", "b")``."""
    return tuple(c.strip() for c in (text or "").split(",") if c.strip())
