"""Baseline files: the findings a team has accepted, by fingerprint (:mod:`.findings`).

``--write-baseline FILE`` writes every finding of a run; ``--baseline FILE`` reads one back, and
``--fail-on`` then fails only on findings it does not list. The file is JSON meant to be
committed and reviewed beside the job it gates: one entry per distinct finding, sorted, with a
title that names it without versions, so that a re-written baseline differs only by what
really changed. An entry written by ``audit`` names its table (the config's name for it); one
written by ``explain`` names none and is accepted for any table.

::

    {"baseline_version": 1,
     "generator": {"name": "deltaforensics", "version": "0.2.0"},
     "findings": [{"fingerprint": "5c0d…", "table": null, "gate": "anomaly", "code": "AN001",
                   "title": "duplicate-remove: OPTIMIZE by delta-rs writer in date=2024-01-01"}]}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from deltaforensics.errors import UsageError
from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.findings import GATES, Finding
from deltaforensics.version import VERSION

BASELINE_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Accepted:
    """One accepted finding; ``table`` is ``None`` when it is accepted for any table."""

    fingerprint: str
    table: str | None
    gate: str
    code: str
    title: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Baseline:
    entries: tuple[Accepted, ...] = ()

    def accepted_for(self, table: str | None) -> frozenset[str]:
        """The fingerprints accepted for the audit table ``table`` (``None``: explain, which
        names no table and takes every entry)."""
        return frozenset(
            e.fingerprint for e in self.entries if table is None or e.table in (None, table)
        )


def baseline_json(findings_by_table: Mapping[str | None, Iterable[Finding]]) -> str:
    """The baseline file accepting every finding given, per table (``None``: any table)."""
    entries = {
        (table or "", f.fingerprint): Accepted(
            fingerprint=f.fingerprint, table=table, gate=f.gate, code=f.code, title=f.title
        )
        for table, findings in findings_by_table.items()
        for f in findings
    }
    doc = {
        "baseline_version": BASELINE_VERSION,
        "generator": {"name": "deltaforensics", "version": VERSION},
        "findings": [_entry_json(entries[k]) for k in sorted(entries)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _entry_json(entry: Accepted) -> dict[str, JsonValue]:
    return {
        "fingerprint": entry.fingerprint,
        "table": entry.table,
        "gate": entry.gate,
        "code": entry.code,
        "title": entry.title,
    }


def parse_baseline(text: str, source: str) -> Baseline:
    """The baseline in ``text``; a :class:`UsageError` naming ``source`` and what is wrong."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--baseline {source}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        raise UsageError(f"--baseline {source}: not a baseline file (no findings list)")
    version = doc.get("baseline_version")
    if version != BASELINE_VERSION:
        raise UsageError(
            f"--baseline {source}: baseline_version {version!r} is not {BASELINE_VERSION}; "
            "write it again with --write-baseline"
        )
    return Baseline(entries=tuple(_accepted(e, source, i) for i, e in enumerate(doc["findings"])))


def _accepted(entry: JsonValue, source: str, index: int) -> Accepted:
    if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
        raise UsageError(f"--baseline {source}: findings[{index}] has no fingerprint")
    table = entry.get("table")
    gate = entry.get("gate")
    return Accepted(
        fingerprint=entry["fingerprint"],
        table=table if isinstance(table, str) else None,
        gate=gate if gate in GATES else "",
        code=str(entry.get("code") or ""),
        title=str(entry.get("title") or ""),
    )
