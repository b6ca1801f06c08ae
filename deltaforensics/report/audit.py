"""The audit summary as text: one line per table, then the totals and where things went."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from deltaforensics.model.words import plural
from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.plain import visible


def audit_text(summary_json: Mapping[str, JsonValue]) -> str:
    """The audit summary (the JSON data ``audit`` writes as ``summary.json``) as text that fits
    80 columns: a wrapped paragraph per table (a failed one names its one-line error), then the
    totals and where things went. The exit code is the process's own, not written here."""
    summary: Any = summary_json  # read as the audit wrote it (deltaforensics.audit.run)
    lines = [_wrapped(_table_line(t)) for t in summary["tables"]]
    totals = summary["totals"]
    lines += [
        "",
        _wrapped(
            f"{plural(totals['tables'], 'table')}: {totals['ok']} ok, {totals['failed']} failed; "
            f"{plural(totals['commits_read'], 'log file')} read, "
            f"{plural(totals['races'], 'race')}, "
            f"{plural(totals['predicted_conflicts'] + totals['conflicts'], 'conflict')}, "
            f"{plural(totals['anomalies'], 'anomaly', 'anomalies')}."
        ),
    ]
    if summary["state"]:
        lines.append(_wrapped(f"state: {summary['state']}"))
        lines += [
            _wrapped(f"state of {t['name']} not written: {t['state']['reason']}")
            for t in summary["tables"]
            if t.get("state") and not t["state"]["written"] and t["read"]["mode"] != "unchanged"
        ]
    for schema in summary.get("schemas", ()):  # Unity Catalog schemas (issue #22)
        if schema["new"]:
            lines.append(_wrapped(f"new in {schema['schema']}: {', '.join(schema['new'])}"))
        lines += [
            _wrapped(
                f"{gone['name']} is no longer in {schema['schema']}; its kept state is retained"
            )
            for gone in schema["disappeared"]
        ]
    return "\n".join(lines)


def _table_line(table: Mapping[str, JsonValue]) -> str:
    t: Any = table  # one table of the summary document (audit-summary-v1)
    if t["status"] != "ok":
        return f"{t['name']}: FAILED: {t['error']}"
    read, counts = t["read"], t["counts"]
    hits = ", ".join(t["fail_on_hits"])
    return (
        f"{t['name']}: {read['mode']} read of v{t['first_version']}..v{t['latest_version']} "
        f"({plural(read['commit_files_read'], 'log file')}); {plural(counts['races'], 'race')}, "
        f"{plural(counts['predicted_conflicts'] + counts['conflicts'], 'conflict')}, "
        f"{plural(counts['anomalies'], 'anomaly', 'anomalies')}"
        + (f"; fail-on: {hits}" if hits else "")
    )


def _wrapped(line: str) -> str:
    """``line`` (its control characters shown) in lines of at most 80 columns, the later ones
    indented; a word longer than that (a path) is kept whole."""
    return textwrap.fill(
        visible(line),
        width=80,
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )
