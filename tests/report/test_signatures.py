"""The report layer is typed end to end (issue #30): no function in ``deltaforensics/report``
takes or returns ``Any``. What is plain JSON data is named so (``JsonValue``), and a typed
document is what every renderer, the redaction and the gate take."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

REPORT = REPO / "deltaforensics" / "report"


def _mentions_any(annotation: ast.expr) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Any":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        quoted = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if quoted and _mentions_any(ast.parse(node.value, mode="eval").body):
            return True
    return False


def any_in_signatures(source: str, name: str) -> list[str]:
    """``name:line function`` for every function whose parameters or return mention ``Any``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        annotations = [p.annotation for p in params if p is not None and p.annotation is not None]
        if node.returns is not None:
            annotations.append(node.returns)
        if any(_mentions_any(a) for a in annotations):
            found.append(f"{name}:{node.lineno} {node.name}")
    return found


def test_the_scan_finds_any_however_it_is_written() -> None:
    source = (
        "from typing import Any\nimport typing\n"
        "def a(x: Any) -> None: ...\n"
        "def b(x: int) -> dict[str, Any]: ...\n"
        "def c(*xs: 'typing.Any') -> None: ...\n"
        "def d(**kw: int) -> int: ...\n"
        "class K:\n    async def e(self, x: 'list[Any]') -> None: ...\n"
    )
    assert [f.split(" ")[1] for f in any_in_signatures(source, "m")] == ["a", "b", "c", "e"]


def test_no_report_function_takes_or_returns_any() -> None:
    found = [
        hit
        for path in sorted(REPORT.rglob("*.py"))
        for hit in any_in_signatures(path.read_text(encoding="utf-8"), _name(path))
    ]
    assert found == [], "Any in report/ signatures (name the type, or JsonValue):\n" + "\n".join(
        found
    )


def _name(path: Path) -> str:
    return str(path.relative_to(REPO))
