"""The explain report as ONE self-contained HTML page: inline CSS and SVG, no script, no network.

Formats the typed explain document (a JSON document, e.g. a redacted one, is read back first),
never internal objects. Every string from the document is HTML-escaped: predicates, user names
and paths come from a log that anyone with write access controls. A Content-Security-Policy
forbids scripts and every fetch, so a mistake here still cannot run code or call out. Output is
deterministic: the same document gives the same bytes (no clock, no randomness). The timeline
and the section tables are in :mod:`deltaforensics.report.html`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.report.document.explain import ExplainDocument, no_race_reason
from deltaforensics.report.html import sections
from deltaforensics.report.html.format import code, e, or_dash, plural, race_status, section
from deltaforensics.report.html.timeline import MAX_TIMELINE_ROWS, timeline
from deltaforensics.report.plain import commits_by_version, recommendations_note

__all__ = ["MAX_TIMELINE_ROWS", "to_html"]

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


def to_html(doc: ExplainDocument | Mapping[str, Any]) -> str:
    """Render an explain document (``report-v1``) as a standalone HTML page."""
    report = doc if isinstance(doc, ExplainDocument) else ExplainDocument.from_dict(doc)
    commits = commits_by_version(report.commits)
    body = [
        _header(report),
        _cards(report),
        section("Timeline", timeline(report), "timeline"),
        section("Races", sections.races(report.races, no_race_reason(report), commits), "races"),
        section("Conflicts", sections.conflicts(report.conflicts, commits), "conflicts"),
        section("Attempts", sections.attempts(report.attempts), "attempts"),
        section("Anomalies", sections.anomalies(report.anomalies), "anomalies"),
        section(
            "Recommendations",
            sections.recommendations(report.recommendations, recommendations_note(report)),
            "recommendations",
        ),
        section("Diagnostics", sections.diagnostics(report.diagnostics), "diagnostics"),
        _footer(report),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>deltaforensics explain: {e(report.table.uri)}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def _header(doc: ExplainDocument) -> str:
    t = doc.table
    iso = t.isolation_level
    profiles = sorted({r.profile for r in doc.races})
    writers = e(", ".join(t.engines_seen)) or '<span class="muted">none recorded</span>'
    if profiles:
        writers += f' <span class="muted">· checker profiles: {e(", ".join(profiles))}</span>'
    facts = [
        *([("Window", e(doc.time_window["text"]))] if doc.time_window else []),
        (
            "Versions",
            f"{e(t.first_version)} – {e(t.latest_version)} "
            f'<span class="muted">({e(t.num_commits)} commits, {e(t.num_files)} live files)</span>',
        ),
        (
            "Isolation level",
            f'<b>{e(iso.value)}</b> <span class="muted">({e(iso.source)})</span>',
        ),
        ("Writers", writers),
        ("Partitioned by", or_dash(e(", ".join(t.partition_columns)))),
        ("Clustered by", or_dash(e(", ".join(t.clustering_columns)))),
        ("Table features", or_dash(e(", ".join(t.features)))),
    ]
    rows = "\n".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return f'<header>\n<h1>Write conflicts in {code(t.uri)}</h1>\n<dl class="facts">\n{rows}\n</dl>\n</header>'


def _cards(doc: ExplainDocument) -> str:
    status = [race_status(r) for r in doc.races]
    anomalies, diags = doc.anomalies, doc.diagnostics
    cards = [
        (
            "Races",
            len(doc.races),
            f"{status.count('warn')} fragile, {plural(status.count('bad'), 'predicted conflict')}",
        ),
        ("Conflicts", len(doc.conflicts), "seen or predicted failures"),
        ("Attempts", len(doc.attempts), "statements checked"),
        (
            "Anomalies",
            len(anomalies),
            plural(sum(a.severity == "error" for a in anomalies), "error"),
        ),
        (
            "Recommendations",
            len(doc.recommendations),
            _recommendations_card(doc),
        ),
        (
            "Diagnostics",
            len(diags),
            f"{sum(d.severity != 'info' for d in diags)} warnings or errors",
        ),
    ]
    html = "".join(
        f'<div class="card"><span class="muted">{e(n)}</span><b>{e(c)}</b>'
        f'<span class="small muted">{e(s)}</span></div>'
        for n, c, s in cards
    )
    return f'<div class="cards">{html}</div>'


def _footer(doc: ExplainDocument) -> str:
    gen = doc.generator
    return (
        f"<footer>Generated by {e(gen.name)} {e(gen.version)} "
        f"from report format {e(doc.format_version)}. Self-contained: no scripts, no network."
        "</footer>"
    )


def _recommendations_card(doc: ExplainDocument) -> str:
    if doc.recommendations:
        return "measured on seen conflicts"
    note = doc.recommendations_note or ""
    return "nothing to prevent" if note.startswith("nothing to prevent") else "none helps"
