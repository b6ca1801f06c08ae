"""The audit summary as text: one line per table, then the totals and where things went."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.text_table import render_table


def audit_text(summary_json: Mapping[str, JsonValue]) -> str:
    """The audit summary (the JSON data ``audit`` writes as ``summary.json``) as text."""
    summary: Any = summary_json  # read as the audit wrote it (deltaforensics.audit.run)
    rows = []
    for t in summary["tables"]:
        if t["status"] != "ok":
            rows.append([t["name"], "FAILED", "", "", "", "", "", t["error"]])
            continue
        read = t["read"]
        counts = t["counts"]
        rows.append(
            [
                t["name"],
                read["mode"],
                f"v{t['first_version']}..v{t['latest_version']}",
                str(read["commit_files_read"]),
                str(counts["races"]),
                str(counts["predicted_conflicts"] + counts["conflicts"]),
                str(counts["anomalies"]),
                ", ".join(t["fail_on_hits"]) or "-",
            ]
        )
    totals = summary["totals"]
    lines = [
        render_table(
            [
                "table",
                "read",
                "versions",
                "files read",
                "races",
                "conflicts",
                "anomalies",
                "fail-on",
            ],
            rows,
            max_width=90,
        ),
        "",
        f"{totals['tables']} table(s): {totals['ok']} ok, {totals['failed']} failed; "
        f"{totals['commits_read']} log file(s) read, {totals['races']} race(s), "
        f"{totals['predicted_conflicts'] + totals['conflicts']} conflict(s), "
        f"{totals['anomalies']} anomal{'y' if totals['anomalies'] == 1 else 'ies'}.",
    ]
    if summary["state"]:
        lines.append(f"state: {summary['state']}")
        lines += [
            f"state of {t['name']} not written: {t['state']['reason']}"
            for t in summary["tables"]
            if t.get("state") and not t["state"]["written"] and t["read"]["mode"] != "unchanged"
        ]
    for schema in summary.get("schemas", ()):  # Unity Catalog schemas (issue #22)
        if schema["new"]:
            lines.append(f"new in {schema['schema']}: {', '.join(schema['new'])}")
        lines += [
            f"{gone['name']} is no longer in {schema['schema']}; its kept state is retained"
            for gone in schema["disappeared"]
        ]
    lines.append(f"exit code {summary['exit_code']}")
    return "\n".join(lines)
