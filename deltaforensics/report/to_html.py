"""The explain report as ONE self-contained HTML page: inline CSS and SVG, no script, no network.

Takes the explain JSON document (the contract), never internal objects, and only formats it.
Every string from the document is HTML-escaped: predicates, user names and paths come from a
log that anyone with write access controls. A Content-Security-Policy forbids scripts and every
fetch, so a mistake here still cannot run code or call out. Output is deterministic: the same
document gives the same bytes (no clock, no randomness, dict order as in the document).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from deltaforensics.report.plain import change_text, commit_summary

MAX_TIMELINE_ROWS = 400
MAX_FILES_SHOWN = 5
_LABEL_CHARS = 34
# Timeline geometry (SVG user units; the SVG scales to the page width).
_WIDTH, _LEFT, _RIGHT, _TOP, _ROW = 1200, 270, 40, 44, 24

_CSS = """
:root{--ok:#2e7d32;--warn:#e0a100;--bad:#c62828;--conflict:#7f1d1d;--muted:#5f6b7a;--line:#d9dee5;
--bg:#fff;--fg:#1d2430;--zebra:#f6f8fa;--code:#eef1f5}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1400px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:22px;margin:0 0 12px;overflow-wrap:anywhere}
h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
code,pre{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
code{background:var(--code);padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}
pre{background:var(--code);padding:8px 10px;border-radius:4px;margin:0;white-space:pre-wrap;overflow-wrap:anywhere;
min-width:220px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.muted{color:var(--muted)}.small{font-size:12px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0 4px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:130px}
.card b{display:block;font-size:22px}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border:1px solid var(--line);padding:5px 7px;text-align:left;vertical-align:top}
th{background:var(--zebra);font-weight:600}
.scroll{overflow-x:auto}
tbody tr:nth-child(even){background:#fbfcfd}
.num{font-variant-numeric:tabular-nums;white-space:nowrap}
tr.ok td:first-child{border-left:4px solid var(--ok)}
tr.warn td:first-child{border-left:4px solid var(--warn)}
tr.bad td:first-child,tr.conflict td:first-child{border-left:4px solid var(--bad)}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;color:#fff;
background:var(--muted);white-space:nowrap}
.badge.ok,.badge.info{background:var(--ok)}.badge.warn,.badge.warning{background:var(--warn);color:#222}
.badge.bad,.badge.error,.badge.conflict{background:var(--bad)}
.badge.high{background:#1f6f43}.badge.medium{background:#8a6d00}.badge.low{background:#8b2f2f}
ul.plain{margin:0;padding-left:16px}
details summary{cursor:pointer;color:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:16px;font-size:12px;color:var(--muted);margin:4px 0}
.sw{display:inline-block;width:22px;height:10px;border-radius:2px;vertical-align:middle;margin-right:5px}
svg.timeline{width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg .bar.ok{fill:var(--ok)}svg .bar.warn{fill:var(--warn)}svg .bar.bad{fill:var(--bad)}
svg .bar.conflict{fill:var(--conflict)}svg .bar.failed{fill-opacity:.55;stroke:var(--conflict);
stroke-dasharray:4 2}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:var(--fg)}
svg .grid{stroke:#eceff3}svg .axis{fill:var(--muted)}
svg .win{fill:#111}svg .missing{fill:#fff;stroke:#555;stroke-dasharray:2 1}
svg .cross{stroke:#111;stroke-width:2}
footer{margin-top:36px;color:var(--muted);font-size:12px}
"""
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def to_html(doc: dict[str, Any]) -> str:
    """Render an explain document (``report-v1``) as a standalone HTML page."""
    table = doc["table"]
    body = [
        _header(doc),
        _cards(doc),
        _section("Timeline", _timeline(doc), "timeline"),
        _section("Races", _races(doc.get("races") or []), "races"),
        _section("Conflicts", _conflicts(doc.get("conflicts") or [], _commits(doc)), "conflicts"),
        _section("Attempts", _attempts(doc.get("attempts") or []), "attempts"),
        _section("Anomalies", _anomalies(doc.get("anomalies") or []), "anomalies"),
        _section(
            "Recommendations", _recommendations(doc.get("recommendations") or []), "recommendations"
        ),
        _section("Diagnostics", _diagnostics(doc.get("diagnostics") or []), "diagnostics"),
        _footer(doc),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>deltaforensics explain: {_e(table['uri'])}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


# --- small formatting helpers (each returns HTML-safe text) ---------------------------------


def _e(value: Any) -> str:
    """Escape any JSON value for HTML text or a quoted attribute."""
    if value is None:
        return ""
    if isinstance(value, str):
        return escape(value, quote=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return escape(str(value))
    return escape(json.dumps(value, sort_keys=True, ensure_ascii=False), quote=True)


def _code(value: Any) -> str:
    return (
        f"<code>{_e(value)}</code>" if value not in (None, "") else '<span class="muted">—</span>'
    )


def _or_dash(html: str) -> str:
    return html if html else '<span class="muted">—</span>'


def _versions(versions: Iterable[int]) -> str:
    """``[9, 10, 11, 14]`` -> ``9–11, 14``."""
    runs: list[list[int]] = []
    for v in versions:
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(_e(r[0]) if len(r) == 1 else f"{_e(r[0])}–{_e(r[-1])}" for r in runs)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _badge(text: Any, cls: Any) -> str:
    return f'<span class="badge {_e(cls)}">{_e(text)}</span>'


def _files(paths: Sequence[str]) -> str:
    if not paths:
        return _or_dash("")
    shown = "".join(f"<li><code>{_e(p)}</code></li>" for p in paths[:MAX_FILES_SHOWN])
    rest = paths[MAX_FILES_SHOWN:]
    more = ""
    if rest:
        items = "".join(f"<li><code>{_e(p)}</code></li>" for p in rest)
        more = (
            f'<details><summary>{len(rest)} more</summary><ul class="plain">{items}</ul></details>'
        )
    return f'<ul class="plain">{shown}</ul>{more}'


def _table(
    headers: Sequence[str], rows: Sequence[tuple[str, str, Sequence[str]]], empty: str
) -> str:
    """``rows``: (id, css class, cells as HTML)."""
    if not rows:
        return f'<p class="muted">{_e(empty)}</p>'
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "\n".join(
        f'<tr id="{_e(rid)}" class="{_e(cls)}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        for rid, cls, cells in rows
    )
    return f'<div class="scroll"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table></div>'


def _section(title: str, content: str, anchor: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(title)}</h2>\n{content}\n</section>'


def race_status(race: dict[str, Any]) -> str:
    """``bad``: the model predicts a conflict; ``warn``: one change away from one; else ``ok``."""
    if race["outcome"] != "commits":
        return "bad"
    return "warn" if race.get("fragile_under") else "ok"


def _outcome(outcome: Any, code: Any) -> str:
    if outcome == "commits":
        return "commits"
    return f"{_e(outcome)}" + (f' <span class="muted">({_e(code)})</span>' if code else "")


# --- sections -------------------------------------------------------------------------------


def _header(doc: dict[str, Any]) -> str:
    t = doc["table"]
    iso = t["isolation_level"]
    profiles = sorted({r["profile"] for r in doc.get("races") or []})
    writers = _e(", ".join(t["engines_seen"])) or '<span class="muted">none recorded</span>'
    if profiles:
        writers += f' <span class="muted">· checker profiles: {_e(", ".join(profiles))}</span>'
    facts = [
        (
            "Versions",
            f"{_e(t['first_version'])} – {_e(t['latest_version'])} "
            f'<span class="muted">({_e(t["num_commits"])} commits, {_e(t["num_files"])} live files)</span>',
        ),
        (
            "Isolation level",
            f'<b>{_e(iso["value"])}</b> <span class="muted">({_e(iso["source"])})</span>',
        ),
        ("Writers", writers),
        ("Partitioned by", _or_dash(_e(", ".join(t["partition_columns"])))),
        ("Clustered by", _or_dash(_e(", ".join(t["clustering_columns"])))),
        ("Table features", _or_dash(_e(", ".join(t["features"])))),
    ]
    rows = "\n".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return f'<header>\n<h1>Write conflicts in {_code(t["uri"])}</h1>\n<dl class="facts">\n{rows}\n</dl>\n</header>'


def _cards(doc: dict[str, Any]) -> str:
    races = doc.get("races") or []
    status = [race_status(r) for r in races]
    anomalies = doc.get("anomalies") or []
    diags = doc.get("diagnostics") or []
    cards = [
        (
            "Races",
            len(races),
            f"{status.count('warn')} fragile, {_plural(status.count('bad'), 'predicted conflict')}",
        ),
        ("Conflicts", len(doc.get("conflicts") or []), "seen or predicted failures"),
        ("Attempts", len(doc.get("attempts") or []), "statements checked"),
        (
            "Anomalies",
            len(anomalies),
            _plural(sum(a["severity"] == "error" for a in anomalies), "error"),
        ),
        ("Recommendations", len(doc.get("recommendations") or []), "changes evaluated"),
        (
            "Diagnostics",
            len(diags),
            f"{sum(d['severity'] != 'info' for d in diags)} warnings or errors",
        ),
    ]
    html = "".join(
        f'<div class="card"><span class="muted">{_e(n)}</span><b>{_e(c)}</b>'
        f'<span class="small muted">{_e(s)}</span></div>'
        for n, c, s in cards
    )
    return f'<div class="cards">{html}</div>'


@dataclass(frozen=True, slots=True)
class _Bar:
    order: tuple[int, int, int]  # sort key: end version, start version, position in the document
    label: str
    title: str
    start: int
    end: int
    marks: tuple[int, ...]
    missing: tuple[int, ...]
    cls: str
    href: str
    failed: bool


def _bars(doc: dict[str, Any]) -> list[_Bar]:
    bars: list[_Bar] = []
    for i, r in enumerate(doc.get("races") or []):
        title = (
            f"v{r['version']} {r['operation']}: read v{r['read_version']}, rebased over "
            f"{', '.join(map(str, r['winners'])) or '-'}; {r['outcome']}"
            + (f" ({r['code']})" if r.get("code") else "")
        )
        if r.get("fragile_under"):
            title += "; fragile under " + ", ".join(f["change"] for f in r["fragile_under"])
        bars.append(
            _Bar(
                (r["version"], r["read_version"], i),
                f"v{r['version']} {r['operation']}",
                title,
                r["read_version"],
                r["version"],
                tuple(r["winners"]),
                tuple(r.get("missing_winners") or ()),
                race_status(r),
                f"#race-{i}",
                failed=False,
            )
        )
    for i, c in enumerate(doc.get("conflicts") or []):
        loser = c["loser"]
        winners = (
            (c["winner_version"],)
            if c.get("winner_version") is not None
            else tuple(c.get("candidates") or ())
        )
        known = [v for v in (loser.get("version"), *winners) if v is not None]
        end = loser["version"] if loser.get("version") is not None else max(known, default=None)
        start = loser["read_version"] if loser.get("read_version") is not None else end
        if end is None or start is None:
            continue  # nothing on the version axis to draw
        who = (
            f"v{loser['version']}"
            if loser.get("version") is not None
            else loser.get("statement") or "not committed"
        )
        title = f"{c['source']} conflict: {who} read v{start}; {c['exception']}" + (
            f" against v{c['winner_version']}" if c.get("winner_version") is not None else ""
        )
        bars.append(
            _Bar(
                (end, start, 10**9 + i),
                f"✗ {c['source']} {who}",
                title,
                min(start, end),
                end,
                winners,
                (),
                "conflict",
                f"#conflict-{i}",
                failed=loser.get("version") is None,
            )
        )
    if len(bars) > MAX_TIMELINE_ROWS:  # keep the rows that matter, then restore time order
        rank = {"conflict": 0, "bad": 1, "warn": 2, "ok": 3}
        bars = sorted(bars, key=lambda b: (rank[b.cls], b.order))[:MAX_TIMELINE_ROWS]
    return sorted(bars, key=lambda b: b.order)


def _ticks(lo: int, hi: int) -> list[int]:
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


def _timeline(doc: dict[str, Any]) -> str:
    bars = _bars(doc)
    if not bars:
        return '<p class="muted">No races or conflicts: nothing to draw.</p>'
    points = [v for b in bars for v in (b.start, b.end, *b.marks, *b.missing)]
    lo, hi = min(points), max(points)
    hi = hi if hi > lo else lo + 1
    plot = _WIDTH - _LEFT - _RIGHT

    def x(v: int) -> float:
        return round(_LEFT + (v - lo) / (hi - lo) * plot, 1)

    height = _TOP + len(bars) * _ROW + 16
    out = [
        f'<svg class="timeline" viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" '
        'role="img" aria-label="commit timeline">'
    ]
    for t in _ticks(lo, hi):
        out.append(
            f'<line class="grid" x1="{x(t)}" y1="{_TOP - 10}" x2="{x(t)}" y2="{height - 8}"/>'
            f'<text class="axis" x="{x(t)}" y="{_TOP - 16}" text-anchor="middle">{t}</text>'
        )
    out.append(f'<text class="axis" x="8" y="{_TOP - 16}">version →</text>')
    for n, b in enumerate(bars):
        yc = _TOP + n * _ROW + _ROW // 2
        x0, x1 = x(b.start), x(b.end)
        label = b.label if len(b.label) <= _LABEL_CHARS else b.label[: _LABEL_CHARS - 1] + "…"
        cls = f"bar {b.cls}" + (" failed" if b.failed else "")
        row = [
            f'<a href="{b.href}"><title>{_e(b.title)}</title>',
            f'<text x="{_LEFT - 8}" y="{yc + 4}" text-anchor="end">{_e(label)}</text>',
            f'<rect class="{cls}" x="{x0 - 2}" y="{yc - 6}" width="{max(x1 - x0, 0) + 4}" height="12" rx="3"/>',
        ]
        row += [_diamond(x(w), yc, "win", f"winner v{w}") for w in b.marks]
        row += [_diamond(x(w), yc, "missing", f"v{w}: not in the retained log") for w in b.missing]
        if b.failed:
            row.append(f'<path class="cross" d="M{x1 + 5} {yc - 5}l8 8m0 -8l-8 8"/>')
        out.append("".join(row) + "</a>")
    out.append("</svg>")
    legend = (
        '<div class="legend">'
        '<span><span class="sw" style="background:var(--ok)"></span>race: commits safely</span>'
        '<span><span class="sw" style="background:var(--warn)"></span>race: fragile (one change from a conflict)</span>'
        '<span><span class="sw" style="background:var(--bad)"></span>race: model predicts a conflict</span>'
        '<span><span class="sw" style="background:var(--conflict)"></span>conflict (✗ = never committed)</span>'
        "<span>◆ winner · ◇ winner missing from the log · bar = read version → commit version</span></div>"
    )
    note = ""
    total = len(doc.get("races") or []) + len(doc.get("conflicts") or [])
    if len(bars) < total:
        note = f'<p class="small muted">Showing {len(bars)} of {total} rows (conflicts and risky races first).</p>'
    return "\n".join(out) + "\n" + legend + note


def _diamond(cx: float, cy: int, cls: str, title: str) -> str:
    return (
        f'<path class="{cls}" d="M{cx} {cy - 6}l5 6l-5 6l-5 -6z"><title>{_e(title)}</title></path>'
    )


def _races(races: list[dict[str, Any]]) -> str:
    rows = []
    for i, r in enumerate(races):
        winners = _versions(r["winners"])
        if r.get("missing_winners"):
            winners += f' <span class="muted">(missing: {_versions(r["missing_winners"])})</span>'
        fragile = "".join(
            f"<li>{_e(f['change'])} → {_e(f['outcome'])}"
            + (f" vs v{_e(f['winner_version'])}" if f.get("winner_version") is not None else "")
            + "</li>"
            for f in r.get("fragile_under") or []
        )
        iso = r["isolation_level"]
        cells = [
            f"v{_e(r['version'])}",
            _e(r["read_version"]),
            _or_dash(winners),
            _e(r["operation"]),
            f"{_outcome(r['outcome'], r.get('code'))}<div>{_badge(r['confidence'], r['confidence'])}</div>",
            f'{_code(r.get("read_predicate"))}<div class="small muted">{_e(r["read_reason"])}</div>',
            _e(r["reason"]),
            f'<ul class="plain">{fragile}</ul>' if fragile else _or_dash(""),
            f'{_e(iso["value"])}<div class="small muted">{_e(iso["source"])}</div>'
            f'<div class="small">{_e(r["profile"])}</div>',
        ]
        rows.append((f"race-{i}", race_status(r), cells))
    headers = [
        "Version",
        "Read",
        "Winners",
        "Operation",
        "Outcome",
        "Read predicate",
        "Why",
        "Fragile under",
        "Isolation · profile",
    ]
    return _table(headers, rows, "No races: every commit read the version just before it.")


def _commits(doc: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {c["version"]: c for c in doc.get("commits") or []}


def _conflicts(conflicts: list[dict[str, Any]], commits: dict[int, dict[str, Any]]) -> str:
    rows = []
    for i, c in enumerate(conflicts):
        loser = c["loser"]
        who = (
            f"v{_e(loser['version'])}"
            if loser.get("version") is not None
            else '<span class="muted">not committed</span>'
        )
        if loser.get("statement"):
            who += f"<div>{_code(loser['statement'])}</div>"
        if c.get("winner_version") is not None:
            v = c["winner_version"]
            winner = f"v{_e(v)}"
            if v in commits:
                winner += f'<div class="small muted">{_e(commit_summary(commits[v], v))}</div>'
        else:
            winner = f"one of {_versions(c['candidates'])}" if c.get("candidates") else ""
        parts = "".join(
            "<li>"
            + _e(", ".join(f"{k}={'null' if v is None else v}" for k, v in p.items()))
            + "</li>"
            for p in c.get("partitions") or []
        )
        cells = [
            _e(c["source"]),
            who,
            _or_dash(_e(loser.get("read_version"))),
            _or_dash(winner),
            _outcome(c["exception"], c.get("code")),
            _badge(c["confidence"], c["confidence"]),
            f'<ul class="plain">{parts}</ul>' if parts else _or_dash(""),
            _files(c.get("files") or []),
            _e(c["reason"]),
        ]
        rows.append((f"conflict-{i}", "conflict", cells))
    headers = [
        "Source",
        "Loser",
        "Read",
        "Winner",
        "Exception",
        "Confidence",
        "Partitions",
        "Files",
        "Why",
    ]
    return _table(headers, rows, "No conflicts.")


def _attempts(attempts: list[dict[str, Any]]) -> str:
    rows = []
    for i, a in enumerate(attempts):
        winner = f"v{_e(a['winner_version'])}" if a.get("winner_version") is not None else ""
        cls = "ok" if a["outcome"] == "commits" else "bad"
        cells = [
            _code(a["statement"]),
            _or_dash(_e(a.get("read_version"))),
            _e(a["profile"]),
            _outcome(a["outcome"], a.get("code")),
            _or_dash(winner),
            _e(a["reason"]),
        ]
        rows.append((f"attempt-{i}", cls, cells))
    return _table(
        ["Statement", "Read", "Profile", "Outcome", "Winner", "Why"],
        rows,
        "No attempted statements were checked.",
    )


def _anomalies(anomalies: list[dict[str, Any]]) -> str:
    rows = [
        (
            f"anomaly-{i}",
            "bad" if a["severity"] == "error" else "warn" if a["severity"] == "warning" else "ok",
            [
                _badge(a["severity"], a["severity"]),
                _e(a["code"]),
                _e(a["kind"]),
                _or_dash(_versions(a["versions"])),
                _files(a.get("files") or []),
                _e(a["reason"]),
            ],
        )
        for i, a in enumerate(anomalies)
    ]
    return _table(
        ["Severity", "Code", "Kind", "Versions", "Files", "Reason"], rows, "No anomalies."
    )


def evaluated_text(ev: dict[str, Any]) -> str:
    return (
        f"{ev['races']} races, {ev['errors']} errors, {ev['attempts']} attempts, "
        f"{ev['writer_pairs']} writer pairs"
    )


def _recommendations(recs: list[dict[str, Any]]) -> str:
    rows = []
    for i, r in enumerate(recs):
        apply = f"<pre>{_e(r['apply'])}</pre>" if r.get("apply") else _or_dash("")
        cls = "warn" if r["conflicts_introduced"] else "ok"
        cells = [
            _code(change_text(r["change"])),
            f'<span class="num">{_e(r["conflicts_avoided"])}</span>',
            f'<span class="num">{_e(r["conflicts_introduced"])}</span>',
            f'<span class="small">{_e(evaluated_text(r["evaluated_on"]))}</span>',
            _badge(r["confidence"], r["confidence"]),
            _e(r["rationale"]),
            apply,
        ]
        rows.append((f"recommendation-{i}", cls, cells))
    headers = [
        "Change",
        "Avoided",
        "Introduced",
        "Evaluated on",
        "Confidence",
        "Rationale",
        "Apply",
    ]
    return _table(headers, rows, "No recommendations.")


def _diagnostics(diags: list[dict[str, Any]]) -> str:
    rows = [
        (
            f"diagnostic-{i}",
            "",
            [
                _badge(d["severity"], d["severity"]),
                _e(d["code"]),
                _or_dash(_e(d.get("version"))),
                _e(d["message"]),
            ],
        )
        for i, d in enumerate(diags)
    ]
    return _table(["Severity", "Code", "Version", "Message"], rows, "No diagnostics.")


def _footer(doc: dict[str, Any]) -> str:
    gen = doc.get("generator") or {}
    return (
        f"<footer>Generated by {_e(gen.get('name', 'deltaforensics'))} {_e(gen.get('version', ''))} "
        f"from report format {_e(doc.get('format_version'))}. Self-contained: no scripts, no network."
        "</footer>"
    )
