"""Every rule, alone: at least one race where it fires and one where it stays quiet.

Races are real logs from ``scenarios.py`` (mostly section E rows); each case runs just the one
rule against every winner, so a quiet case means this rule has no objection, whatever the others
say. A catalogue test keeps every rule in ``registry.RULES`` covered both ways.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.conflicts.checker import findings
from deltaforensics.conflicts.registry import RULES, rule_by_code
from deltaforensics.conflicts.rule import Finding, RuleContext
from tests.conflicts import scenarios as sc
from tests.conflicts.scenarios import DBR, DEFAULT, DELTA_RS, OSS31, OSS41, WS, Builder, S, Variant

FIRES, QUIET = True, False

# fmt: off
CASES = [
    ("DC005", OSS41, sc.e36, DEFAULT, FIRES, "restore-after-any-commit"),
    ("DC005", OSS41, sc.e36_clone, DEFAULT, FIRES, "clone-after-any-commit"),
    ("DC005", OSS41, sc.e05, S, QUIET, "update-resolves-conflicts"),
    ("DC001", OSS41, sc.e35, DEFAULT, FIRES, "winner-drops-a-feature"),
    ("DC001", OSS41, sc.e34, DEFAULT, FIRES, "two-creators"),
    ("DC001", DELTA_RS, sc.protocol_upgrade, DEFAULT, FIRES, "delta-rs-any-protocol-change"),
    ("DC001", OSS41, sc.protocol_upgrade, DEFAULT, QUIET, "spark-adopts-added-features"),
    ("DC001", OSS41, sc.e20, DEFAULT, QUIET, "no-protocol-action"),
    ("DC002", OSS41, sc.e16, DEFAULT, FIRES, "add-columns"),
    ("DC002", OSS41, sc.e21, DEFAULT, FIRES, "append-only-not-allow-listed"),
    ("DC002", OSS41, sc.e20_disable, DEFAULT, FIRES, "disabling-is-not-allow-listed"),
    ("DC002", DBR, sc.e20, DEFAULT, FIRES, "databricks-no-allow-list"),
    ("DC002", OSS41, sc.e20, DEFAULT, QUIET, "enable-deletion-vectors-allow-listed"),
    ("DC002", OSS41, sc.e23, WS, QUIET, "identity-high-water-mark"),
    ("DC002", OSS41, sc.e17, DEFAULT, QUIET, "loser-changes-metadata-winner-not"),
    ("DC003", OSS41, sc.domain_clash, DEFAULT, FIRES, "both-write-delta-clustering"),
    ("DC003", OSS41, sc.e37, DEFAULT, QUIET, "row-tracking-domain-is-merged"),
    ("DC004", OSS41, sc.e24, DEFAULT, FIRES, "same-streaming-query"),
    ("DC004", OSS41, sc.e40, DEFAULT, FIRES, "same-txn-app-id"),
    ("DC004", OSS41, sc.e25, DEFAULT, QUIET, "different-queries"),
    ("DC010", OSS41, sc.e05, S, FIRES, "append-into-read-partition"),
    ("DC010", OSS41, sc.e32, WS, FIRES, "delta-rs-append-not-marked-blind"),
    ("DC010", OSS41, sc.e18, WS, FIRES, "loser-changes-metadata"),
    ("DC010", OSS41, sc.e06, WS, QUIET, "blind-append-under-write-serializable"),
    ("DC010", OSS41, sc.e04, S, QUIET, "other-partition"),
    ("DC010", OSS41, sc.e13, DEFAULT, QUIET, "snapshot-isolation-loser"),
    ("DC010", DBR, sc.e31, DEFAULT, QUIET, "databricks-optimize-on-dv-table"),
    ("DC011", OSS41, sc.e11, DEFAULT, FIRES, "merge-read-everything"),
    ("DC011", OSS41, sc.e14, DEFAULT, FIRES, "optimize-input-deleted"),
    ("DC011", DELTA_RS, sc.e33, DEFAULT, FIRES, "delta-rs-append-reads-all-files"),
    ("DC011", OSS41, sc.e14_disjoint, DEFAULT, QUIET, "not-an-optimize-input"),
    ("DC011", DELTA_RS, sc.e33_optimize, DEFAULT, QUIET, "delta-rs-ignores-data-change-false"),
    ("DC012", OSS41, sc.e27, DEFAULT, FIRES, "delete-vs-dynamic-overwrite"),
    ("DC012", OSS31, sc.e27, DEFAULT, FIRES, "delete-vs-dynamic-overwrite-3.1"),
    ("DC012", OSS41, sc.e07, DEFAULT, QUIET, "different-partitions"),
    ("DC012", DELTA_RS, sc.e15, DEFAULT, QUIET, "delta-rs-two-compactions"),
]
# fmt: on


@pytest.mark.parametrize(
    ("code", "variant", "builder", "isolation", "fires"),
    [
        pytest.param(c, v, b, i, f, id=f"{c}-{'fires' if f else 'quiet'}-{n}")
        for c, v, b, i, f, n in CASES
    ],
)
def test_rule(
    tmp_path: Path, code: str, variant: Variant, builder: Builder, isolation: str, fires: bool
) -> None:
    race = sc.build(tmp_path, variant, builder, isolation)
    rule = rule_by_code(code)
    found: list[Finding] = []
    for winner in race.winners:
        ctx = RuleContext(loser=race.loser, winner=winner, profile=variant.profile, history=race.replay,
                          overrides=dict(variant.overrides))  # fmt: skip
        found += findings([rule], ctx)
    assert bool(found) is fires, [f.reason for f in found] or "no finding"
    for f in found:
        assert (f.code, f.exception) == (rule.code, rule.exception)
        assert f.reason


def test_every_rule_has_a_firing_and_a_quiet_case() -> None:
    covered = {(code, fires) for code, *_, fires, _name in CASES}
    for rule in RULES:
        assert (rule.code, FIRES) in covered, f"{rule.code} has no firing case"
        assert (rule.code, QUIET) in covered, f"{rule.code} has no quiet case"
    assert {c for c, *_ in CASES} <= {r.code for r in RULES}


def test_every_rule_documents_itself() -> None:
    headings = [
        "## What it detects",
        "## Why Delta raises it",
        "## Example",
        "## How to avoid it",
        "## Delta source",
    ]
    for rule in RULES:
        positions = [rule.doc.find(h) for h in headings]
        assert min(positions) >= 0 and positions == sorted(positions), rule.code
        assert rule.check.__module__.rsplit(".", 1)[-1].startswith(rule.code.lower() + "_")


def test_rules_command_prints_the_doc(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "DC010"]) == 0
    out = capsys.readouterr().out
    rule = rule_by_code("DC010")
    assert out.startswith(f"# DC010 {rule.name} (ConcurrentAppendException)")
    assert rule.doc.strip() in out
    for heading in ("## What it detects", "## Why Delta raises it", "## How to avoid it"):
        assert heading in out


def test_rules_command_rejects_an_unknown_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "DC999"]) == 2
    assert "DC999" in capsys.readouterr().err


def test_the_checker_stamps_each_rule_s_code_and_exception() -> None:
    """A rule's check returns a hit that does not say which rule it is; only the checker
    (``Rule.finding``) puts the code and the exception on it, so no rule module spells its
    code or exception outside its docstring and its ``RULE``."""
    for rule in RULES:
        module = sys.modules[rule.check.__module__]
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        body = [n for n in tree.body if not (isinstance(n, ast.Expr) and n is tree.body[0])]
        spelled = [
            n.value
            for stmt in body
            if not (isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == "RULE")
            for n in ast.walk(stmt)
            if isinstance(n, ast.Constant) and n.value in (rule.code, rule.exception)
        ]
        assert not spelled, (rule.code, spelled)
