"""Rich building blocks every terminal view shares: prose as styled text, findings as indented
trees with hanging indents, and tables fitted to the console's width.

Every string from the log goes through :func:`~deltaforensics.report.plain.visible` (control
characters shown, never obeyed) and is held in a :class:`~rich.text.Text`, never parsed as
markup. Long identifiers (writer ids, paths) wrap at the width; none is cut with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from deltaforensics.report.plain import visible
from deltaforensics.report.prose import Code, Explanation, Phrase

LEVEL_STYLES = {"conflict": "bold red", "fragile": "yellow", "ok": "green", "info": "cyan"}
MARKERS = {"conflict": "✗", "fragile": "!", "ok": "✓", "info": "·"}
CODE_STYLE = "cyan"


def safe(value: str) -> str:
    """A log string as terminal text: control characters written visibly (``\\x1b``)."""
    return visible(value, keep="\n")


def phrase_text(phrase: Phrase, style: str = "") -> Text:
    """A prose phrase as rich text: code pieces styled, nothing read as markup."""
    out = Text(style=style)
    for piece in phrase:
        if isinstance(piece, Code):
            out.append(safe(piece.text), style=CODE_STYLE)
        else:
            out.append(safe(piece))
    return out


def heading(console: Console, title: str, note: str = "") -> None:
    console.print()
    line = Text(title, style="bold underline")
    if note:
        line.append(f"  {note}", style="dim")
    console.print(line)


def labelled(rows: Sequence[tuple[str, RenderableType]], *, indent: int = 4) -> Table:
    """``label  text`` rows whose text wraps under itself (a hanging indent), ``indent``
    columns in from the left."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=max(0, indent - 1))
    grid.add_column(style="dim", no_wrap=True, justify="right")
    grid.add_column(ratio=1, overflow="fold")
    for label, body in rows:
        grid.add_row("", label, body)
    return grid


def finding(explanation: Explanation) -> RenderableType:
    """A finding as a tree: a marker and its headline, its details indented beneath it."""
    style = LEVEL_STYLES.get(explanation.level, "")
    head = Table.grid(padding=(0, 1))
    head.add_column(no_wrap=True)
    head.add_column(ratio=1, overflow="fold")
    head.add_row(
        Text(MARKERS.get(explanation.level, "·"), style=style),
        phrase_text(explanation.headline, "bold"),
    )
    details = labelled(
        [(label, phrase_text(body)) for label, body in explanation.details], indent=2
    )
    return Group(head, details)


def fitted_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str | Text]],
    *,
    title: str | None = None,
    no_wrap: Sequence[str] = (),
) -> Table:
    """A table that wraps its cells to the console width, folding a long identifier onto the
    next line instead of cutting it; columns in ``no_wrap`` (versions, counts) stay whole."""
    table = Table(title=title, title_justify="left", expand=False, pad_edge=False, box=None)
    table.show_edge = False
    for h in headers:
        table.add_column(
            h,
            header_style="bold",
            no_wrap=h in no_wrap,
            overflow="fold",
        )
    for row in rows:
        table.add_row(*(cell if isinstance(cell, Text) else Text(safe(cell)) for cell in row))
    return table
