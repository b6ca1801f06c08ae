"""Each command's body in ``cli/`` parses, builds the request, calls ``commands/``, renders and
gates: a few lines, the orchestration being the application layer's (docs/architecture.md)."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO

CLI = REPO / "deltaforensics" / "cli"
COMMANDS = ("explain", "whatif", "history", "snapshot", "audit")
MOST_LINES = 40  # the request spelled out field by field is most of them


def _body_lines(command: str) -> int:
    tree = ast.parse((CLI / f"{command}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == command:
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring is the command's help
            last = body[-1].end_lineno
            assert last is not None
            return last - body[0].lineno + 1
    raise AssertionError(f"cli/{command}.py defines no function {command}")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_body_in_the_cli_is_short(command: str) -> None:
    assert _body_lines(command) <= MOST_LINES


def test_the_cli_reads_no_log_and_runs_no_analysis() -> None:
    """Beside the import-linter contract: no module of ``cli/`` names the log, the loading
    or the analysis, even in an import inside a function."""
    forbidden = ("deltaforensics.log", "deltaforensics.loading", "deltaforensics.analysis")
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                assert not node.module.startswith(forbidden), f"{path.name}: {node.module}"
