"""``--fail-on``: which selected kinds of finding a report holds (exit code 1 when any), less
the findings a ``--baseline`` accepts."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from deltaforensics.report.document.explain import ExplainDocument
from deltaforensics.report.findings import GATES, Finding, findings_of

FAIL_ON_CHOICES = GATES


def fail_on_hits(
    doc: ExplainDocument, fail_on: Iterable[str], accepted: Collection[str] = ()
) -> list[str]:
    """The selections in ``fail_on`` that the explain report ``doc`` triggers, in order;
    ``accepted``: fingerprints of findings that trigger nothing (a baseline's)."""
    return gate_hits(findings_of(doc), fail_on, accepted)


def gate_hits(
    findings: Iterable[Finding], fail_on: Iterable[str], accepted: Collection[str] = ()
) -> list[str]:
    """The selections in ``fail_on`` that some finding not in ``accepted`` belongs to."""
    selected = set(fail_on)
    hit = {f.gate for f in findings if f.gate in selected and f.fingerprint not in accepted}
    return [g for g in GATES if g in hit]
