"""Engine behaviour is profile data: nothing outside ``deltaforensics/profiles`` asks which
engine a profile is. ``profile.engine`` stays a label for report text; a comparison with it
(``==``, ``!=``, ``in``, ``not in``) means a behaviour that belongs in a profile row."""

from __future__ import annotations

import ast
from pathlib import Path

from deltaforensics.profiles import ENGINES

PACKAGE = Path(__file__).resolve().parents[2] / "deltaforensics"
PROFILES = PACKAGE / "profiles"
# Two copies of one exception in a text keep the printer one of them names (a Databricks mark
# in either wins): evidence about the text, not behaviour of a checker. Which engine wrote a
# commit is profiles/versions.py's ``engine_of_commit``, next to ``profile_for``.
ERROR_TEXT_FAMILIES = {PACKAGE / "evidence" / "conflict_evidence.py"}


def _is_engine_label(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "engine"
    return False


def _reads_with(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "EngineName"
    )


def _names_an_engine(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in ENGINES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_an_engine(e) for e in node.elts)
    return False


def engine_branches(source: str) -> list[int]:
    """Lines that compare an ``.engine`` attribute, or anything with an engine's name (a set of
    engine names tested for membership is the same branch in another form)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if any(_reads_with(o) for o in operands):
            continue  # which engine reads the log (polars or Spark), not which wrote it
        if any(_is_engine_label(o) or _names_an_engine(o) for o in operands):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_profiles_branches_on_the_engine() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if PROFILES not in path.parents and path not in ERROR_TEXT_FAMILIES
        for line in engine_branches(path.read_text(encoding="utf-8"))
    ]
    assert found == [], (
        "engine tests outside profiles/ (add a profile field instead): " + ", ".join(found)
    )


def test_the_check_sees_every_form_of_engine_test() -> None:
    source = """
if profile.engine == "delta-rs": pass
if t.profile.engine != "delta-rs": pass
if ctx.profile.engine in ("delta-spark", "databricks"): pass
if t.profile.engine not in SPARK: pass
if engine == "kernel": pass
if "delta-rs" in self.engines: pass
if engines == {"databricks"}: pass
"""
    assert engine_branches(source) == [2, 3, 4, 5, 6, 7, 8]


def test_the_engine_label_may_still_be_printed_and_grouped() -> None:
    source = """
text = f"{profile.engine} default"
engines = sorted({t.profile.engine for t in txns})
if engine in (None, EngineName.polars): pass
if self.engine is EngineName.spark: pass
"""
    assert engine_branches(source) == []
