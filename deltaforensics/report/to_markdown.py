"""The explain and what-if reports as GitHub-flavoured Markdown, for tickets and PR comments.

Formats the typed documents (a JSON document, e.g. a redacted one, is read back first). Log strings are untrusted and
may hold ``|``, backticks, newlines, HTML or control characters: cells are escaped so that a
predicate can neither break a table nor inject markup. Text writes ``<``, ``>`` and ``&`` as
entities; a code span is cut at each ``<`` that could open a tag (``<`` then a letter, ``/``,
``!`` or ``?``), which is written as ``&lt;`` between the pieces, and a code block holding one
is an HTML ``<pre>`` block with entities, so that no renderer sees a tag; ``a < b`` stays one
span. Control characters are shown as ``\\x1b``
(:func:`~deltaforensics.report.plain.visible`). Output is deterministic. Long sections are cut at ``max_rows``
with a line that says how many rows the JSON report has beyond it (GitHub comments stop at
65,536 characters).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence

from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.model.words import agree, plural
from deltaforensics.report.change_words import change_words, rewrite_words
from deltaforensics.report.conflict_words import explain_conflict
from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.document.explain import (
    Attempt,
    ExplainDocument,
    Race,
    Table,
    no_race_reason,
)
from deltaforensics.report.document.whatif import WhatIfDocument
from deltaforensics.report.plain import (
    NO_APPLY_TEXT,
    commits_by_version,
    cut,
    race_visibility_text,
    recommendations_note,
    visible,
)
from deltaforensics.report.prose import (
    Code,
    Explanation,
    Phrase,
    attempt_line,
    explain_races,
    failure_words,
    references,
    safe_race_words,
)
from deltaforensics.whatif.recommendations.rationale import hypothetical_text

MAX_ROWS = 50
# Markdown punctuation that can start emphasis, links, code, strikethrough, math or a cell edge.
_SPECIAL = re.compile(r"([\\`*_\[\]|~$])")
_BACKTICKS = re.compile(r"`+")
# A "<" that an HTML parser could read as the start of a tag, a comment or a declaration.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def text(value: JsonValue) -> str:
    """Escape any JSON value as inline Markdown text (safe inside a table cell)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = (
            json.dumps(value, sort_keys=True, ensure_ascii=False)
            if isinstance(value, list | dict)
            else str(value)
        )
    value = visible(value, keep="\n\r\t")
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _SPECIAL.sub(r"\\\1", value)
    return _newlines(value, "<br>")


def code(value: JsonValue, *, in_table: bool = True) -> str:
    """An inline code span that survives backticks, newlines, (in tables) pipes and HTML.

    A ``<`` that could open a tag ends the span and is written as ``&lt;`` before the next one
    starts: inside a code span it is shown as itself by a CommonMark renderer, but not by all.
    """
    if value is None or value == "":
        return "—"
    raw = _newlines(value if isinstance(value, str) else json.dumps(value, sort_keys=True), " ")
    pieces = _TAG_START.split(visible(raw, keep="\t"))
    return "&lt;".join(_span(piece, in_table=in_table) for piece in pieces)


def _span(raw: str, *, in_table: bool) -> str:
    if not raw:
        return ""
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(raw)), default=0) + 1)
    pad = " " if raw.startswith("`") or raw.endswith("`") else ""
    if in_table:
        raw = raw.replace("|", "\\|")
    return f"{fence}{pad}{raw}{pad}{fence}"


def fenced(value: str) -> str:
    """A fenced block longer than any backtick run inside ``value``.

    Text holding a ``<`` that could open a tag is an HTML ``<pre>`` block with entities instead:
    shown and copied as the same text, and no renderer reads a tag in it.
    """
    # a lone carriage return is a line break here, never a raw byte (it rewrites a terminal line)
    value = _newlines(visible(value, keep="\n\r\t"), "\n")
    if _TAG_START.search(value):
        shown = html.escape(value.rstrip(), quote=False)
        return f"<pre>\n{shown}\n</pre>"
    fence = "`" * max(3, max((len(m) for m in _BACKTICKS.findall(value)), default=0) + 1)
    return f"{fence}\n{value.rstrip()}\n{fence}"


