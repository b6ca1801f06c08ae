"""``OUT/dashboard.html``: the fleet at a glance, one self-contained page (inline CSS and SVG, no
script, no network, the explain report's Content-Security-Policy), written by every run.

It shows, for the tables the run audited: totals (races, fragile races, predicted and seen
conflicts, anomalies, recommendations); a row per table with anything to show; each table's
commits and races over time, in buckets of its own time span; who raced whom (the writer of
each racing commit against the writers of the commits it was rebased over); the most fragile
writers; the anomalies; and what each recommendation would change. Writers are named as the
explain report names them (job, notebook, user).

It is built from the parquet datasets the same run wrote (never from the in-memory reports), so
the page and the datasets a Databricks dashboard reads cannot disagree. Every string from a log
is escaped; the only clock is the audit run's own start time, so a page is reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from deltaforensics.audit.dashboard.charts import heatmap, race_words, timeline, when
from deltaforensics.audit.dashboard.fleet import (
    TOP_WRITERS,
    Fleet,
    RaceCounts,
    TableRow,
    fleet,
    json_list,
    read_datasets,
)
from deltaforensics.audit.files import write_atomically
from deltaforensics.model.anomaly_codes import ANOMALY_CODES
from deltaforensics.report.change_words import change_json_words
from deltaforensics.report.html.format import badge, code, e, or_dash, plural, section, table
from deltaforensics.report.html.format import versions as version_runs
from deltaforensics.report.html.style import CSP, CSS

DASHBOARD = "dashboard.html"
_TITLES = {c.code: c.title for c in ANOMALY_CODES}
_EXTRA_CSS = """
h3{font-size:15px;margin:18px 0 4px}
.card b{font-variant-numeric:tabular-nums}
.explain{background:var(--zebra);border:1px solid var(--line);border-radius:6px;padding:8px 14px;
margin:12px 0;font-size:13px}
.explain dt{font-weight:600}.explain dd{margin:0 0 4px 0}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:8px 24px}
svg.chart{width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg .commits{fill:#dfe3e8}svg .ok{fill:var(--ok)}svg .warn{fill:var(--warn)}
svg .bad{fill:var(--bad)}svg .seen{fill:var(--conflict)}svg text.count{font-size:11px}
table.heatmap{width:auto}table.heatmap td.heat{min-width:44px;text-align:center}
td.heat.ok{background:rgb(46 125 50 / var(--a))}td.heat.warn{background:rgb(224 161 0 / var(--a))}
td.heat.bad{background:rgb(198 40 40 / var(--a));color:#fff}
td.heat .x{display:block;font-size:11px;font-weight:600}
th.col{vertical-align:bottom;max-width:44px;padding-top:8px}th.col span{writing-mode:vertical-rl;
transform:rotate(180deg);white-space:nowrap}th.corner{vertical-align:bottom;font-weight:400;
color:var(--muted);font-size:12px}th.row{white-space:nowrap}
.nowrap{white-space:nowrap}
"""
_LEGEND = (
    '<div class="legend">'
    '<span><span class="sw" style="background:#dfe3e8"></span>commits</span>'
    '<span><span class="sw" style="background:var(--ok)"></span>race: commits safely</span>'
    '<span><span class="sw" style="background:var(--warn)"></span>race: fragile</span>'
    '<span><span class="sw" style="background:var(--bad)"></span>race: predicted conflict</span>'
    '<span><span class="sw" style="background:var(--conflict)"></span>seen conflict</span></div>'
)
_TERMS = (
    (
        "Race",
        "a commit that read an older version of the table and committed after other commits "
        "it never read: Delta's conflict checker let it through. Losing transactions leave no "
        "trace in the log; races are the survivors.",
    ),
    (
        "Fragile",
        "the race committed, but one plausible change (Serializable isolation, the other commit "
        "order, a widened predicate) would have made it fail.",
    ),
    (
        "Predicted conflict",
        "the table engine's conflict checker, replayed on the log, raises a concurrent-"
        "modification exception for this race: it should have failed.",
    ),
    ("Seen conflict", "a failure read from an error text given to the audit."),
)


def write_dashboard(out: Path, summary: Mapping[str, Any]) -> Path:
    """Write ``out/dashboard.html`` over ``out/datasets`` for the tables the run audited."""
    ok = [t["name"] for t in summary["tables"] if t["status"] == "ok"]
    page = dashboard_html(fleet(read_datasets(out / "datasets", ok), ok), summary)
    path = out / DASHBOARD
    write_atomically(path, lambda tmp: tmp.write_text(page, encoding="utf-8"))
    return path


def dashboard_html(f: Fleet, summary: Mapping[str, Any]) -> str:
    failed = [t for t in summary["tables"] if t["status"] != "ok"]
    body = [
        _header(f, summary, failed),
        _cards(f.totals, len(f.tables), len(failed)),
        # before the rest: the page's numbers leave these tables out
        *([section("Tables that failed", _failed(failed), "failed")] if failed else []),
        _terms(),
        section("Tables", _tables(f.tables), "tables"),
        section("Races and conflicts over time", _timelines(f), "over-time"),
        section("Who raced whom", heatmap(f.pairs), "writers"),
        section("Most fragile writers", _writers(f), "fragile-writers"),
        section("Anomalies", _anomalies(f.anomalies), "anomalies"),
        section(
            "What each recommendation would change",
            _recommendations(f.recommendations),
            "recommendations",
        ),
        "<footer>Generated by deltaforensics from the parquet datasets in <code>datasets/</code> "
        "beside this file. Self-contained: no scripts, no network.</footer>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>deltaforensics audit dashboard</title>\n"
        f"<style>{CSS}{_EXTRA_CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def _header(f: Fleet, summary: Mapping[str, Any], failed: Sequence[Any]) -> str:
    t = f.totals
    span = (
        f"{e(when(t.first_timestamp))} – {e(when(t.last_timestamp))}"
        if t.first_timestamp is not None and t.last_timestamp is not None
        else '<span class="muted">no commit time recorded</span>'
    )
    facts = [
        ("Audit run", e(summary.get("started_at") or "")),
        ("Tables", f"{len(f.tables)} audited" + _failed_names(failed)),
        ("Commits between", span),
    ]
    rows = "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        "<header><h1>Delta write conflicts across the fleet</h1>"
        f'<dl class="facts">{rows}</dl></header>'
    )


def _failed_names(failed: Sequence[Any]) -> str:
    """``, 1 failed: orders`` (each name a link to its error below), or nothing."""
    if not failed:
        return ""
    links = ", ".join(f'<a href="#failed-{i}">{e(t["name"])}</a>' for i, t in enumerate(failed))
    return f", {len(failed)} failed: {links}"


def _cards(t: TableRow, tables: int, failed: int) -> str:
    c = t.counts
    cards = [
        ("tables", "Tables", tables, f"{failed} failed" if failed else "all read"),
        ("commits", "Commits", t.commits, "in the datasets"),
        ("races", "Races", c.races, "survived concurrent commits"),
        ("fragile", "Fragile races", c.fragile, "one change from a conflict"),
        ("predicted", "Predicted conflicts", c.predicted, "should have failed"),
        ("seen", "Seen conflicts", c.seen, "from error texts"),
        ("anomalies", "Anomalies", t.anomalies, plural(t.anomaly_errors, "error")),
        ("recommendations", "Recommendations", t.recommendations, "measured changes"),
    ]
    html = "".join(
        f'<div class="card"><span class="muted">{e(label)}</span>'
        f'<b data-metric="{key}">{n}</b><span class="small muted">{e(sub)}</span></div>'
        for key, label, n, sub in cards
    )
    return f'<div class="cards">{html}</div>'


def _terms() -> str:
    items = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in _TERMS)
    return f'<dl class="explain">{items}</dl>'


def _num(value: int, table_name: str, metric: str) -> str:
    return f'<span data-table="{e(table_name)}" data-metric="{metric}">{value}</span>'


def _tables(rows: Sequence[TableRow]) -> str:
    def busy(t: TableRow) -> bool:
        return bool(t.counts.races or t.counts.seen or t.anomalies or t.recommendations)

    shown = sorted(
        (t for t in rows if busy(t)),
        key=lambda t: (-t.counts.conflicts, -t.counts.fragile, -t.anomaly_errors, t.name),
    )
    body = []
    for i, t in enumerate(shown):
        c = t.counts
        status = "bad" if c.conflicts or t.anomaly_errors else "warn" if c.fragile else "ok"
        span = (
            f"{e(when(t.first_timestamp))} –<br>{e(when(t.last_timestamp))}"
            if t.first_timestamp is not None and t.last_timestamp is not None
            else or_dash("")
        )
        cells = [
            f'{e(t.name)}<div class="small muted">{e(t.uri)}</div>',
            _num(t.commits, t.name, "commits"),
            f'<span class="small nowrap">{span}</span>',
            _num(c.races, t.name, "races"),
            _num(c.fragile, t.name, "fragile"),
            _num(c.predicted, t.name, "predicted"),
            _num(c.seen, t.name, "seen"),
            _num(t.anomalies, t.name, "anomalies"),
            _num(t.recommendations, t.name, "recommendations"),
        ]
        body.append((f"table-{i}", status, cells))
    headers = ["Table", "Commits", "Commit times", "Races", "Fragile", "Predicted conflicts"]
    html = table(
        [*headers, "Seen conflicts", "Anomalies", "Recommendations"],
        body,
        "No table has a race, a conflict, an anomaly or a recommendation.",
    )
    quiet = [t.name for t in rows if not busy(t)]
    if quiet:
        names = ", ".join(e(n) for n in quiet)
        html += (
            f"<details><summary>{plural(len(quiet), 'table')} with no race, conflict, anomaly "
            f'or recommendation</summary><p class="small">{names}</p></details>'
        )
    return html


def _timelines(f: Fleet) -> str:
    if not f.timelines:
        return '<p class="muted">No races or conflicts in any table.</p>'
    rows = {t.name: t for t in f.tables}
    charts = []
    for t in f.timelines:
        counts = rows[t.table].counts
        charts.append(
            f'<div class="over-time" data-table="{e(t.table)}"><h3>{e(t.table)}</h3>'
            f'<div class="small muted">{e(race_words(counts))}</div>{timeline(t)}</div>'
        )
    return _LEGEND + f'<div class="charts">{"".join(charts)}</div>'


def _writers(f: Fleet) -> str:
    shown = f.writers[: 2 * TOP_WRITERS]
    rows = []
    for i, w in enumerate(shown):
        c: RaceCounts = w.counts
        cells = [
            e(w.writer),
            f'<span class="small">{e(", ".join(w.tables))}</span>',
            *(
                f'<span data-writer="{e(w.writer)}" data-metric="{m}">{v}</span>'
                for m, v in (
                    ("races", c.races),
                    ("fragile", c.fragile),
                    ("predicted", c.predicted),
                    ("seen", c.seen),
                    ("changes_away", w.changes_away),
                )
            ),
        ]
        status = "bad" if c.conflicts else "warn" if c.fragile else "ok"
        rows.append((f"writer-{i}", status, cells))
    headers = ["Writer", "Tables", "Races", "Fragile", "Predicted conflicts", "Seen conflicts"]
    html = table(
        [*headers, "Changes that would make a race fail"], rows, "No writer raced another."
    )
    if len(f.writers) > len(shown):
        html += f'<p class="small muted">{len(shown)} of {len(f.writers)} writers shown.</p>'
    return html


def _anomalies(df: pl.DataFrame) -> str:
    rows = []
    for i, a in enumerate(df.iter_rows(named=True)):
        numbers = sorted(int(v) for v in json_list(a["versions"]) if isinstance(v, int))
        sev = a["severity"]
        cells = [
            e(a["table"]),
            badge(sev, sev),
            f"{e(_TITLES.get(a['code'], a['kind']))} "
            f'<span class="muted small">({e(a["code"])})</span>',
            or_dash(version_runs(numbers)),
            e(a["reason"]),
        ]
        rows.append((f"anomaly-{i}", "bad" if sev == "error" else "warn", cells))
    return table(["Table", "Severity", "What", "Versions", "Reason"], rows, "No anomalies.")


def _recommendations(df: pl.DataFrame) -> str:
    rows = []
    for i, r in enumerate(df.iter_rows(named=True)):
        change = json_list(r["change"])[0]
        words = change_json_words(change) if isinstance(change, dict) else str(change)
        apply = f"<pre>{e(r['apply'])}</pre>" if r["apply"] else or_dash("")
        cells = [
            e(r["table"]),
            e(words),
            f'<span data-metric="conflicts_avoided">{r["conflicts_avoided"]}</span>',
            f'<span data-metric="conflicts_introduced">{r["conflicts_introduced"]}</span>',
            badge(r["confidence"], r["confidence"]),
            e(r["rationale"]),
            apply,
        ]
        rows.append((f"recommendation-{i}", "warn" if r["conflicts_introduced"] else "ok", cells))
    headers = ["Table", "Change", "Seen conflicts avoided", "Introduced", "Confidence"]
    return table([*headers, "Why", "How to apply"], rows, "No recommendations.")


def _failed(entries: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        (f"failed-{i}", "bad", [e(t["name"]), code(t.get("error"))]) for i, t in enumerate(entries)
    ]
    return table(["Table", "Error"], rows, "")
