"""``--junit-xml``: the gate's findings as a JUnit XML report, for the test views and
annotations of CI systems (GitHub Actions reporters, Azure DevOps, GitLab, Jenkins).

The common JUnit format (Apache Ant's ``XMLJUnitResultFormatter`` output, as the Jenkins
``junit`` plugin and the ``windyroad/JUnit-Schema`` XSD describe it): a ``testsuites`` root, one
``testsuite`` per table, one ``testcase`` per finding. A finding that fails the gate (selected by
``--fail-on`` and not accepted by the baseline) is a ``failure``; one the baseline accepts is
``skipped``; any other finding passes, its account in ``system-out``. A test case's class is
``deltaforensics.<gate>`` (``conflict``, ``anomaly``, ``disagreement``), which reporters group by. A table with no finding
has one passing test case, so that every table shows; a table the audit could not read is an
``error``. Test case names carry the finding's versions, so two occurrences of one accepted
finding stay apart.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from deltaforensics.report.findings import Finding

NO_FINDINGS = "no findings"


@dataclass(frozen=True, slots=True, kw_only=True)
class Suite:
    """One table's findings and how the gate judged them; ``error``: why it was not read."""

    name: str
    findings: tuple[Finding, ...] = ()
    fail_on: tuple[str, ...] = ()
    accepted: frozenset[str] = frozenset()
    error: str | None = None


def junit_xml(suites: Sequence[Suite], *, timestamp: str) -> str:
    """The JUnit XML document of ``suites`` (``timestamp``: ISO-8601, when the run started)."""
    root = ET.Element("testsuites", name="deltaforensics")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in suites:
        element, counts = _suite(suite, timestamp)
        root.append(element)
        for key, n in counts.items():
            totals[key] += n
    for key, n in totals.items():
        root.set(key, str(n))
    root.set("time", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _suite(suite: Suite, timestamp: str) -> tuple[ET.Element, dict[str, int]]:
    element = ET.Element("testsuite", name=suite.name, timestamp=timestamp)
    counts = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    if suite.error is not None:
        case = _case(element, "deltaforensics", "read and analyse the table")
        ET.SubElement(case, "error", message=suite.error, type="error").text = suite.error
        counts["errors"] += 1
    elif not suite.findings:
        _case(element, "deltaforensics", NO_FINDINGS)
    for finding in suite.findings:
        verdict = _verdict(finding, suite.fail_on, suite.accepted)
        case = _case(element, f"deltaforensics.{finding.gate}", _case_name(finding))
        if verdict == "failure":
            failure = ET.SubElement(case, "failure", message=finding.title, type=finding.code)
            failure.text = f"{finding.detail}\nfingerprint: {finding.fingerprint}"
            counts["failures"] += 1
        elif verdict == "skipped":
            ET.SubElement(case, "skipped", message=f"accepted by the baseline ({finding.gate})")
            counts["skipped"] += 1
        else:
            ET.SubElement(case, "system-out").text = finding.detail
    counts["tests"] = len(element)
    for key, n in counts.items():
        element.set(key, str(n))
    element.set("time", "0")
    return element, counts


def _case(parent: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(parent, "testcase", name=name, classname=classname, time="0")


def _case_name(finding: Finding) -> str:
    versions = ", ".join(f"v{v}" for v in sorted(set(finding.versions)))
    return f"{finding.code} {finding.title}" + (f" ({versions})" if versions else "")


def _verdict(finding: Finding, fail_on: Collection[str], accepted: Collection[str]) -> str:
    if finding.fingerprint in accepted:
        return "skipped"
    return "failure" if finding.gate in fail_on else "passed"
