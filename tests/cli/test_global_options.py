"""``--debug`` and ``--quiet`` work before the command and after it, on every command (issue #19:
the crash message says "report with --debug", yet ``explain T --debug`` was a usage error)."""

from __future__ import annotations

import pytest

from deltaforensics import __version__
from deltaforensics.cli import Invocation, app, main

# each command's arguments up to the point where it runs (it may then fail on the missing input)
REACHING = {
    "history": ["history", "/no/such/table"],
    "snapshot": ["snapshot", "/no/such/table"],
    "explain": ["explain", "/no/such/table"],
    "whatif": ["whatif", "/no/such/table", "--isolation", "Serializable"],
    "audit": ["audit", "/no/such/audit.toml"],
    "rules": ["rules", "DC010"],
}
GLOBAL = ["--debug", "--quiet"]


def test_every_command_is_covered() -> None:
    names = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    assert names == set(REACHING)


@pytest.mark.parametrize("placement", ["before", "after"])
@pytest.mark.parametrize("command", sorted(REACHING))
def test_global_options_are_taken_before_or_after_the_command(
    command: str, placement: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = REACHING[command]
    argv = [*GLOBAL, *args] if placement == "before" else [*args, *GLOBAL]
    invocation = Invocation()
    code = main(argv, invocation=invocation)
    err = capsys.readouterr().err
    assert "No such option" not in err and code in (0, 2, 3), err
    assert invocation.debug and invocation.quiet  # recorded: the command was reached


@pytest.mark.parametrize("command", sorted(REACHING))
def test_each_commands_help_lists_the_global_options(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "--debug" in out and "--quiet" in out


@pytest.mark.parametrize("argv", [["--debug", "explain", "/nope"], ["explain", "/nope", "--debug"]])
def test_debug_after_the_command_shows_the_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith("error: /nope: path not found")


def test_without_debug_an_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "/nope"]) == 3
    assert capsys.readouterr().err == "error: /nope: path not found\n"


def test_the_root_prints_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"deltaforensics {__version__}\n"
