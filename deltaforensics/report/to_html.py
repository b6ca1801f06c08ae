"""The explain report as ONE self-contained HTML page: inline CSS and SVG, no script, no network.

Formats the typed explain document (a JSON document, e.g. a redacted one, is read back first),
never internal objects. Every string from the document is HTML-escaped: predicates, user names
and paths come from a log that anyone with write access controls. A Content-Security-Policy
forbids scripts and every fetch, so a mistake here still cannot run code or call out. Output is
deterministic: the same document gives the same bytes (no clock, no randomness). The timeline
and the section tables are in :mod:`deltaforensics.report.html`.
"""

from __future__ import annotations

from deltaforensics.report.document.explain import ExplainDocument, no_race_reason
from deltaforensics.report.html import sections
from deltaforensics.report.html.format import code, e, or_dash, plural, race_status, section
from deltaforensics.report.html.style import CSP, CSS
from deltaforensics.report.html.timeline import MAX_TIMELINE_ROWS, timeline
from deltaforensics.report.plain import (
    commits_by_version,
    race_visibility_text,
    recommendations_note,
)

__all__ = ["MAX_TIMELINE_ROWS", "page", "to_html"]


def to_html(report: ExplainDocument) -> str:
    """Render an explain document (``report-v2``) as a standalone HTML page."""
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
    return page(f"deltaforensics explain: {report.table.uri}", body)


def page(title: str, body: list[str]) -> str:
    """A standalone page of ``body`` (escaped HTML parts) under ``title`` (text, escaped here):
    the report's inline CSS and its Content-Security-Policy, no script, no network."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
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
        *([("Window", e(doc.time_window.describe()))] if doc.time_window else []),
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
        *([("Races", f"<b>{e(race_visibility_text(doc))}</b>")] if doc.race_visibility else []),
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
            f"{status.count('warn')} fragile, {plural(status.count('bad'), 'predicted conflict')}"
            + ("; some unknown" if doc.race_visibility else ""),
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
