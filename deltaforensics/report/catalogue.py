"""The catalogue of every code the reports carry, as ``deltaforensics rules`` prints it.

Rules are registered in :mod:`deltaforensics.conflicts.registry` (a rule is also its check and
its place in Delta's order); anomalies and diagnostics in :mod:`deltaforensics.model`. This is
where the three meet: one sequence of :class:`~deltaforensics.model.codes.Code`, one lookup,
one text rendering. The rule lines and pages are printed exactly as before the catalogue held
anything else, so the two sections that follow them are additions.
"""

from __future__ import annotations

from deltaforensics.conflicts.registry import RULES
from deltaforensics.conflicts.rule import Rule
from deltaforensics.model.anomaly_codes import ANOMALY_CODES
from deltaforensics.model.codes import Code
from deltaforensics.model.diagnostic_codes import DIAGNOSTIC_CODES
from deltaforensics.model.ids import Severity

SECTIONS = ("Anomalies", ANOMALY_CODES), ("Diagnostics", DIAGNOSTIC_CODES)


def rule_entry(rule: Rule) -> Code:
    """A rule as a catalogue entry: a finding is the exception the engine raised (an error),
    and the exception's name is the rule's title everywhere it is shown."""
    return Code(
        code=rule.code,
        name=rule.name,
        severity=Severity.ERROR,
        title=rule.exception,
        doc=rule.doc,
        status=rule.status,
    )


def all_codes() -> tuple[Code, ...]:
    """Rules in Delta-Spark's order, then anomalies, then diagnostics."""
    return (*(rule_entry(r) for r in RULES), *ANOMALY_CODES, *DIAGNOSTIC_CODES)


def code_entry(code: str) -> Code:
    """The entry of ``code`` (any case); KeyError naming it when no entry has it."""
    wanted = code.upper()
    found = next((c for c in all_codes() if c.code == wanted), None)
    if found is None:
        raise KeyError(
            f"no rule, anomaly or diagnostic {code!r}; `deltaforensics rules` lists every code"
        )
    return found


def listing() -> str:
    """One line per code: the rules as they always were, then a section per other kind."""
    lines = [f"{r.code}  {r.name:<26} {r.exception}" for r in RULES]
    for heading, codes in SECTIONS:
        lines += ["", heading]
        lines += [f"{c.code:<5}  {c.name:<31}  {c.severity:<7}  {c.title}" for c in codes]
    return "\n".join(lines)


def page(code: str) -> str:
    """The documentation of one code; KeyError when there is no such code."""
    entry = code_entry(code)
    if entry.code.startswith("DC"):
        return f"# {entry.code} {entry.name} ({entry.title})\n{entry.doc.strip()}"
    return f"# {entry.code} {entry.name} ({entry.severity})\n{entry.title}\n\n{entry.doc.strip()}"
