"""``deltaforensics rules``: the documentation of every code the reports carry."""

from __future__ import annotations

from typing import Annotated

import typer

from deltaforensics.cli.output import at_terminal, emit, terminal_console
from deltaforensics.errors import UsageError


def rules(
    code: Annotated[
        str | None,
        typer.Argument(help="A code such as DC010, AN003 or W401; every code when omitted."),
    ] = None,
) -> None:
    """Document the conflict rules (Delta's checks, in Delta's order), anomalies and diagnostics.

    Example: deltaforensics rules DC010
    """
    from deltaforensics.report.catalogue import listing, page  # noqa: PLC0415

    if at_terminal():
        from deltaforensics.report.terminal_views import render_rules  # noqa: PLC0415

        try:
            render_rules(code, terminal_console())
        except KeyError as exc:
            raise UsageError(str(exc.args[0])) from None
        return
    if code is None:
        emit(listing())
        return
    try:
        text = page(code)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    emit(text)
