"""The report's section tables: races, conflicts, attempts, anomalies, recommendations and
diagnostics, one row per entry, each row with an ``id`` the timeline links to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.model.anomaly_codes import ANOMALY_CODES
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.change_words import change_words, rewrite_words
from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.explain import Attempt, Commit, Race
from deltaforensics.report.html.format import (
    badge,
    capped_list,
    code,
    e,
    files,
    or_dash,
    outcome,
    race_status,
    table,
    utc_time,
    versions,
)
from deltaforensics.report.plain import NO_APPLY_TEXT, commit_summary, missing_text
from deltaforensics.report.prose import Code, Phrase, attempt_line, explain_race, fragility_words
from deltaforensics.whatif.recommendations.candidates import Recommendation


def race_winners(r: Race, commits: Mapping[int | None, Commit]) -> str:
    """Who won: each winner's operation, writer and time (the first few; the rest folded), then
    the winners no longer in the log."""
    named = [_named_commit(v, commits) for v in r.winners]
    shown = capped_list(named) if named else ""
    if r.missing_winners:
        shown += f'<div class="small muted">{e(missing_text(r.missing_winners))}</div>'
    return or_dash(shown)


def _named_commit(version: int, commits: Mapping[int | None, Commit]) -> str:
    """What, who and when in the cell; the whole of commit_summary (files, partitions,
    predicate: the one sentence naming a commit, which the prose module may reword) on hover."""
    c = commits.get(version)
    summary = commit_summary(c, version)
    if c is None:
        return f'<span class="small" data-winner="{e(version)}">{e(summary)}</span>'
    when = utc_time(c.timestamp) if c.timestamp is not None else "time unknown"
    return (
        f'<span class="small" data-winner="{e(version)}" title="{e(summary)}">'
        f"<b>v{e(version)} {e(c.operation)}</b> by {e(c.writer)} · {e(when)}</span>"
    )


def races(
    entries: Sequence[Race], none: str, commits: Mapping[int | None, Commit] | None = None
) -> str:
    rows = []
    for i, r in enumerate(entries):
        winners = race_winners(r, commits or {})
        fragile = fragility_words(r) if r.fragile_under else ""
        words = {label: _phrase(phrase) for label, phrase in explain_race(r, commits or {}).details}
        iso = r.isolation_level
        own = (commits or {}).get(r.version)
        by = f'<div class="small muted">by {e(own.writer)}</div>' if own is not None else ""
        cells = [
            f"v{e(r.version)}{by}",
            e(r.read_version),
            winners,
            e(r.operation),
            f"{outcome(r.outcome, r.code)}<div>{badge(r.confidence, r.confidence)}</div>",
            f'{code(r.read_predicate)}<div class="small muted">{words["read"]}</div>',
            words["why"],
            e(fragile) if fragile else or_dash(""),
            f'{e(iso.value)}<div class="small muted">{e(iso.source)}</div>'
            f'<div class="small">{e(r.profile)}</div>',
        ]
        rows.append((f"race-{i}", race_status(r), cells))
    headers = ["Version", "Read", "Winners (who committed first)", "Operation", "Outcome"]
    return table(
        [*headers, "Read predicate", "Why", "Would fail if", "Isolation · profile"],
        rows,
        f"No races: {e(none)}.",
    )


def _phrase(words: Phrase) -> str:
    """A prose phrase as HTML: text escaped, code pieces as ``<code>`` (never backticks)."""
    return "".join(f"<code>{e(p.text)}</code>" if isinstance(p, Code) else e(p) for p in words)


def _winner(c: Conflict, commits: Mapping[int | None, Commit]) -> str:
    if c.winner_version is None:
        return f"one of {versions(c.candidates)}" if c.candidates else ""
    v = c.winner_version
    winner = f"v{e(v)}"
    if v in commits:
        winner += f'<div class="small muted">{e(commit_summary(commits[v], v))}</div>'
    return winner


def conflicts(entries: Sequence[Conflict], commits: Mapping[int | None, Commit]) -> str:
    rows = []
    for i, c in enumerate(entries):
        loser = c.loser
        who = (
            f"v{e(loser.version)}"
            if loser.version is not None
            else '<span class="muted">not committed</span>'
        )
        if loser.statement:
            who += f"<div>{code(loser.statement)}</div>"
        parts = "".join(
            "<li>"
            + e(", ".join(f"{k}={'null' if v is None else v}" for k, v in p.items()))
            + "</li>"
            for p in c.partitions or ()
        )
        cells = [
            e(c.source) + (f'<div class="muted">{e(c.app_id)}</div>' if c.app_id else ""),
            who,
            or_dash(e(loser.read_version)),
            or_dash(_winner(c, commits)),
            outcome(c.exception, c.code),
            badge(c.confidence, c.confidence),
            f'<ul class="plain">{parts}</ul>' if parts else or_dash(""),
            files(c.files or ()),
            e(c.reason),
        ]
        rows.append((f"conflict-{i}", "conflict", cells))
    headers = ["Source", "Loser", "Read", "Winner", "Exception", "Confidence", "Partitions"]
    return table([*headers, "Files", "Why"], rows, "No conflicts.")


def attempts(entries: Sequence[Attempt]) -> str:
    rows = []
    for i, a in enumerate(entries):
        winner = f"v{e(a.winner_version)}" if a.winner_version is not None else ""
        cells = [
            code(a.statement),
            or_dash(e(a.read_version)),
            e(a.profile),
            outcome(a.outcome, a.code),
            or_dash(winner),
            e(a.reason),
        ]
        rows.append((f"attempt-{i}", "ok" if a.outcome == "commits" else "bad", cells))
    lines = "".join(
        f'<li class="{"ok" if a.outcome == "commits" else "bad"}">{e(attempt_line(i, a))}</li>'
        for i, a in enumerate(entries, start=1)
    )
    summary = f'<ul class="plain">{lines}</ul>\n' if lines else ""
    return summary + table(
        ["Statement", "Read", "Profile", "Outcome", "Winner", "Why"],
        rows,
        "No attempted statements were checked.",
    )


_ANOMALY_TITLES = {c.code: c.title for c in ANOMALY_CODES}  # a kind's name is ours, not a word


def anomalies(entries: Sequence[Anomaly]) -> str:
    rows = [
        (
            f"anomaly-{i}",
            "bad" if a.severity == "error" else "warn" if a.severity == "warning" else "ok",
            [
                badge(a.severity, a.severity),
                e(a.code),
                e(_ANOMALY_TITLES.get(a.code, a.kind)),
                or_dash(versions(a.versions)),
                files(a.files or ()),
                e(a.reason),
            ],
        )
        for i, a in enumerate(entries)
    ]
    return table(["Severity", "Code", "What", "Versions", "Files", "Reason"], rows, "No anomalies.")


def evaluated_text(ev: Mapping[str, int]) -> str:
    return (
        f"{ev['races']} races, {ev['errors']} errors, {ev['attempts']} attempts, "
        f"{ev['writer_pairs']} writer pairs"
    )


def recommendations(entries: Sequence[Recommendation], note: str = "") -> str:
    """The recommendations table, then ``note`` (nothing to prevent, sampled, more behind
    ``--all``)."""
    rows = []
    for i, r in enumerate(entries):
        apply = (
            f"<pre>{e(r.apply)}</pre>"
            if r.apply
            else f'<span class="muted">{e(NO_APPLY_TEXT)}</span>'
        )
        cells = [
            e(rewrite_words(change_words(r.change), r.rewrites_table)),
            f'<span class="num">{e(r.conflicts_avoided)}</span>',
            f'<span class="num">{e(r.conflicts_introduced)}</span>',
            f'<span class="small">{e(evaluated_text(r.evaluated_on))}</span>',
            badge(r.confidence, r.confidence),
            e(r.rationale),
            apply,
        ]
        rows.append((f"recommendation-{i}", "warn" if r.conflicts_introduced else "ok", cells))
    headers = [
        "Change",
        "Seen conflicts avoided",
        "Introduced",
        "Evaluated on",
        "Confidence",
        "Rationale",
    ]
    shown = table([*headers, "Apply"], rows, note or "No recommendations.")
    if note and entries:
        shown += f'\n<p class="muted">{e(note)}</p>'
    return shown


def diagnostics(entries: Sequence[Diagnostic]) -> str:
    rows = [
        (
            f"diagnostic-{i}",
            "",
            [badge(d.severity, d.severity), e(d.code), or_dash(e(d.version)), e(d.message)],
        )
        for i, d in enumerate(entries)
    ]
    return table(["Severity", "Code", "Version", "Message"], rows, "No diagnostics.")
