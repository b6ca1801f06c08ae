"""Command-line conventions (issue #21): profile names checked with a suggestion, shell
completion, an example in every command's help, every format named in ``--format``'s help."""

from __future__ import annotations

import os
import subprocess
import sys
from enum import Enum
from typing import Any

import pytest
import typer.main

from deltaforensics.cli import app, main
from tests.conftest import CORPUS, REPO

SIMPLE = CORPUS / "deltars__simple_table"
COMMAND: Any = typer.main.get_command(app)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["explain", str(SIMPLE), "--profile", "databricks-99"], "did you mean databricks-17.3?"),
        (["explain", str(SIMPLE), "--profile", "databricks-14.9"], "did you mean databricks-14.3?"),
        (["explain", str(SIMPLE), "--profile", "delta-sprak-3.2"], "did you mean delta-spark-3.2?"),
        (
            ["whatif", str(SIMPLE), "--isolation", "Serializable", "--profile", "delta-rs-7"],
            "did you mean delta-rs-1.6?",
        ),
        (
            [
                *("explain", str(SIMPLE), "--attempt", "DELETE FROM t", "--read-version", "1"),
                *("--attempt-profile", "spark-3.2"),
            ],
            "did you mean delta-spark-3.2?",
        ),
    ],
)
def test_an_unknown_profile_exits_2_with_the_nearest_name(
    capsys: pytest.CaptureFixture[str], args: list[str], suggestion: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: unknown profile") and suggestion in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "name", ["databricks-14.3", "delta-spark 3.2.0", "delta-rs-1.6.6", "kernel"]
)
def test_a_known_profile_is_taken(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, _, err = run(
        capsys,
        "explain",
        str(SIMPLE),
        "--profile",
        name,
        "--format",
        "json",
        "--no-recommendations",
    )
    assert code == 0, err


def test_the_completion_script_is_shown_for_the_console_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--show-completion")
    assert code == 0
    assert "_DELTAFORENSICS_COMPLETE=" in out and "deltaforensics" in out


def test_completion_completes_commands_options_and_formats() -> None:
    """The shell asks the program itself, through the variable of the completion script."""

    def complete(words: str) -> list[str]:
        env = {
            **os.environ,
            "_DELTAFORENSICS_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split(" ")) - 1),
        }
        done = subprocess.run(
            [sys.executable, "-m", "deltaforensics"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        return done.stdout.split()

    assert complete("deltaforensics ex") == ["explain"]
    assert "--baseline" in complete("deltaforensics explain t --ba")
    assert complete("deltaforensics explain t --format ") == ["rich", "json", "html", "markdown"]


@pytest.mark.parametrize("name", sorted(COMMAND.commands))
def test_every_command_help_shows_an_example_of_itself(name: str) -> None:
    help_text = COMMAND.commands[name].help or ""
    examples = [line for line in help_text.splitlines() if "deltaforensics " in line]
    assert examples and all(f"deltaforensics {name} " in e for e in examples)


@pytest.mark.parametrize("name", sorted(COMMAND.commands))
def test_format_help_names_every_format(name: str) -> None:
    for param in COMMAND.commands[name].params:
        if "--format" in getattr(param, "opts", ()):
            formats = param.type_descriptor.annotation
            assert issubclass(formats, Enum)
            for choice in formats:
                assert choice.value in (param.help or ""), (name, choice)


def test_every_engine_default_version_is_a_known_release() -> None:
    """A forced profile without a version takes the engine's default: that must be a name the
    check accepts too."""
    from deltaforensics.profiles import profile_by_name
    from deltaforensics.profiles.versions import DEFAULT_VERSIONS

    for engine, version in DEFAULT_VERSIONS.items():
        name = "-".join([engine, ".".join(map(str, version))]) if version else engine
        assert profile_by_name(name).version == profile_by_name(engine).version
