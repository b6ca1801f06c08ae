"""Remarks about a log that the tool could read around: values, never raised.

Each names a registered code (:mod:`deltaforensics.model.diagnostic_codes`, where the codes,
their ranges and their documentation are); the report carries the code's string only.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.model.codes import Code
from deltaforensics.model.diagnostic_codes import DIAGNOSTIC_CODES
from deltaforensics.model.ids import Severity

_NAMES = {c.code: c.name for c in DIAGNOSTIC_CODES}


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    version: int | None = None

    @property
    def name(self) -> str:
        return _NAMES.get(self.code, "unknown")

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": str(self.severity),
            "message": self.message,
            "version": self.version,
        }


def warning(code: Code, message: str, version: int | None = None) -> Diagnostic:
    """Only for a code registered as a warning (tests/model/test_codes.py checks every call)."""
    return Diagnostic(code=code.code, severity=Severity.WARNING, message=message, version=version)


def info(code: Code, message: str, version: int | None = None) -> Diagnostic:
    return Diagnostic(code=code.code, severity=Severity.INFO, message=message, version=version)
