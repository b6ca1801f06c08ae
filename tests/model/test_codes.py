"""The catalogue of codes: every code the package uses is registered once, in its documented
range, documented under the fixed headings, and reported at no more than its severity."""

from __future__ import annotations

import ast
import importlib
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.conflicts.registry import RULES, rule_by_code
from deltaforensics.model import diagnostics
from deltaforensics.model.anomaly_codes import ANOMALY_CODES
from deltaforensics.model.codes import HEADINGS, STATUSES, Code, range_of
from deltaforensics.model.diagnostic_codes import DIAGNOSTIC_CODES
from deltaforensics.model.ids import Severity
from deltaforensics.report.catalogue import all_codes, code_entry

PACKAGE = Path(__file__).resolve().parents[2] / "deltaforensics"
CODE_LITERAL = re.compile(r"""["']((?:DC|AN|W)[0-9]{3,4})["']""")


def _sources() -> dict[str, str]:
    return {
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts): p.read_text()
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_code_used_in_the_package_is_registered() -> None:
    registered = {c.code for c in all_codes()}
    used = {
        (module, code) for module, text in _sources().items() for code in CODE_LITERAL.findall(text)
    }
    assert used, "the scan found no code at all"
    assert not {(m, c) for m, c in used if c not in registered}


def test_no_code_is_registered_twice() -> None:
    counts = Counter(c.code for c in all_codes())
    assert [code for code, n in counts.items() if n > 1] == []
    for kind in (ANOMALY_CODES, DIAGNOSTIC_CODES):
        names = Counter(c.name for c in kind)
        assert [name for name, n in names.items() if n > 1] == []


@pytest.mark.parametrize("entry", all_codes(), ids=lambda c: c.code)
def test_every_code_is_in_its_documented_range_and_well_formed(entry: Code) -> None:
    assert range_of(entry.code) is not None, entry.code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry.name), entry.name
    assert entry.title and "\n" not in entry.title
    assert entry.status in STATUSES
    assert isinstance(entry.severity, Severity)


def test_the_kinds_keep_to_their_prefixes() -> None:
    assert all(c.code.startswith("AN") for c in ANOMALY_CODES)
    assert all(c.code.startswith("W") for c in DIAGNOSTIC_CODES)
    assert all(r.code.startswith("DC") for r in RULES)


@pytest.mark.parametrize("entry", [*ANOMALY_CODES, *DIAGNOSTIC_CODES], ids=lambda c: c.code)
def test_every_code_documents_itself_under_the_fixed_headings(entry: Code) -> None:
    positions = [entry.doc.find(f"\n{h}\n") for h in HEADINGS]
    assert min(positions) >= 0 and positions == sorted(positions), (entry.code, positions)
    sections = re.split(r"\n## [^\n]+\n", entry.doc)[1:]
    assert all(s.strip() for s in sections), entry.code
    assert not re.search(r"^#{1,2} ", entry.doc.replace("\n## ", "\n"), re.M), entry.code


@cache
def _diagnostic_calls() -> list[tuple[str, str, Code]]:
    """``(module, "warning" or "info", code)`` of every call that makes a diagnostic."""
    found: list[tuple[str, str, Code]] = []
    for module_name, text in _sources().items():
        calls = [
            node
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("warning", "info")
        ]
        if not calls:
            continue
        module = importlib.import_module(module_name)
        for call in calls:
            maker = getattr(module, call.func.id, None)  # type: ignore[attr-defined]
            if maker not in (diagnostics.warning, diagnostics.info):
                continue
            first = call.args[0]
            assert isinstance(first, ast.Name), (module_name, call.lineno, "name the code")
            code = getattr(module, first.id)
            assert isinstance(code, Code), (module_name, call.lineno)
            found.append((module_name, maker.__name__, code))
    return found


def test_no_diagnostic_is_reported_above_its_registered_severity() -> None:
    calls = _diagnostic_calls()
    assert calls
    too_severe = [
        (module, code.code)
        for module, made_as, code in calls
        if made_as == "warning" and code.severity is not Severity.WARNING
    ]
    assert too_severe == []
    assert all(code in DIAGNOSTIC_CODES for _, _, code in calls)


def test_every_stable_diagnostic_is_emitted_and_no_reserved_one_is() -> None:
    emitted = {code.code for _, _, code in _diagnostic_calls()}
    stable = {c.code for c in DIAGNOSTIC_CODES if c.status == "stable"}
    assert emitted == stable


def test_a_diagnostic_is_named_from_the_catalogue() -> None:
    made = diagnostics.warning(DIAGNOSTIC_CODES[0], "gap", 3)
    assert (made.code, made.name, made.severity) == ("W101", "commit-gap", Severity.WARNING)


def test_rules_lists_the_rules_as_before_then_anomalies_and_diagnostics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    rules_part, *sections = out.split("\n\n")
    assert rules_part == "\n".join(f"{r.code}  {r.name:<26} {r.exception}" for r in RULES)
    assert [s.splitlines()[0] for s in sections] == ["Anomalies", "Diagnostics"]
    listed = [line.split()[0] for s in sections for line in s.splitlines()[1:]]
    assert listed == [c.code for c in (*ANOMALY_CODES, *DIAGNOSTIC_CODES)]


@pytest.mark.parametrize("code", ["W401", "an001", "DC010"])
def test_rules_documents_any_code(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", code]) == 0
    out = capsys.readouterr().out
    entry = code_entry(code)
    assert out.startswith(f"# {entry.code} {entry.name} (")
    assert entry.doc.strip() in out


def test_a_rule_page_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    for rule in RULES:
        assert main(["rules", rule.code]) == 0
        out = capsys.readouterr().out
        assert out == f"# {rule.code} {rule.name} ({rule.exception})\n{rule.doc.strip()}\n"
    assert rule_by_code("dc010").code == "DC010"
