"""A code the tool reports (rule, anomaly or diagnostic) as a catalogue entry, and the ranges
codes are allotted from.

Every code is registered once as a :class:`Code`: the reports carry only its string, so the
catalogue is where its name, severity and documentation live, and ``deltaforensics rules`` and
``docs/rules.md`` are generated from it (ruff's catalogue, as the rules already had one).
Conflict rules keep their own registry (:mod:`deltaforensics.conflicts.registry`, documented
under the rule headings); anomalies (:mod:`~deltaforensics.model.anomaly_codes`) and
diagnostics (:mod:`~deltaforensics.model.diagnostic_codes`) are registered here, in the lowest
layer, because diagnostics are emitted from every layer from ``log`` to ``audit`` and several
codes from more than one of them.

Codes are forever: never renumbered or reused; a code no longer emitted stays with
``status="removed"``, one registered but never emitted with ``status="reserved"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.model.ids import Severity

# The documentation of an anomaly or diagnostic, in this order (rules have their own).
HEADINGS = ("## What it means", "## Why it matters", "## What to do")
STATUSES = ("stable", "reserved", "removed")


@dataclass(frozen=True, slots=True, kw_only=True)
class Code:
    """``severity``: the most severe level the code is reported at; a diagnostic whose finding
    is only a remark in some cases is then reported as info (its doc says when)."""

    code: str
    name: str
    severity: Severity
    title: str
    doc: str
    status: str = "stable"


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeRange:
    """Codes ``prefix + first`` … ``prefix + last`` (three digits) are about ``topic``."""

    prefix: str
    first: int
    last: int
    topic: str

    def holds(self, code: str) -> bool:
        digits = code[len(self.prefix) :]
        return (
            code.startswith(self.prefix)
            and len(digits) == 3
            and digits.isdigit()
            and self.first <= int(digits) <= self.last
        )

    @property
    def label(self) -> str:
        return f"{self.prefix}{self.first:03d}–{self.prefix}{self.last:03d}"


RANGES = (
    CodeRange(prefix="DC", first=1, last=9, topic="conflict rules on table state"),
    CodeRange(prefix="DC", first=10, last=99, topic="conflict rules on files"),
    CodeRange(prefix="AN", first=1, last=99, topic="anomalies visible in the log alone"),
    CodeRange(prefix="W", first=101, last=199, topic="the log's layout"),
    CodeRange(prefix="W", first=201, last=299, topic="what the actions say"),
    CodeRange(prefix="W", first=301, last=399, topic="predicates and transactions"),
    CodeRange(prefix="W", first=401, last=499, topic="the conflict model disagrees with the log"),
    CodeRange(prefix="W", first=501, last=599, topic="error texts"),
    CodeRange(prefix="W", first=601, last=699, topic="what-if"),
    CodeRange(prefix="W", first=701, last=799, topic="the audit's kept state"),
)


def range_of(code: str) -> CodeRange | None:
    """The documented range ``code`` belongs to; None for a code outside every range."""
    return next((r for r in RANGES if r.holds(code)), None)
