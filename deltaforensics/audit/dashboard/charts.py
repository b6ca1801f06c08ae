"""The dashboard's pictures: a table's races over time (inline SVG) and who raced whom (a
coloured HTML table). Every number drawn is also written as text, and as ``data-`` attributes
that a browser test reads back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from deltaforensics.audit.dashboard.fleet import (
    TOP_WRITERS,
    RaceCounts,
    TableTimeline,
    WriterPair,
)
from deltaforensics.report.html.format import e, plural
from deltaforensics.report.plain import cut

# Timeline geometry (SVG user units; the SVG scales to its box).
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 150, 36, 12, 18, 30
_MINUTE = 60_000
HEADER_CHARS = 40  # a heatmap column's rotated name: longer ones are cut, whole in the title


def when(ms: int, width: int = 0) -> str:
    """A bucket's start as a reader wants it: the date, and the time when buckets are shorter
    than a day."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    if width >= 1440 * _MINUTE:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if width < _MINUTE else "%Y-%m-%d %H:%M UTC")


def width_words(width: int) -> str:
    seconds = width // 1000
    for unit, size in (("day", 86_400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            return plural(seconds // size, unit)
    return plural(seconds, "second")


def race_words(c: RaceCounts) -> str:
    parts = [plural(c.races, "race")]
    if c.races:
        parts.append(f"{c.fragile} fragile, {plural(c.predicted, 'predicted conflict')}")
    if c.seen:
        parts.append(plural(c.seen, "seen conflict"))
    return "; ".join(parts)


def counts_words(commits: int, c: RaceCounts) -> str:
    return f"{plural(commits, 'commit')}; {race_words(c)}"


def timeline(t: TableTimeline) -> str:
    """Commits per bucket in grey, the races among them stacked by outcome on top, and each
    bucket's race count written above it."""
    if not t.buckets:
        return f'<p class="muted">{plural(t.undated, "race")} with no commit time recorded.</p>'
    n = len(t.buckets)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max(max(b.commits, b.counts.races + b.counts.seen) for b in t.buckets) or 1
    step = plot_w / n
    bar = max(step * 0.8, 1.0)
    out = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="races over time in {e(t.table)}">',
        f'<text class="axis" x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{top}</text>',
        f'<text class="axis" x="{LEFT - 6}" y="{TOP + plot_h}" text-anchor="end">0</text>',
        f'<line class="grid" x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" '
        f'y2="{TOP + plot_h}"/>',
    ]

    def y(v: int) -> float:
        return round(v / top * plot_h, 1)

    for i, b in enumerate(t.buckets):
        x = round(LEFT + i * step + (step - bar) / 2, 1)
        c = b.counts
        label = f"{when(b.start, t.width)} (+{width_words(t.width)}): {counts_words(b.commits, c)}"
        attrs = (
            f'data-start="{b.start}" data-end="{b.end}" data-commits="{b.commits}" '
            f'data-races="{c.races}" data-fragile="{c.fragile}" '
            f'data-predicted="{c.predicted}" data-seen="{c.seen}"'
        )
        g = [f'<g class="bucket" {attrs}><title>{e(label)}</title>']
        base: float = TOP + plot_h
        g.append(_rect("commits", x, base, bar, y(b.commits)))
        stack = [("seen", c.seen), ("bad", c.predicted), ("warn", c.fragile)]
        stack.append(("ok", c.races - c.fragile - c.predicted))
        for cls, value in stack:
            if value:
                g.append(_rect(cls, x, base, bar, y(value)))
                base -= y(value)
        if c.races or c.seen:
            g.append(
                f'<text class="count" x="{round(x + bar / 2, 1)}" y="{base - 3}" '
                f'text-anchor="middle">{c.races + c.seen}</text>'
            )
        out.append("".join(g) + "</g>")
    first, last = t.buckets[0], t.buckets[-1]
    out += [
        f'<text class="axis" x="{LEFT}" y="{HEIGHT - 10}">{e(when(first.start, t.width))}</text>',
        f'<text class="axis" x="{WIDTH - RIGHT}" y="{HEIGHT - 10}" text-anchor="end">'
        f"{e(when(last.end, t.width))}</text>",
        "</svg>",
    ]
    note = f"{plural(n, 'bucket')} of {width_words(t.width)}"
    if t.undated:
        note += f"; {plural(t.undated, 'race')} with no commit time not drawn"
    return "".join(out) + f'<div class="small muted">{e(note)}</div>'


def _rect(cls: str, x: float, base: float, width: float, height: float) -> str:
    return (
        f'<rect class="{cls}" x="{x}" y="{round(base - height, 1)}" width="{round(width, 1)}" '
        f'height="{height}"/>'
    )


def heatmap(pairs: Sequence[WriterPair]) -> str:
    """Racing writer (rows) × the writer of the commits it raced against (columns): each cell
    the races, coloured by the worst outcome among them, conflicts written beside."""
    if not pairs:
        return '<p class="muted">No races: no writer committed over another.</p>'
    racers = _top([(p.racer, p.counts) for p in pairs])
    winners = _top([(p.winner, p.counts) for p in pairs])
    cells = {(p.racer, p.winner): p.counts for p in pairs}
    most = max(c.races + c.seen for c in cells.values()) or 1
    head = "".join(  # a long name is cut, whole on hover: a rotated header is a column's height
        f'<th class="col" title="{e(w)}"><span>{e(cut(w, HEADER_CHARS))}</span></th>'
        for w in winners
    )
    rows = []
    for r in racers:
        tds = []
        for w in winners:
            c = cells.get((r, w))
            if c is None:
                tds.append('<td class="heat none"></td>')
                continue
            cls = "bad" if c.conflicts else "warn" if c.fragile else "ok"
            strength = round(0.25 + 0.75 * (c.races + c.seen) / most, 2)
            title = f"{r} committed over {w}: {race_words(c)}"
            conflicts = f'<span class="x">{c.conflicts} ✗</span>' if c.conflicts else ""
            tds.append(
                f'<td class="heat {cls}" style="--a:{strength}" title="{e(title)}" '
                f'data-racer="{e(r)}" data-winner="{e(w)}" data-races="{c.races}" '
                f'data-fragile="{c.fragile}" data-conflicts="{c.conflicts}">'
                f'<span class="n">{c.races}</span>{conflicts}</td>'
            )
        rows.append(f'<tr><th class="row">{e(r)}</th>{"".join(tds)}</tr>')
    shown = f"{len(racers)} of {len({p.racer for p in pairs})} racing writers"
    return (
        '<div class="scroll"><table class="heatmap">'
        f'<thead><tr><th class="corner">racing writer ↓ · committed first →</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        f'<p class="small muted">{e(shown)}, the most involved first. A cell counts the races '
        "where the row's commit was rebased over at least one commit of the column's writer.</p>"
    )


def _top(named: Sequence[tuple[str, RaceCounts]]) -> list[str]:
    weight: dict[str, tuple[int, int, int]] = {}
    for name, c in named:
        a, b, d = weight.get(name, (0, 0, 0))
        weight[name] = (a + c.conflicts, b + c.fragile, d + c.races)
    ranked = sorted(weight, key=lambda n: (*(-v for v in weight[n]), n))
    return ranked[:TOP_WRITERS]
