"""Remarks about a log that the tool could read around: values, never raised.

Codes are forever (never renumbered or reused). ``W1xx`` log layout, ``W2xx`` content,
``W3xx`` predicates and transactions, ``W4xx`` conflict-model disagreements, ``W5xx`` error texts, ``W6xx``
what-if, ``W7xx`` the audit's kept state.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.model.ids import Severity

CODES: dict[str, str] = {
    "W101": "commit-gap",
    "W102": "checkpoint-fallback",
    "W103": "last-checkpoint-stale",
    "W104": "last-checkpoint-unreadable",
    "W105": "staged-commits-present",
    "W106": "junk-files-ignored",
    "W107": "log-starts-after-zero",
    "W108": "incomplete-checkpoint",
    "W109": "compacted-file-ignored",
    "W201": "unknown-action",
    "W202": "missing-commit-info",
    "W203": "unparsed-operation-parameters",
    "W204": "empty-commit",
    "W205": "invalid-protocol",
    "W206": "metadata-without-schema",
    "W110": "catalog-managed-table",
    "W301": "unparsed-predicate",
    "W302": "read-version-unknown",
    "W303": "read-version-not-before-version",
    "W401": "model-disagreement",
    "W501": "no-exception-in-error-text",
    "W502": "commit-retries-exhausted",
    "W601": "partition-layout",
    "W602": "footprint-unknown",
    "W603": "change-not-applicable",
    "W604": "baseline-not-reproduced",
    "W605": "change-is-a-metadata-commit",
    "W701": "audit-state-discarded",
    "W702": "history-kept-beyond-retention",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    version: int | None = None

    @property
    def name(self) -> str:
        return CODES.get(self.code, "unknown")

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": str(self.severity),
            "message": self.message,
            "version": self.version,
        }


def warning(code: str, message: str, version: int | None = None) -> Diagnostic:
    return Diagnostic(code=code, severity=Severity.WARNING, message=message, version=version)


def info(code: str, message: str, version: int | None = None) -> Diagnostic:
    return Diagnostic(code=code, severity=Severity.INFO, message=message, version=version)
