"""Plain-text pieces shared by the renderers (each escapes for its own format)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from deltaforensics.model.diagnostic_codes import RACES_NOT_VISIBLE
from deltaforensics.model.gaps import version_spans
from deltaforensics.model.words import plural
from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.document.explain import Commit, ExplainDocument

# C0 controls, DEL, C1 controls, and the bidirectional overrides and isolates that reorder what
# a reader sees ("Trojan Source"): a log string holding one must not drive the reader's terminal
# (ESC starts window-title, clear-screen and hyperlink sequences), nor a document.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NO_APPLY_TEXT = (
    "no statement to apply: the writers of this table cannot make this change (see why above)"
)


def missing_text(ranges: Sequence[Sequence[int]]) -> str:
    """``v2–v9998, v10001 missing`` for the ranges ``[2, 9998], [10001, 10001]``."""
    spans = version_spans(ranges)
    return f"{spans} missing" if spans else ""


def _shown(match: re.Match[str]) -> str:
    ch = match.group()
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def has_control(value: str) -> bool:
    """Whether :func:`visible` would change ``value`` (with nothing kept)."""
    return _CONTROL.search(value) is not None


def visible(value: str, *, keep: str = "") -> str:
    """``value`` with every control character written visibly (ESC -> ``\\x1b``).

    The one function every human format (terminal, text tables, Markdown, HTML) passes a string
    from the log through; ``keep`` names the characters a format shows as themselves (newline,
    tab). JSON needs none of this: it escapes them itself and keeps the exact text.
    """
    if not _CONTROL.search(value):
        return value
    if not keep:
        return _CONTROL.sub(_shown, value)
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else _shown(m), value)


# A table cell holding a string from the log or the user shows this much of it (issue #32: a
# 50 MB predicate printed as 694,452 terminal lines); the JSON report keeps it whole.
MAX_CELL = 120


def cut(value: str, most: int = MAX_CELL) -> str:
    """``value`` in at most ``most`` characters, the rest marked ``…``; cut before escaping,
    so no escape (``\\x1b``, ``&lt;``) is ever cut in half."""
    return value if len(value) <= most else value[: most - 1] + "…"


def visible_lines(text: str) -> str:
    """The report's own lines (``\\n``-separated), each escaped by :func:`visible`: the
    breaks stay breaks, any other control character in them is shown."""
    return "\n".join(visible(line) for line in text.split("\n"))


def change_text(change: Mapping[str, JsonValue]) -> str:
    """``{"kind": "partition-by", "columns": ["date"]}`` -> ``partition-by columns=date``."""
    params = []
    for key in sorted(k for k in change if k != "kind"):
        v = change[key]
        shown = (
            ", ".join(map(str, v))
            if isinstance(v, list)
            else v
            if isinstance(v, str)
            else json.dumps(v)
        )
        params.append(f"{key}={shown}")
    return " ".join([str(change.get("kind", "?")), *params])


def commit_summary(c: Commit | None, version: int) -> str:
    """One line naming a commit of the report's ``commits``: what, who, when, where."""
    if c is None:
        return f"v{version} (no longer in the log)"
    when = (
        datetime.fromtimestamp(c.timestamp / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        if c.timestamp is not None
        else "time unknown"
    )
    parts = [f"v{version} {c.operation} by {c.writer}", when]
    if c.read_version is not None:
        parts.append(f"read v{c.read_version}")
    parts.append(f"+{c.num_added_files}/-{c.num_removed_files} files")
    if c.partitions:
        shown = ", ".join(",".join(f"{k}={v}" for k, v in p.items()) for p in c.partitions[:3])
        more = len(c.partitions) - 3 + c.more_partitions
        parts.append(f"in {shown}" + (f" (+{more} more)" if more > 0 else ""))
    if c.predicate:
        parts.append(f"predicate {c.predicate}")
    return " · ".join(parts)


def race_visibility_text(doc: ExplainDocument) -> str:
    """``races: unknown for v1–v13 (no readVersion recorded, W304)``, or ``""`` when every
    commit's read version is known: "could not check" kept apart from "nothing found"."""
    if doc.race_visibility is None:
        return ""
    return f"{doc.race_visibility.describe()} (no readVersion recorded, {RACES_NOT_VISIBLE.code})"


def commits_by_version(commits: tuple[Commit, ...]) -> dict[int | None, Commit]:
    """The report's commit details, by version, for the renderers' winner lines."""
    return {c.version: c for c in commits}


def recommendations_note(doc: ExplainDocument) -> str:
    """Why there is no recommendation (nothing to prevent, none helps), that the evaluation
    sampled, and how many more ``--all`` shows; "" when there is nothing to say."""
    parts = []
    note = doc.recommendations_note
    if note:
        parts.append(note[:1].upper() + note[1:] + ".")
    elif not doc.recommendations:
        parts.append("None.")
    if doc.recommendations_more:
        parts.append(
            f"{plural(doc.recommendations_more, 'more recommendation')} measured: run with --all "
            "to see them."
        )
    return " ".join(parts)
