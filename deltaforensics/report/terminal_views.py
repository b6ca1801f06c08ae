"""The terminal views of ``history``, ``snapshot``, ``whatif`` and ``rules``, fitted to the
console width (80 columns and up) with rich.

Each takes the command's typed document (or its JSON form, e.g. a redacted one) and a console;
the CLI uses them when stdout is a terminal and keeps the plain text or JSON it always wrote
when piped. Wide columns (engine, bytes) appear only when the console has room for them;
identifiers fold onto the next line, never cut.
"""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from deltaforensics.conflicts.registry import RULES
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.model.words import plural
from deltaforensics.report.catalogue import SECTIONS, code_entry
from deltaforensics.report.change_words import REWRITE_WORDS, change_words
from deltaforensics.report.document.history import (
    HistoryCommit,
    HistoryDocument,
    SnapshotDocument,
)
from deltaforensics.report.document.whatif import WhatIfDocument
from deltaforensics.report.plain import cut
from deltaforensics.report.prose import failure_words, rule_code
from deltaforensics.report.terminal import fitted_table, heading, labelled, safe
from deltaforensics.report.to_text import key_parameters, who_wrote

WIDE = 120  # from this width on, the history shows engines and bytes too


def _diagnostics(diagnostics: tuple[Diagnostic, ...], console: Console) -> None:
    problems = [d for d in diagnostics if d.severity != "info"]
    if not problems:
        return
    heading(console, "Diagnostics", plural(len(problems), "warning"))
    rows = [
        (f"{d.code}" + (f" v{d.version}" if d.version is not None else ""), Text(safe(d.message)))
        for d in problems
    ]
    console.print(labelled(rows, indent=2))


def _size(n: int | None) -> str:
    if n is None:
        return ""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(n)


def render_history(h: HistoryDocument, console: Console) -> None:
    """Two lines per commit: when, what, what it read (a race marked ▲), files changed and
    who; beneath, its parameters (predicate, mode), wrapped under themselves.

    Laid out by hand rather than as a rich table: a history can hold 100,000 commits, and the
    parameters need the whole width, not a squeezed last column."""
    console.print(Text(safe(h.table), style="bold"), overflow="fold")
    if h.time_window is not None:
        console.print(Text(safe(h.time_window.describe())))
    console.print(
        Text(
            f"{plural(len(h.commits), 'commit')}; ▲ marks a commit that read an older "
            "version than the one before it (a race)",
            style="dim",
        )
    )
    wide = console.width >= WIDE
    rows = [_history_row(c, wide=wide) for c in h.commits]
    if not rows:
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 2)]
    width = console.width
    out: list[str] = []
    for row in rows:
        cells = [
            c.rjust(w) if i == 0 else c.ljust(w)
            for i, (c, w) in enumerate(zip(row[:-2], widths, strict=True))
        ]
        prefix = "  ".join(cells) + "  "
        who = textwrap.wrap(row[-2], max(8, width - len(prefix)), break_on_hyphens=False) or [""]
        out.append(safe(prefix + who[0]).rstrip())
        out.extend(safe(" " * len(prefix) + more) for more in who[1:])
        if row[-1]:
            indent = " " * (widths[0] + 2)
            out.extend(
                safe(line)
                for line in textwrap.wrap(
                    row[-1],
                    width,
                    initial_indent=indent,
                    subsequent_indent=indent + "  ",
                    break_on_hyphens=False,
                )
            )
    console.print(Text("\n".join(out)), overflow="fold", crop=False)
    _diagnostics(h.diagnostics, console)


def _history_row(c: HistoryCommit, *, wide: bool) -> list[str]:
    """The first line's cells, then who, then the parameters line."""
    raced = c.read_version is not None and c.read_version < c.version - 1
    read = "" if c.read_version is None else f"read v{c.read_version}" + (" ▲" if raced else "")
    when = (c.timestamp_iso or "").replace("T", " ").removesuffix("Z")[:16]
    op = cut(c.operation or ("(no commitInfo)" if not c.has_commit_info else ""))
    row = [f"v{c.version}", when, op, read, f"+{c.num_added_files} −{c.num_removed_files}"]
    params = cut(key_parameters(c.operation_parameters))
    if wide:
        blind = "blind" if c.is_blind_append else ""
        row.append(cut(" ".join(p for p in (c.isolation_level or "", blind) if p)))
        engine = cut(c.engine_info or c.client_version or "")
        params = " · ".join(p for p in (engine, params) if p)
    return [*row, cut(who_wrote(c)), params]


