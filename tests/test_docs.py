"""Docs that can drift are checked: the README's commands are the ones CI and users run."""

from __future__ import annotations

import re
from pathlib import Path

from deltaforensics.cli import app

REPO = Path(__file__).resolve().parent.parent


def _quick_start() -> list[str]:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_the_quick_start_has_exactly_two_commands() -> None:
    commands = _quick_start()
    assert len(commands) == 2, commands
    install_and_run, test = commands
    assert install_and_run.startswith("pip install . && deltaforensics ")
    sample = next(word for word in install_and_run.split() if word.startswith("sample_logs/"))
    assert (REPO / sample / "_delta_log").is_dir(), (
        f"the quick start names a missing sample: {sample}"
    )
    assert test.startswith("pip install -e '.[dev]' && python -m pytest")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    test = _quick_start()[1]
    lines = [line.strip() for line in ci.splitlines() if line.strip() and not line.startswith("#")]
    assert any(line.replace(" -q", "") == test for line in lines), (test, lines)


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        assert f"deltaforensics {name}" in readme, name


def test_generated_docs_are_fresh() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "generate_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_rule_documents_itself_under_the_fixed_headings() -> None:
    from deltaforensics.conflicts.registry import RULES

    headings = [
        "## What it detects",
        "## Why Delta raises it",
        "## Example",
        "## How to avoid it",
        "## Delta source",
    ]
    codes = [r.code for r in RULES]
    assert len(set(codes)) == len(codes)
    for rule in RULES:
        positions = [rule.doc.find(h) for h in headings]
        assert all(p >= 0 for p in positions), (rule.code, positions)
        assert positions == sorted(positions), rule.code
        module = rule.check.__module__.rsplit(".", 1)[-1]
        assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}" or module.startswith(
            rule.code.lower()
        ), module


def test_the_generated_rules_page_documents_every_code() -> None:
    from deltaforensics.report.catalogue import all_codes

    page = (REPO / "docs" / "rules.md").read_text()
    missing = [c.code for c in all_codes() if f"\n### {c.code} {c.name}\n" not in page]
    assert missing == []
