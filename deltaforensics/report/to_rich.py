"""Terminal rendering of the explain report (rich). Every log string is escaped (:func:`_text`).

Order: a header (table, versions, profiles, isolation level and its source), the timeline of
races and conflicts, one paragraph per finding with the winning commits' details, anomalies,
the recommendations table, then the diagnostics that are not merely informational.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape as escape_markup
from rich.table import Table

from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.report.document.explain import (
    Commit,
    ExplainDocument,
    Race,
    Recommendation,
    no_race_reason,
)
from deltaforensics.report.plain import (
    NO_APPLY_TEXT,
    change_text,
    commit_summary,
    commits_by_version,
    missing_text,
    recommendations_note,
    visible,
)

MAX_FINDINGS = 40
MAX_DIAGNOSTICS = 30
Commits = Mapping[int | None, Commit]


def _text(value: str) -> str:
    """A log string as terminal text: markup escaped, control characters shown (``\\x1b``)."""
    return escape_markup(visible(value, keep="\n\t"))


def render_explain(doc: ExplainDocument | Mapping[str, Any], console: Console) -> None:
    """Print the explain report; a JSON document (e.g. a redacted one) is read back first."""
    report = doc if isinstance(doc, ExplainDocument) else ExplainDocument.from_dict(doc)
    commits = commits_by_version(report.commits)
    _header(report, console)
    _timeline(report, commits, console)
    _findings(report, commits, console)
    _anomalies(report.anomalies, console)
    _recommendations(report, console)
    problems = [d for d in report.diagnostics if d.severity != "info"]
    if problems:
        console.print(f"\n[bold]Diagnostics[/bold] ({len(problems)})")
        for d in problems[:MAX_DIAGNOSTICS]:
            where = f" v{d.version}" if d.version is not None else ""
            console.print(f"  {d.code}{where}: {_text(d.message)}")


def _header(doc: ExplainDocument, console: Console) -> None:
    t = doc.table
    iso = t.isolation_level
    console.print(f"[bold]{_text(t.uri)}[/bold]")
    if doc.time_window is not None:
        console.print(_text(doc.time_window["text"]))
    layout = f"partitioned by {', '.join(t.partition_columns) or '(none)'}"
    if t.clustering_columns:
        layout += f" · clustered by {', '.join(t.clustering_columns)}"
    console.print(
        f"versions {t.first_version}..{t.latest_version} · {t.num_commits} commits · "
        f"{t.num_files} live files · {_text(layout)}"
    )
    profiles = sorted({r.profile for r in doc.races})
    console.print(
        f"isolation {_text(iso.value)} ({_text(iso.source)}) · "
        f"writers: {_text(', '.join(t.engines_seen) or '-')} · "
        f"profiles: {_text(', '.join(profiles) or '-')}"
    )


def _timeline(doc: ExplainDocument, commits: Commits, console: Console) -> None:
    races, conflicts = doc.races, doc.conflicts
    console.print()
    if not races and not conflicts:
        console.print(f"No races and no conflicts: {_text(no_race_reason(doc))}.")
        return
    table = Table(
        title=f"Timeline: {len(races)} race(s), {len(conflicts)} conflict(s)", expand=False
    )
    for col in ("read → commit", "operation", "writer", "raced against", "outcome"):
        table.add_column(col)
    rows: list[tuple[float, list[str]]] = []
    for r in races:
        known = commits.get(r.version)
        writer = (known.writer if known is not None else "").split(", cluster ")[0]
        outcome = (
            "commits" if r.outcome == "commits" else f"[red]{_text(r.outcome)} ({r.code})[/red]"
        )
        if r.outcome == "commits" and r.fragile_under:
            outcome = "commits [yellow](fragile)[/yellow]"
        rows.append(
            (
                r.version,
                [
                    f"v{r.read_version} → v{r.version}",
                    _text(r.operation),
                    _text(writer),
                    _winners(r),
                    outcome,
                ],
            )
        )
    for c in conflicts:
        read = c.loser.read_version
        at = c.winner_version if c.winner_version is not None else read
        rows.append(
            (
                (at if at is not None else 1e18) + 0.5,
                [
                    f"v{read if read is not None else '?'} → failed",
                    _text(c.loser.statement or f"({c.source})")[:60],
                    "",
                    _span(c.candidates) if c.winner_version is None else f"v{c.winner_version}",
                    f"[red]{_text(c.exception)} ({c.code})[/red]",
                ],
            )
        )
    for _, row in sorted(rows, key=lambda r: r[0]):
        table.add_row(*row)
    console.print(table)


def _commit_text(commits: Commits, version: int) -> str:
    return _text(commit_summary(commits.get(version), version))


def _findings(doc: ExplainDocument, commits: Commits, console: Console) -> None:
    paragraphs: list[str] = []
    for c in doc.conflicts:
        statement = c.loser.statement
        lines = [
            f"[bold red]{_text(c.exception)}[/bold red] ({c.code}, from {_text(c.source)}, "
            f"confidence {c.confidence})" + (f": {_text(statement[:200])}" if statement else "")
        ]
        if c.winner_version is not None:
            lines.append("  winner: " + _commit_text(commits, c.winner_version))
        elif c.candidates:
            lines.append(f"  winner: one of {_span(c.candidates)}")
        lines.append(f"  why: {_text(c.reason)}")
        paragraphs.append("\n".join(lines))
    for r in doc.races:
        if r.outcome == "commits" and not r.fragile_under:
            continue
        head = _commit_text(commits, r.version)
        verdict = (
            "committed"
            if r.outcome == "commits"
            else f"[red]the checker raises {_text(r.outcome)} ({r.code})[/red]"
        )
        lines = [f"[bold]{head}[/bold] — {verdict} under {_text(r.profile)}"]
        for w in r.winners:
            lines.append("  raced: " + _commit_text(commits, w))
        if r.missing_winners:
            lines.append(f"  raced: {missing_text(r.missing_winners)} from the retained log")
        lines.append(
            f"  reads: {_text(r.read_predicate or 'nothing')} ({_text(r.read_reason)}; "
            f"confidence {r.confidence})"
        )
        lines.append(f"  why: {_text(r.reason)}")
        if r.fragile_under:
            fragile = "; ".join(
                f"{f.change} → {f.outcome} against v{f.winner_version}" for f in r.fragile_under
            )
            lines.append(f"  [yellow]would fail under[/yellow]: {_text(fragile)}")
        paragraphs.append("\n".join(lines))
    if not paragraphs:
        return
    console.print("\n[bold]Findings[/bold]")
    for text in paragraphs[:MAX_FINDINGS]:
        console.print(text)
    if len(paragraphs) > MAX_FINDINGS:
        console.print(f"… and {len(paragraphs) - MAX_FINDINGS} more (see --format json or html)")


def _anomalies(anomalies: Sequence[Anomaly], console: Console) -> None:
    if not anomalies:
        return
    table = Table(title=f"Anomalies ({len(anomalies)})", expand=False)
    for col in ("code", "severity", "versions", "what"):
        table.add_column(col)
    for a in anomalies:
        colour = {"error": "red", "warning": "yellow"}.get(a.severity, "")
        severity = f"[{colour}]{a.severity}[/{colour}]" if colour else a.severity
        table.add_row(a.code, severity, _span(a.versions), _text(a.reason))
    console.print()
    console.print(table)


def _recommendations(report: ExplainDocument, console: Console) -> None:
    recs: Sequence[Recommendation] = report.recommendations
    note = recommendations_note(report)
    if not recs:
        if report.recommendations_note:
            console.print()
            console.print(f"Recommendations: {_text(note)}")
        return
    table = Table(title=f"Recommendations ({len(recs)}), measured on this history", expand=False)
    for col in ("#", "change", "seen avoided", "introduces", "confidence"):
        table.add_column(col)
    for rank, r in enumerate(recs, start=1):
        table.add_row(
            str(rank),
            _text(change_text(r.change)),
            str(r.conflicts_avoided),
            str(r.conflicts_introduced),
            r.confidence,
        )
    console.print()
    console.print(table)
    for rank, r in enumerate(recs, start=1):
        console.print(f"[bold]{rank}.[/bold] {_text(r.rationale)}")
        console.print(f"   apply: {_text(r.apply) if r.apply else NO_APPLY_TEXT}")
    if note:
        console.print(_text(note))


def _winners(race: Race) -> str:
    """The winners still in the log, then the ranges of those missing from it."""
    present = [_span(race.winners)] if race.winners else []
    return "; ".join([*present, missing_text(race.missing_winners)]).strip("; ") or "-"


def _span(versions: Sequence[int]) -> str:
    if not versions:
        return "-"
    return f"v{versions[0]}" if len(versions) == 1 else f"v{versions[0]}..v{versions[-1]}"
