"""Every command's ``--help`` at 80 columns (issue #32, item 6): a golden per command in
``tests/cli/help80/``, and no option name cut or split across lines. Rewrite the goldens with
``DELTAFORENSICS_UPDATE_HELP=1 python -m pytest tests/cli/test_help80.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer

from deltaforensics.cli.app import app, main

GOLDEN = Path(__file__).parent / "help80"
COMMANDS = ["", "history", "snapshot", "explain", "whatif", "audit", "rules"]


def _help(command: str, flag: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main([*filter(None, [command]), flag]) == 0
    return capsys.readouterr().out


def _names(command: str) -> list[str]:
    group = typer.main.get_command(app)
    cmd = group if not command else group.commands[command]  # type: ignore[attr-defined]
    return [n for p in cmd.params for n in (*p.opts, *p.secondary_opts) if n.startswith("-")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c or "root")
def test_help_at_80_columns_keeps_every_flag_name_whole(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERMINAL_WIDTH", "80")
    text = _help(command, "--help", capsys)
    assert max(len(line) for line in text.splitlines()) <= 80
    words = {w.strip(",") for line in text.splitlines() for w in line.split()}
    for name in _names(command):
        if name not in {"--install-completion", "--show-completion"} or not command:
            assert name in words, f"{name} is cut or missing in {command or 'root'} --help"
    assert "…" not in "".join(w for w in words if w.startswith("-"))
    golden = GOLDEN / f"{command or 'root'}.txt"
    if os.environ.get("DELTAFORENSICS_UPDATE_HELP") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), f"{golden} differs"
    assert _help(command, "-h", capsys) == text  # -h is --help, on every command


def test_capital_v_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    from deltaforensics.version import VERSION

    assert main(["-V"]) == 0
    assert capsys.readouterr().out == f"deltaforensics {VERSION}\n"
