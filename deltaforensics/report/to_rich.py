"""Terminal rendering of the explain report (rich), fitted to the console width (80 and up).

Order: a header (table, versions, layout, isolation level and its source, writers), a summary
line, the timeline chart (read → commit bars, winners marked), one indented finding per
conflict and per race worth reading (worded by :mod:`deltaforensics.report.prose`), anomalies,
recommendations, then the diagnostics that are not merely informational. Log strings are held
in :class:`~rich.text.Text` (never parsed as markup) with control characters shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.text import Text

from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.model.words import agree, plural
from deltaforensics.report.change_words import change_words, rewrite_words
from deltaforensics.report.conflict_words import explain_conflict
from deltaforensics.report.document.explain import (
    Commit,
    ExplainDocument,
    Race,
    no_race_reason,
)
from deltaforensics.report.plain import (
    NO_APPLY_TEXT,
    commits_by_version,
    race_visibility_text,
    recommendations_note,
)
from deltaforensics.report.prose import (
    attempt_line,
    explain_races,
    references,
    safe_race_words,
)
from deltaforensics.report.terminal import (
    LEVEL_STYLES,
    finding,
    heading,
    labelled,
    phrase_text,
    safe,
)
from deltaforensics.report.timeline_chart import Bar, TimelineChart

MAX_FINDINGS = 40
MAX_DIAGNOSTICS = 30
MAX_BARS = 40
MAX_SAFE = 10
Commits = Mapping[int | None, Commit]


def render_explain(report: ExplainDocument, console: Console) -> None:
    """Print the explain report; a JSON document (e.g. a redacted one) is read back first."""
    commits = commits_by_version(report.commits)
    _header(report, console)
    _timeline(report, commits, console)
    _attempts(report, console)
    _findings(report, commits, console)
    _anomalies(report.anomalies, console)
    _recommendations(report, console)
    problems = [d for d in report.diagnostics if d.severity != "info"]
    if problems:
        heading(console, "Diagnostics", plural(len(problems), "warning"))
        rows = []
        for d in problems[:MAX_DIAGNOSTICS]:
            where = f" v{d.version}" if d.version is not None else ""
            rows.append((f"{d.code}{where}", Text(safe(d.message))))
        console.print(labelled(rows, indent=2))


def _header(doc: ExplainDocument, console: Console) -> None:
    t = doc.table
    iso = t.isolation_level
    console.print(Text(safe(t.uri), style="bold"), overflow="fold")
    if doc.time_window is not None:
        console.print(Text(safe(doc.time_window.describe())))
    layout = f"partitioned by {', '.join(t.partition_columns) or '(none)'}"
    if t.clustering_columns:
        layout += f" · clustered by {', '.join(t.clustering_columns)}"
    profiles = sorted({r.profile for r in doc.races})
    console.print(
        Text(
            safe(
                f"versions {t.first_version}–{t.latest_version} · "
                f"{plural(t.num_commits, 'commit')} · {plural(t.num_files, 'live file')} · "
                f"{layout}\nisolation {iso.value} ({iso.source}) · writers "
                f"{', '.join(t.engines_seen) or '-'}"
                + (f" · modelled as {', '.join(profiles)}" if profiles else "")
            )
        )
    )
    console.print(Text(_summary(doc), style="bold"))
    unseen = race_visibility_text(doc)
    if unseen:
        console.print(Text(safe(unseen), style=LEVEL_STYLES["fragile"]))


def _summary(doc: ExplainDocument) -> str:
    races = doc.races
    failing = sum(r.outcome != "commits" for r in races)
    fragile = sum(r.outcome == "commits" and bool(r.fragile_under) for r in races)
    parts = [
        f"{plural(len(races), 'race')} ({fragile} fragile, {failing} the model says fail)",
        plural(len(doc.conflicts), "conflict"),
    ]
    if doc.attempts:
        parts.append(plural(len(doc.attempts), "attempt"))
    if doc.anomalies:
        parts.append(plural(len(doc.anomalies), "anomaly", "anomalies"))
    return " · ".join(parts)


def _level(race: Race) -> str:
    if race.outcome != "commits":
        return "conflict"
    return "fragile" if race.fragile_under else "ok"


def _timeline(doc: ExplainDocument, commits: Commits, console: Console) -> None:
    races, conflicts = doc.races, doc.conflicts
    if not races and not conflicts:
        console.print()
        console.print(Text(f"No races and no conflicts: {safe(no_race_reason(doc))}."))
        return
    bars: list[tuple[float, Bar]] = []
    for r in races:
        if r.read_version is None:
            continue
        level = _level(r)
        outcome = {"conflict": "fails", "fragile": "fragile", "ok": "ok"}[level]
        bars.append(
            (
                r.version,
                Bar(
                    label=_label(f"v{r.read_version}→v{r.version}", safe(r.operation)),
                    read_version=r.read_version,
                    end_version=r.version,
                    winners=r.winners,
                    level=level,
                    outcome=outcome,
                ),
            )
        )
    for c in conflicts:
        read, won = c.loser.read_version, c.winner_version
        if read is None or won is None:
            continue
        what = "attempt" if c.source == "attempt" else "failed job"
        bars.append(
            (
                won + 0.5,
                Bar(
                    label=f"v{read}→✗ {what}",
                    read_version=read,
                    end_version=won,
                    winners=(won,),
                    level="conflict",
                    outcome="fails",
                ),
            )
        )
    heading(console, "Timeline", f"{plural(len(races), 'race')}, read → commit")
    if not bars:
        return
    shown = [b for _, b in sorted(bars, key=lambda vb: vb[0])]
    console.print(TimelineChart(shown[:MAX_BARS]))
    if len(shown) > MAX_BARS:
        console.print(Text(f"… and {len(shown) - MAX_BARS} more (see --format json or html)"))


def _label(span: str, operation: str, most: int = 28) -> str:
    """``v1→v5 MERGE``; a long operation name ends at a word, marked ``…``, so the chart keeps
    its bars at 80 columns (the findings below give the name whole). ``operation`` is the
    escaped text (:func:`safe`): cut after escaping, no half escape reaches the terminal."""
    label = f"{span} {operation}"
    if len(label) <= most:
        return label
    cut = label[: most - 1].rsplit(" ", 1)[0]
    return (cut if len(cut) > len(span) else label[: most - 1]) + "…"


def _attempts(doc: ExplainDocument, console: Console) -> None:
    """One line per attempt: the one that commits is the walkthrough's answer."""
    if not doc.attempts:
        return
    heading(console, "Attempts", f"{plural(len(doc.attempts), 'statement')} checked")
    for i, a in enumerate(doc.attempts, start=1):
        level = "ok" if a.outcome == "commits" else "conflict"
        console.print(Text(safe(attempt_line(i, a)), style=LEVEL_STYLES[level]))


