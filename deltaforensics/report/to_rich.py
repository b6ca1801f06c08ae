"""Terminal rendering of the explain report (rich). Every log string is escaped."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def render_explain(doc: dict[str, Any], console: Console) -> None:
    t = doc["table"]
    iso = t["isolation_level"]
    console.print(f"[bold]{escape(t['uri'])}[/bold]")
    console.print(
        f"versions {t['first_version']}..{t['latest_version']} · {t['num_commits']} commits · "
        f"{t['num_files']} live files · partitioned by {escape(', '.join(t['partition_columns']) or '(none)')}"
        + (
            f" · clustered by {escape(', '.join(t['clustering_columns']))}"
            if t["clustering_columns"]
            else ""
        )
    )
    console.print(
        f"isolation {escape(iso['value'])} ({escape(iso['source'])}) · writers: {escape(', '.join(t['engines_seen']))}"
    )
    races = doc["races"]
    console.print()
    if not races:
        console.print("No races: every commit read the version just before it.")
    else:
        table = Table(
            title=f"Races ({len(races)}): commits rebased over commits they did not read",
            expand=False,
        )
        for col in ("version", "read", "winners", "operation", "outcome", "fragile under"):
            table.add_column(col)
        for r in races:
            fragile = (
                ", ".join(f"{f['change']} → {f['outcome']}" for f in r["fragile_under"]) or "-"
            )
            outcome = (
                r["outcome"]
                if r["outcome"] == "commits"
                else f"[red]{r['outcome']} ({r['code']})[/red]"
            )
            table.add_row(
                str(r["version"]),
                str(r["read_version"]),
                _span(r["winners"]),
                escape(r["operation"]),
                outcome,
                escape(fragile),
            )
        console.print(table)
        for r in races:
            if r["fragile_under"] or r["outcome"] != "commits":
                console.print(
                    f"[bold]v{r['version']}[/bold] {escape(r['operation'])}: {escape(r['reason'])}"
                )
                console.print(
                    f"  reads: {escape(r['read_predicate'] or 'nothing')} — {escape(r['read_reason'])}"
                )
    for section in ("conflicts", "anomalies", "recommendations"):
        if doc.get(section):
            console.print(f"\n[bold]{section.title()}[/bold]: {len(doc[section])}")
    problems = [d for d in doc["diagnostics"] if d["severity"] != "info"]
    if problems:
        console.print(f"\n[bold]Diagnostics[/bold] ({len(problems)})")
        for d in problems[:30]:
            where = f" v{d['version']}" if d["version"] is not None else ""
            console.print(f"  {d['code']}{where}: {escape(d['message'])}")


def _span(versions: list[int]) -> str:
    if not versions:
        return "-"
    return str(versions[0]) if len(versions) == 1 else f"{versions[0]}..{versions[-1]}"
