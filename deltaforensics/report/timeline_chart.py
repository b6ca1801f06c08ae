"""The races as a compact chart: one bar per race from the version it read to the version it
committed, its winners marked on the bar, the outcome at its end.

The version axis is scaled to the width left after the labels, so the chart fits 80 columns
whatever the history's length; versions that share a cell share a mark. The HTML report draws
the same picture (read → commit) in SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from deltaforensics.report.terminal import LEVEL_STYLES, MARKERS

MIN_BAR = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class Bar:
    """One row: ``label`` (``v1→v5 MERGE``), the read and commit versions (``None`` for a
    statement that never committed), the winners and how it ended."""

    label: str
    read_version: int
    end_version: int
    winners: tuple[int, ...]
    level: str
    outcome: str


@dataclass(frozen=True, slots=True)
class TimelineChart:
    bars: Sequence[Bar]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        bars = self.bars
        label_w = max(len(b.label) for b in bars)
        outcome_w = max(len(b.outcome) for b in bars) + 2
        width = max(MIN_BAR, options.max_width - label_w - outcome_w - 2)
        lo = min(b.read_version for b in bars)
        hi = max(max(b.end_version, *b.winners, b.end_version) for b in bars)
        span = max(1, hi - lo)

        def cell(version: int) -> int:
            return round((version - lo) * (width - 1) / span)

        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, width=width)
        grid.add_column(no_wrap=True)
        grid.add_row(Text(""), _axis(lo, hi, width), Text(""))
        for b in bars:
            style = LEVEL_STYLES.get(b.level, "")
            row = [" "] * width
            start, end = cell(b.read_version), cell(b.end_version)
            for i in range(start, end):
                row[i] = "─"
            row[start] = "├"
            for w in b.winners:
                if lo <= w <= hi and cell(w) != end:
                    row[cell(w)] = "▲"
            row[end] = MARKERS.get(b.level, "●") if b.level != "ok" else "●"
            bar = Text()
            for i, ch in enumerate(row):
                bar.append(ch, style=style if i == end else ("magenta" if ch == "▲" else "dim"))
            grid.add_row(Text(b.label), bar, Text(b.outcome, style=style))
        yield grid
        yield Text("├ read  ▲ winner  ● committed  ! fragile  ✗ fails", style="dim")


def _axis(lo: int, hi: int, width: int) -> Text:
    left, right = f"v{lo}", f"v{hi}"
    gap = max(1, width - len(left) - len(right))
    return Text(left + " " * gap + right, style="dim")
