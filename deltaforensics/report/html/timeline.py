"""The report's SVG timeline: one bar per race or conflict, from read version to commit."""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.explain import ExplainDocument, Race
from deltaforensics.report.html.format import e, race_status
from deltaforensics.report.plain import commit_summary, commits_by_version, missing_text
from deltaforensics.report.prose import fragility_words

MAX_TIMELINE_ROWS = 400
LABEL_CHARS = 34
# Timeline geometry (SVG user units; the SVG scales to the page width).
WIDTH, LEFT, RIGHT, TOP, ROW = 1200, 270, 40, 44, 24
LEGEND = (
    '<div class="legend">'
    '<span><span class="sw" style="background:var(--ok)"></span>race: commits safely</span>'
    '<span><span class="sw" style="background:var(--warn)"></span>race: fragile (one change from a conflict)</span>'
    '<span><span class="sw" style="background:var(--bad)"></span>race: model predicts a conflict</span>'
    '<span><span class="sw" style="background:var(--conflict)"></span>conflict (✗ = never committed)</span>'
    "<span>◆ winner · ◇ first and last of winners missing from the log · bar = read version → "
    "commit version</span></div>"
)


@dataclass(frozen=True, slots=True)
class Bar:
    order: tuple[int, int, int]  # sort key: end version, start version, position in the document
    label: str
    title: str
    start: int
    end: int
    marks: tuple[int, ...]
    missing: tuple[tuple[int, int], ...]  # ranges, [first, last]
    cls: str
    href: str
    failed: bool


def _race_bar(i: int, r: Race) -> Bar:
    title = (
        f"v{r.version} {r.operation}: read v{r.read_version}, rebased over "
        f"{', '.join(map(str, r.winners)) or '-'}; {r.outcome}" + (f" ({r.code})" if r.code else "")
    )
    if r.fragile_under:
        title += ". " + fragility_words(r)
    assert r.read_version is not None  # a race read an older version
    return Bar(
        (r.version, r.read_version, i),
        f"v{r.version} {r.operation}",
        title,
        r.read_version,
        r.version,
        tuple(r.winners),
        tuple(r.missing_winners or ()),
        race_status(r),
        f"#race-{i}",
        failed=False,
    )


def _conflict_bar(i: int, c: Conflict) -> Bar | None:
    loser = c.loser
    winners = (c.winner_version,) if c.winner_version is not None else tuple(c.candidates or ())
    known = [v for v in (loser.version, *winners) if v is not None]
    end = loser.version if loser.version is not None else max(known, default=None)
    start = loser.read_version if loser.read_version is not None else end
    if end is None or start is None:
        return None  # nothing on the version axis to draw
    who = f"v{loser.version}" if loser.version is not None else loser.statement or "not committed"
    title = f"{c.source} conflict: {who} read v{start}; {c.exception}" + (
        f" against v{c.winner_version}" if c.winner_version is not None else ""
    )
    return Bar(
        (end, start, 10**9 + i),
        f"✗ {c.source} {who}",
        title,
        min(start, end),
        end,
        winners,
        (),
        "conflict",
        f"#conflict-{i}",
        failed=loser.version is None,
    )


def bars(doc: ExplainDocument) -> list[Bar]:
    found = [_race_bar(i, r) for i, r in enumerate(doc.races)]
    found += [b for i, c in enumerate(doc.conflicts) if (b := _conflict_bar(i, c)) is not None]
    if len(found) > MAX_TIMELINE_ROWS:  # keep the rows that matter, then restore time order
        rank = {"conflict": 0, "bad": 1, "warn": 2, "ok": 3}
        found = sorted(found, key=lambda b: (rank[b.cls], b.order))[:MAX_TIMELINE_ROWS]
    return sorted(found, key=lambda b: b.order)


def ticks(lo: int, hi: int) -> list[int]:
    span = max(hi - lo, 1)
    step = 1
    while span / step > 12:
        for m in (2, 5, 10):
            if span / (step * m) <= 12:
                step *= m
                break
        else:
            step *= 10
    first = -(-lo // step) * step
    return list(range(first, hi + 1, step))


def timeline(doc: ExplainDocument) -> str:
    drawn = bars(doc)
    commits = commits_by_version(doc.commits)
    if not drawn:
        return '<p class="muted">No races or conflicts: nothing to draw.</p>'
    points = [v for b in drawn for v in (b.start, b.end, *b.marks, *_ends(b.missing))]
    lo, hi = min(points), max(points)
    hi = hi if hi > lo else lo + 1
    plot = WIDTH - LEFT - RIGHT

    def x(v: int) -> float:
        return round(LEFT + (v - lo) / (hi - lo) * plot, 1)

    height = TOP + len(drawn) * ROW + 16
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        'role="img" aria-label="commit timeline">'
    ]
    for t in ticks(lo, hi):
        out.append(
            f'<line class="grid" x1="{x(t)}" y1="{TOP - 10}" x2="{x(t)}" y2="{height - 8}"/>'
            f'<text class="axis" x="{x(t)}" y="{TOP - 16}" text-anchor="middle">{t}</text>'
        )
    out.append(f'<text class="axis" x="8" y="{TOP - 16}">version →</text>')
    for n, b in enumerate(drawn):
        yc = TOP + n * ROW + ROW // 2
        x0, x1 = x(b.start), x(b.end)
        label = b.label if len(b.label) <= LABEL_CHARS else b.label[: LABEL_CHARS - 1] + "…"
        cls = f"bar {b.cls}" + (" failed" if b.failed else "")
        row = [
            f'<a href="{b.href}"><title>{e(b.title)}</title>',
            f'<text x="{LEFT - 8}" y="{yc + 4}" text-anchor="end">{e(label)}</text>',
            f'<rect class="{cls}" x="{x0 - 2}" y="{yc - 6}" width="{max(x1 - x0, 0) + 4}" height="12" rx="3"/>',
        ]
        row += [
            _diamond(x(w), yc, "win", f"winner {commit_summary(commits.get(w), w)}")
            for w in b.marks
        ]
        for first, last in b.missing:  # a range's two ends: 10,000 missing winners, two marks
            gone = f"{missing_text([(first, last)])} from the retained log"
            row += [_diamond(x(w), yc, "missing", gone) for w in sorted({first, last})]
        if b.failed:
            row.append(f'<path class="cross" d="M{x1 + 5} {yc - 5}l8 8m0 -8l-8 8"/>')
        out.append("".join(row) + "</a>")
    out.append("</svg>")
    note = ""
    total = len(doc.races) + len(doc.conflicts)
    if len(drawn) < total:
        note = f'<p class="small muted">Showing {len(drawn)} of {total} rows (conflicts and risky races first).</p>'
    return "\n".join(out) + "\n" + LEGEND + note


def _ends(ranges: tuple[tuple[int, int], ...]) -> list[int]:
    return [v for pair in ranges for v in pair]


def _diamond(cx: float, cy: int, cls: str, title: str) -> str:
    return (
        f'<path class="{cls}" d="M{cx} {cy - 6}l5 6l-5 6l-5 -6z"><title>{e(title)}</title></path>'
    )