def _findings(doc: ExplainDocument, commits: Commits, console: Console) -> None:
    explanations = [explain_conflict(c, commits, doc.attempts) for c in doc.conflicts]
    explanations += explain_races([r for r in doc.races if _level(r) != "ok"], commits)
    quiet = [r for r in doc.races if _level(r) == "ok"]
    if not explanations and not quiet:
        return
    heading(console, "Findings")
    for e in explanations[:MAX_FINDINGS]:
        console.print(finding(e))
    if len(explanations) > MAX_FINDINGS:
        console.print(f"… and {len(explanations) - MAX_FINDINGS} more (see --format json or html)")
    if quiet:
        head = plural(len(quiet), "other race" if explanations else "race")
        console.print(
            Text(
                f"✓ {head} committed safely, and no single change makes "
                f"{agree(len(quiet), 'it', 'them')} fail:",
                style=LEVEL_STYLES["ok"],
            )
        )
        rows = [("•", phrase_text(safe_race_words(r, commits))) for r in quiet[:MAX_SAFE]]
        console.print(labelled(rows, indent=2))
        if len(quiet) > MAX_SAFE:
            console.print(Text(f"  … and {len(quiet) - MAX_SAFE} more (see --format json)"))
    if explanations:
        console.print(Text(references(), style="dim"), overflow="fold")


def _anomalies(anomalies: Sequence[Anomaly], console: Console) -> None:
    if not anomalies:
        return
    heading(console, "Anomalies", "visible in the log alone")
    rows = []
    for a in anomalies:
        versions = ", ".join(f"v{v}" for v in a.versions[:6]) + ("…" if len(a.versions) > 6 else "")
        colour = {"error": "red", "warning": "yellow"}.get(a.severity, "")
        body = Text(f"{a.severity} · {versions}: ", style=colour)
        body.append(safe(a.reason), style="")
        rows.append((a.code, body))
    console.print(labelled(rows, indent=2))


def _recommendations(report: ExplainDocument, console: Console) -> None:
    recs = report.recommendations
    note = recommendations_note(report)
    if not recs:
        if report.recommendations_note:
            heading(console, "Recommendations")
            console.print(Text(safe(note)))
        return
    heading(console, "Recommendations", "measured on this history")
    for rank, r in enumerate(recs, start=1):
        title = Text(f"{rank}. ", style="bold")
        title.append(safe(rewrite_words(change_words(r.change), r.rewrites_table)), style="bold")
        console.print(title)
        seen = (
            f"avoids {plural(r.conflicts_avoided, 'seen conflict')}, "
            f"makes {plural(r.fragile_races_avoided, 'fragile race')} safe, "
            f"introduces {plural(r.conflicts_introduced, 'conflict')}; "
            f"confidence {r.confidence}"
        )
        rows = [("effect", Text(seen)), ("why", Text(safe(r.rationale)))]
        apply = Text(safe(r.apply), style="cyan") if r.apply else Text(NO_APPLY_TEXT)
        rows.append(("apply", apply))
        console.print(labelled(rows, indent=3))
    if note:
        console.print(Text(safe(note)))
