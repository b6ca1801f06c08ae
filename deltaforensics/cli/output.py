"""Where a command's document goes: stdout or ``--output`` in the chosen format, diagnostics to
stderr."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from deltaforensics.cli.options import ExplainFormat, TableFormat
from deltaforensics.errors import UsageError
from deltaforensics.report.plain import visible

if TYPE_CHECKING:
    from rich.console import Console

    from deltaforensics.model.diagnostics import Diagnostic
    from deltaforensics.report.document import ExplainDocument, HistoryDocument, SnapshotDocument

D = TypeVar("D", "HistoryDocument", "SnapshotDocument")


def at_terminal() -> bool:
    """Whether stdout is a terminal: the human views are drawn for it; a pipe gets what scripts
    have always read (JSON, or the plain aligned tables).

    ``TTY_COMPATIBLE=1`` (rich's own switch) says a pipe is shown by a terminal (a CI log
    viewer, ``less -R``, a golden test); ``FORCE_COLOR`` is deliberately not read: CI systems
    set it for every step, and a pipe there must keep its JSON."""
    return sys.stdout.isatty() or os.environ.get("TTY_COMPATIBLE") == "1"


def terminal_console() -> Console:
    """The console the terminal views print to, as wide as the terminal."""
    from rich.console import Console  # noqa: PLC0415

    return Console(highlight=False)


def emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def emit_json(doc: Any) -> None:
    """A typed document (its JSON form) or JSON data, as JSON text."""
    from deltaforensics.report.document.entry import Entry  # noqa: PLC0415

    emit(json.dumps(doc.to_dict() if isinstance(doc, Entry) else doc, indent=2, default=str))


def write_report(doc: ExplainDocument, fmt: ExplainFormat, output: Path | None) -> None:
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
        text = json.dumps(doc.to_dict(), indent=2, default=str) + "\n"
    elif fmt is ExplainFormat.html:
        from deltaforensics.report.to_html import to_html  # noqa: PLC0415

        text = to_html(doc)
    else:
        from deltaforensics.report.to_markdown import to_markdown  # noqa: PLC0415

        text = to_markdown(doc)
    if output is None:
        emit(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None


def emit_table_or_json(
    doc: D,
    output_format: TableFormat,
    table_text: Callable[[D], str],
    *,
    quiet: bool,
    terminal_view: Callable[[D, Console], None] | None = None,
    markdown_view: Callable[[D], str] | None = None,
) -> None:
    """``doc`` as JSON; as ``markdown_view`` renders it for ``markdown``; at a terminal as
    ``terminal_view`` draws it (warnings included); else as ``table_text`` renders it; the
    warnings of markdown and plain tables on stderr."""
    if output_format is TableFormat.json:
        emit_json(doc)
    elif output_format is TableFormat.markdown and markdown_view is not None:
        emit(markdown_view(doc))
        warn(doc.diagnostics, quiet=quiet)
    elif terminal_view is not None and at_terminal():
        terminal_view(doc, terminal_console())
    else:
        emit(table_text(doc))
        warn(doc.diagnostics, quiet=quiet)


def warn(diagnostics: Sequence[Diagnostic], *, quiet: bool) -> None:
    if quiet:
        return
    for d in diagnostics:
        severity = str(d.severity)
        if severity != "info":
            where = f" (version {d.version})" if d.version is not None else ""
            sys.stderr.write(visible(f"{severity}: {d.code} {d.message}{where}") + "\n")