def render_snapshot(s: SnapshotDocument, console: Console) -> None:
    """The live files at a version: partition, size and deletion vector, the path folded."""
    console.print(Text(safe(s.table), style="bold"), overflow="fold")
    if s.time_window is not None:
        console.print(Text(safe(s.time_window.describe())))
    total = sum(f.size or 0 for f in s.files)
    layout = ", ".join(s.partition_columns) or "(none)"
    console.print(
        Text(
            f"version {s.version} · {plural(s.num_files, 'live file')} · {_size(total)} · "
            f"partitioned by {safe(layout)}"
        )
    )
    # a column says something only if some file has a value for it
    columns = [("partition", bool(s.partition_columns)), ("size", True)]
    columns += [("DV", any(f.deletion_vector for f in s.files)), ("path", True)]
    headers = [name for name, shown in columns if shown]
    rows = []
    for f in s.files:
        cells = {
            "partition": ", ".join(f"{k}={v}" for k, v in f.partition_values.items()),
            "size": _size(f.size),
            "DV": "yes" if f.deletion_vector else "",
            "path": f.path,
        }
        rows.append([cells[h] for h in headers])
    console.print(fitted_table(headers, rows, no_wrap=("size", "DV")))
    _diagnostics(s.diagnostics, console)


def render_whatif(w: WhatIfDocument, console: Console) -> None:
    """What a change would avoid and introduce, then each pair it changes (or all when few)."""
    worded = "; ".join(change_words(c) for c in w.scenario.changes)
    changes = worded[:1].lower() + worded[1:] if worded else "(no change)"  # inside a question
    title = Text("What if you ", style="bold")
    title.append(safe(changes), style="bold cyan")
    title.append(f" on {safe(w.table.uri)}?", style="bold")
    console.print(title)
    if w.rewrites_table:
        console.print(
            Text(f"Applying it {REWRITE_WORDS}: that commit fails every concurrent writer.")
        )
    if w.time_window is not None:
        console.print(Text(safe(w.time_window.describe())))
    base, result = w.baseline, w.result
    ev = w.evaluated_on
    rows = [
        (
            "seen",
            Text(
                f"avoids {w.conflicts_avoided} of {plural(base.conflicts, 'conflict')} seen, "
                f"introduces {w.conflicts_introduced}; conflicts {base.conflicts} → "
                f"{result.conflicts}, fragile races {base.fragile_races} → {result.fragile_races}"
            ),
        ),
        (
            "measured on",
            Text(
                f"{plural(ev['races'], 'race')}, {plural(ev['errors'], 'error')}, "
                f"{plural(ev['attempts'], 'attempt')}, {plural(ev['writer_pairs'], 'writer pair')}; "
                f"confidence {w.confidence}"
            ),
        ),
    ]
    h = w.hypothetical
    if h and h.get("writer_pairs"):
        rows.append(
            (
                "writer pairs",
                Text(
                    f"of {plural(h['writer_pairs'], 'writer pair')}, {h['conflicting_before']} "
                    f"conflict when they overlap today; the change avoids {h['avoided']} and "
                    f"introduces {h['introduced']}; they overlapped "
                    f"{plural(h['overlapped'], 'time')} in this history"
                ),
            )
        )
    console.print(labelled(rows, indent=2))
    changed = [p for p in w.pairs if p.before != p.after]
    shown = changed or list(w.pairs)
    heading(
        console,
        "Pairs",
        f"{plural(len(changed), 'pair')} {'changes' if len(changed) == 1 else 'change'} outcome"
        if changed
        else "no pair changes outcome",
    )
    table_rows = []
    for p in shown:
        loser = f"v{p.loser.version}" if p.loser.version is not None else "attempt"
        table_rows.append(
            [loser, f"v{p.winner_version}", _outcome(p.before), _outcome(p.after), p.reason]
        )
    if table_rows:
        console.print(
            fitted_table(
                ["loser", "winner", "before", "after", "why"],
                table_rows,
                no_wrap=("loser", "winner"),
            )
        )
    _diagnostics(w.diagnostics, console)


def _outcome(outcome: str) -> str:
    if outcome == "commits":
        return "commits"
    return failure_words(outcome, rule_code(outcome))


def render_rules(code: str | None, console: Console) -> None:
    """Every code with its Databricks error class and title, or one code's page as Markdown
    reflowed to the width. KeyError naming an unknown code."""
    if code is not None:
        entry = code_entry(code)
        title = f"# {entry.code} {entry.title}"
        rule = next((r for r in RULES if r.code == entry.code), None)
        if rule is not None:
            title += f" ({rule.error_class})"
        console.print(Markdown(f"{title}\n\n{entry.doc.strip()}"))
        return
    heading(console, "Conflict rules", "in Delta's order; docs/rules.md")
    console.print(
        fitted_table(
            ["code", "exception", "Databricks error class"],
            [[r.code, r.exception, r.error_class] for r in RULES],
            no_wrap=("code",),
        )
    )
    for title, codes in SECTIONS:
        heading(console, title)
        console.print(
            fitted_table(
                ["code", "severity", "what"],
                [[c.code, str(c.severity), c.title] for c in codes],
                no_wrap=("code", "severity"),
            )
        )
    console.print(Text("deltaforensics rules CODE shows one code's page.", style="dim"))
