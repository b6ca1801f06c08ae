"""HTML-safe pieces shared by the report's sections: every helper returns escaped HTML."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from html import escape

from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.document.explain import Race
from deltaforensics.report.plain import visible

MAX_FILES_SHOWN = 5


def e(value: JsonValue) -> str:
    """Escape any JSON value for HTML text or a quoted attribute, control characters shown."""
    if value is None:
        return ""
    if isinstance(value, str):
        return escape(visible(value, keep="\n\t"), quote=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return escape(str(value))
    return escape(visible(json.dumps(value, sort_keys=True, ensure_ascii=False)), quote=True)


def code(value: JsonValue) -> str:
    return f"<code>{e(value)}</code>" if value not in (None, "") else muted_dash()


def muted_dash() -> str:
    return '<span class="muted">—</span>'


def or_dash(html: str) -> str:
    return html if html else muted_dash()


def versions(numbers: Iterable[int]) -> str:
    """``[9, 10, 11, 14]`` -> ``9–11, 14``."""
    runs: list[list[int]] = []
    for v in numbers:
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(e(r[0]) if len(r) == 1 else f"{e(r[0])}–{e(r[-1])}" for r in runs)


def utc_time(ms: int) -> str:
    """Epoch milliseconds as the report writes times: ``2024-03-04 06:08:00 UTC``."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def badge(text: JsonValue, cls: str) -> str:
    return f'<span class="badge {e(cls)}">{e(text)}</span>'


def files(paths: Sequence[str]) -> str:
    return capped_list([f"<code>{e(p)}</code>" for p in paths])


def capped_list(items: Sequence[str], shown: int = MAX_FILES_SHOWN) -> str:
    """A list of HTML ``items``: the first ``shown``, the rest folded behind "N more"."""
    if not items:
        return or_dash("")
    first = "".join(f"<li>{i}</li>" for i in items[:shown])
    rest = items[shown:]
    more = ""
    if rest:
        folded = "".join(f"<li>{i}</li>" for i in rest)
        more = (
            f'<details><summary>{len(rest)} more</summary><ul class="plain">{folded}</ul></details>'
        )
    return f'<ul class="plain">{first}</ul>{more}'


def table(
    headers: Sequence[str], rows: Sequence[tuple[str, str, Sequence[str]]], empty: str
) -> str:
    """``rows``: (id, css class, cells as HTML)."""
    if not rows:
        return f'<p class="muted">{e(empty)}</p>'
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "\n".join(
        f'<tr id="{e(rid)}" class="{e(cls)}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        for rid, cls, cells in rows
    )
    return f'<div class="scroll"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table></div>'


def section(title: str, content: str, anchor: str) -> str:
    return f'<section id="{anchor}">\n<h2>{e(title)}</h2>\n{content}\n</section>'


def race_status(race: Race) -> str:
    """``bad``: the model predicts a conflict; ``warn``: one change away from one; else ``ok``."""
    if race.outcome != "commits":
        return "bad"
    return "warn" if race.fragile_under else "ok"


def outcome(result: str, rule: str | None) -> str:
    if result == "commits":
        return "commits"
    return f"{e(result)}" + (f' <span class="muted">({e(rule)})</span>' if rule else "")
