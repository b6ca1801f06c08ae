"""The CI gate of ``explain`` and ``audit``: ``--fail-on`` less the findings of ``--baseline``,
and the ``--write-baseline`` and ``--junit-xml`` files.

The baseline is read before the table is (a wrong path fails at once, exit code 2); the files
are written after the reports, from the report documents alone, so that ``--redact`` covers
them as it covers the reports.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from deltaforensics.cli.options import GateOptions
from deltaforensics.errors import UsageError
from deltaforensics.report.baseline import Baseline, baseline_json, parse_baseline
from deltaforensics.report.document import ExplainDocument
from deltaforensics.report.findings import Finding, findings_of
from deltaforensics.report.gates import gate_hits
from deltaforensics.report.junit import Suite, junit_xml


@dataclass(frozen=True, slots=True, kw_only=True)
class GatedTable:
    """One table before the gate: ``name`` is the audit's name for it (``None`` for explain),
    ``suite`` its JUnit test suite name, ``error`` why the audit could not read it."""

    name: str | None
    suite: str
    findings: tuple[Finding, ...] = ()
    error: str | None = None

    @classmethod
    def of_report(cls, doc: ExplainDocument, name: str | None = None) -> GatedTable:
        return cls(name=name, suite=name or doc.table.uri, findings=findings_of(doc))


def read_baseline(options: GateOptions) -> Baseline:
    """The ``--baseline`` file (an empty baseline without one)."""
    if options.baseline is None:
        return Baseline()
    try:
        text = options.baseline.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--baseline {options.baseline}: {exc.strerror or exc}") from None
    return parse_baseline(text, str(options.baseline))


def gate(
    tables: Sequence[GatedTable],
    fail_on: Sequence[str],
    options: GateOptions,
    baseline: Baseline,
    *,
    started: datetime,
    quiet: bool,
) -> bool:
    """Write the files ``options`` ask for; whether any table has a finding that ``fail_on``
    selects and ``baseline`` does not accept."""
    failing = False
    suites = []
    accepted_count = 0
    for table in tables:
        accepted = baseline.accepted_for(table.name)
        accepted_count += sum(f.fingerprint in accepted for f in table.findings)
        failing = failing or bool(gate_hits(table.findings, fail_on, accepted))
        suites.append(
            Suite(
                name=table.suite,
                findings=table.findings,
                fail_on=tuple(fail_on),
                accepted=accepted,
                error=table.error,
            )
        )
    if options.write_baseline is not None:
        written = {t.name: t.findings for t in tables if t.error is None}
        _write(options.write_baseline, "--write-baseline", baseline_json(written))
    if options.junit_xml is not None:
        stamp = started.astimezone(UTC).isoformat(timespec="seconds")
        _write(options.junit_xml, "--junit-xml", junit_xml(suites, timestamp=stamp))
    if options.baseline is not None and not quiet:
        total = sum(len(t.findings) for t in tables)
        sys.stderr.write(
            f"baseline: {accepted_count} of {total} {_findings(total)} accepted "
            f"by {options.baseline}\n"
        )
    return failing


def _findings(n: int) -> str:
    return "finding" if n == 1 else "findings"


def _write(path: Path, option: str, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror or exc}") from None