def _newlines(value: str, joiner: str) -> str:
    return joiner.join(value.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, max_rows: int = MAX_ROWS
) -> str:
    """A GFM table of already-escaped cells; rows past ``max_rows`` are counted, not shown."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"\n… and {plural(len(rows) - max_rows, 'more row')} in the JSON report.")
    return "\n".join(lines)


def _versions(versions: Sequence[int]) -> str:
    return ", ".join(f"v{v}" for v in versions) or "—"


def _outcome(outcome: str, code_: str | None) -> str:
    if outcome == "commits":
        return "commits"
    return f"**{text(failure_words(str(outcome), code_))}**"


def _evaluated(ev: Mapping[str, int]) -> str:
    return (
        f"{plural(ev['races'], 'race')}, {plural(ev['errors'], 'error')}, "
        f"{plural(ev['attempts'], 'attempt')}, {plural(ev['writer_pairs'], 'writer pair')}"
    )


def _diagnostics(diags: Sequence[Diagnostic], max_rows: int) -> str:
    if not diags:
        return "### Diagnostics\n\nNone."
    lines = [
        f"- **{text(d.severity)}** {text(d.code)}"
        + (f" (v{text(d.version)})" if d.version is not None else "")
        + f": {text(d.message)}"
        for d in diags[:max_rows]
    ]
    if len(diags) > max_rows:
        lines.append(f"- … and {len(diags) - max_rows} more in the JSON report.")
    return "### Diagnostics\n\n" + "\n".join(lines)


def _table_facts(t: Table) -> str:
    iso = t.isolation_level
    facts = [
        f"versions {t.first_version}–{t.latest_version} ({plural(t.num_commits, 'commit')}, "
        f"{plural(t.num_files, 'live file')})",
        f"isolation **{text(iso.value)}** ({text(iso.source)})",
        f"writers: {text(', '.join(t.engines_seen)) or 'none recorded'}",
        f"partitioned by {text(', '.join(t.partition_columns)) or '(none)'}",
    ]
    if t.clustering_columns:
        facts.append(f"clustered by {text(', '.join(t.clustering_columns))}")
    return " · ".join(facts)


def _at_risk(races: Sequence[Race]) -> list[Race]:
    """Races the model says fail, or that one change would make fail."""
    return [r for r in races if r.outcome != "commits" or r.fragile_under]


def _summary(doc: ExplainDocument) -> str:
    races, anomalies = doc.races, doc.anomalies
    predicted = sum(r.outcome != "commits" for r in races)
    return " · ".join(
        [
            f"**{plural(len(races), 'race')}** ({len(_at_risk(races)) - predicted} fragile, "
            f"{plural(predicted, 'predicted conflict')})",
            f"**{plural(len(doc.conflicts), 'conflict')}**",
            plural(len(doc.attempts), "attempt"),
            f"{plural(len(anomalies), 'anomaly', 'anomalies')} "
            f"({plural(sum(a.severity == 'error' for a in anomalies), 'error')})",
            plural(len(doc.recommendations), "recommendation"),
            plural(sum(d.severity != "info" for d in doc.diagnostics), "warning"),
            *([f"**{text(race_visibility_text(doc))}**"] if doc.race_visibility else []),
        ]
    )


def phrase(words: Phrase) -> str:
    """A prose phrase as Markdown: text escaped, code pieces as code spans."""
    return "".join(code(p.text, in_table=False) if isinstance(p, Code) else text(p) for p in words)


def _finding(e: Explanation) -> str:
    marker = {"conflict": "❌", "fragile": "⚠️"}.get(e.level, "✅")
    lines = [f"- {marker} **{phrase(e.headline)}**"]
    lines += [f"  - {text(label)}: {phrase(body)}" for label, body in e.details]
    return "\n".join(lines)


def _races(doc: ExplainDocument, max_rows: int, none: str) -> list[str]:
    races = doc.races
    out = ["### Races"]
    if not races:
        return [*out, f"None: {none}."]
    commits = commits_by_version(doc.commits)
    risky = _at_risk(races)
    found = explain_races(risky, commits)
    if found:
        out.append("\n".join(_finding(e) for e in found[:max_rows]))
        if len(found) > max_rows:
            out.append(f"… and {len(found) - max_rows} more in the JSON report.")
    quiet = [r for r in races if r not in risky]
    if quiet:
        out.append(
            f"{plural(len(quiet), 'other race' if risky else 'race')} committed cleanly, and no "
            f"single change tried makes {agree(len(quiet), 'it', 'them')} conflict:"
        )
        lines = [f"- ✅ {phrase(safe_race_words(r, commits))}" for r in quiet[:max_rows]]
        if len(quiet) > max_rows:
            lines.append(f"- … and {len(quiet) - max_rows} more in the JSON report.")
        out.append("\n".join(lines))
    return out


def _conflicts(doc: ExplainDocument, max_rows: int) -> list[str]:
    if not doc.conflicts:
        return ["### Conflicts", "None."]
    commits = commits_by_version(doc.commits)
    found = [explain_conflict(c, commits, doc.attempts) for c in doc.conflicts[:max_rows]]
    out = ["### Conflicts", "\n".join(_finding(e) for e in found)]
    if len(doc.conflicts) > max_rows:
        out.append(f"… and {len(doc.conflicts) - max_rows} more in the JSON report.")
    return out


def _attempts(attempts: Sequence[Attempt], max_rows: int) -> list[str]:
    if not attempts:
        return []
    rows = [
        [
            code(cut(a.statement)),
            f"v{a.read_version}" if a.read_version is not None else "—",
            _outcome(a.outcome, a.code),
            f"v{a.winner_version}" if a.winner_version is not None else "—",
            text(a.reason),
        ]
        for a in attempts
    ]
    headers = ["Statement", "Read", "Outcome", "Winner", "Why"]
    lines = "\n".join(f"- {text(attempt_line(i, a))}" for i, a in enumerate(attempts, start=1))
    return ["### Attempts", lines, table(headers, rows, max_rows=max_rows)]


def _anomalies(doc: ExplainDocument, max_rows: int) -> list[str]:
    if not doc.anomalies:
        return []
    rows = [
        [
            f"**{text(a.severity)}**",
            text(a.code),
            _versions(a.versions),
            text(a.reason),
        ]
        for a in doc.anomalies
    ]
    headers = ["Severity", "Code", "Versions", "Reason"]
    return ["### Anomalies", table(headers, rows, max_rows=max_rows)]


def _recommendations(report: ExplainDocument, max_rows: int) -> list[str]:
    recs = report.recommendations
    if not recs:
        return ["### Recommendations", text(recommendations_note(report))]
    rows = [
        [
            str(i),
            text(rewrite_words(change_words(r.change), r.rewrites_table)),
            str(r.conflicts_avoided),
            str(r.conflicts_introduced),
            text(r.confidence),
            text(_evaluated(r.evaluated_on)),
            text(r.rationale),
        ]
        for i, r in enumerate(recs, 1)
    ]
    headers = [
        "#",
        "Change",
        "Seen conflicts avoided",
        "Introduced",
        "Confidence",
        "Evaluated on",
        "Rationale",
    ]
    return [
        "### Recommendations",
        table(headers, rows, max_rows=max_rows),
        *([text(recommendations_note(report))] if recommendations_note(report) else []),
        *(
            f"**{i}. {text(rewrite_words(change_words(r.change), r.rewrites_table))}**\n\n"
            + (fenced(r.apply) if r.apply else text(NO_APPLY_TEXT))
            for i, r in enumerate(recs[:max_rows], 1)
        ),
    ]


def to_markdown(report: ExplainDocument, *, max_rows: int = MAX_ROWS) -> str:
    """Render an explain document (``report-v2``)."""
    out = [
        f"## deltaforensics: write conflicts in {code(report.table.uri, in_table=False)}",
        *([text(report.time_window.describe())] if report.time_window else []),
        _summary(report),
        _table_facts(report.table),
        *_races(report, max_rows, no_race_reason(report)),
        *_conflicts(report, max_rows),
        *([text(references())] if report.conflicts or _at_risk(report.races) else []),
        *_attempts(report.attempts, max_rows),
        *_anomalies(report, max_rows),
        *_recommendations(report, max_rows),
        _diagnostics(report.diagnostics, max_rows),
    ]
    return "\n\n".join(out) + "\n"


def whatif_to_markdown(report: WhatIfDocument, *, max_rows: int = MAX_ROWS) -> str:
    """Render a what-if document (``whatif-v2``)."""
    changes = "; ".join(change_words(c) for c in report.scenario.changes) or "(no change)"
    changes = rewrite_words(changes, report.rewrites_table)
    base, result = report.baseline, report.result
    out = [
        f"## deltaforensics what-if: {code(changes, in_table=False)} on "
        f"{code(report.table.uri, in_table=False)}",
        *([text(report.time_window.describe())] if report.time_window else []),
        f"**seen: avoids {report.conflicts_avoided} of {plural(base.conflicts, 'conflict')} "
        f"seen (errors, attempts, model-predicted races), introduces "
        f"{report.conflicts_introduced}** · conflicts "
        f"{base.conflicts} → {result.conflicts} · fragile races {base.fragile_races} → "
        f"{result.fragile_races} · confidence **{text(report.confidence)}** · evaluated on "
        f"{text(_evaluated(report.evaluated_on))}",
        *([text(hypothetical_text(report.hypothetical))] if report.hypothetical else []),
        _table_facts(report.table),
        "### Pairs",
    ]
    if not report.pairs:
        out.append("None: no writer pair was evaluated.")
    else:
        rows = []
        for p in report.pairs:
            loser = (
                f"v{p.loser.version}"
                if p.loser.version is not None
                else f"attempt {code(cut(p.loser.attempt or ''))}"
            )
            rows.append(
                [
                    loser,
                    f"v{p.winner_version}",
                    _outcome(p.before, None),
                    _outcome(p.after, None),
                    text(p.reason),
                ]
            )
        out.append(table(["Loser", "Winner", "Before", "After", "Why"], rows, max_rows=max_rows))
    out.append(_diagnostics(report.diagnostics or (), max_rows))
    return "\n\n".join(out) + "\n"
