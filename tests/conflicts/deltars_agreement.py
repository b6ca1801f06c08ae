"""The analysis side of the delta-rs agreement tests: our model against what the engine did.

The engine side (:mod:`tests.conflicts.deltars_harness`) leaves, per case, the real table
(winner at v3; the loser at v4 when the engine let it commit) and a shadow table holding the
loser's would-be commit. Three checks per case, the delta-rs counterparts of issue #18's:

- ``predicts``: the loser's would-be commit, placed after the winner and read at v2, gets the
  engine's outcome from our checker, under the profile its own recorded ``clientVersion``
  selects (so the rows of ``profiles/versions.py`` are what is tested, release by release);
- ``explains``: when the engine refused, ``explain --error`` with its exact text, run on the
  real log, names the engine's exception and the winner's version, or, since a delta-rs
  message carries neither a version nor a time, leaves the winner open at low confidence with
  the real winner among its candidates (never a wrong winner);
- ``commits``: when the engine committed, ``explain`` on the real log reports no conflict for
  the loser's version and no W401, and AN001 exactly when the loser removed a file the winner
  had removed too (the data duplication of field notes §3.4).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltaforensics.analysis import analyze, load, open_store
from deltaforensics.conflicts.checker import check
from deltaforensics.transactions import reconstruct_transactions
from tests.conflicts.deltars_cases import COMMITS, Case
from tests.conflicts.deltars_envs import engine_python, run_harness

CHECKS = ("predicts", "explains", "commits")


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    case: Case
    release: str
    real: str
    message: str
    predicted: str
    reason: str
    profile: str
    # None where the check does not apply (no error text when the engine committed, ...)
    checks: dict[str, bool | None]

    def failures(self) -> list[str]:
        return [f"{name}: {self.detail(name)}" for name, ok in self.checks.items() if ok is False]

    def detail(self, name: str) -> str:
        if name == "predicts":
            return f"engine {self.real}; model {self.predicted} ({self.reason}) [{self.profile}]"
        if name == "explains":
            return f"the error text of {self.real} was not traced to the winner"
        return "the committed loser is reported as a conflict, W401, or its AN001 is wrong"


def run_engine(
    release: str, cases: tuple[Case, ...], work: Path
) -> dict[str, tuple[dict[str, Any], Path]]:
    """The engine's side of every case: ``case id -> (its results entry, its folder)``."""
    ran = run_harness(engine_python(release), [c.to_job() for c in cases], work)
    assert ran["deltalake"] == release, f"asked for deltalake {release}, ran {ran['deltalake']}"
    return {res["id"]: (res, work / res["folder"]) for res in ran["results"]}


def measure(release: str, cases: tuple[Case, ...], work: Path) -> list[CaseResult]:
    """Run ``cases`` on deltalake ``release`` and check each against the model."""
    ran = run_engine(release, cases, work)
    return [judge(case, *ran[case.id], release) for case in cases]


def judge(case: Case, res: dict[str, Any], folder: Path, release: str) -> CaseResult:
    predicted, reason, profile = _prediction(res, folder)
    checks: dict[str, bool | None] = {
        "predicts": predicted == res["outcome"],
        "explains": None,
        "commits": None,
    }
    real_log = str(folder / "real")
    if res["outcome"] == COMMITS:
        checks["commits"] = _committed_cleanly(real_log, res["winner_version"] + 1)
    elif res["message"]:
        checks["explains"] = _error_traced(real_log, res)
    return CaseResult(
        case=case,
        release=release,
        real=res["outcome"],
        message=res["message"],
        predicted=predicted,
        reason=reason,
        profile=profile,
        checks=checks,
    )


def _prediction(res: dict[str, Any], folder: Path) -> tuple[str, str, str]:
    """Our checker on the loser's would-be commit (the shadow table's) after the winner."""
    analysis = folder / "analysis" / "_delta_log"
    shutil.rmtree(analysis.parent, ignore_errors=True)
    analysis.mkdir(parents=True)
    winner, base = res["winner_version"], res["read_version"]
    for v in range(winner + 1):
        shutil.copy(folder / "real" / "_delta_log" / f"{v:020d}.json", analysis)
    shutil.copy(
        folder / "shadow" / "_delta_log" / f"{base + 1:020d}.json",
        analysis / f"{winner + 1:020d}.json",
    )
    rep = load(open_store(str(analysis.parent)), mode="history").replay
    txns = reconstruct_transactions(rep)
    loser = txns[winner + 1].reading_version(base, "test harness")
    verdict = check(loser, [txns[winner]], history=rep)
    return verdict.outcome, verdict.reason, verdict.profile.name


def _committed_cleanly(real_log: str, loser_version: int) -> bool:
    analysis = analyze(open_store(real_log), recommendations=False)
    conflicts = [
        r for r in analysis.races if r.version == loser_version and r.verdict.outcome != COMMITS
    ]
    w401 = [d for d in analysis.diagnostics if d.code == "W401"]
    double_removed = _removed_twice(analysis)
    an001 = any(a.code == "AN001" for a in analysis.anomalies)
    return not conflicts and not w401 and an001 == double_removed


def _removed_twice(analysis: Any) -> bool:
    removes = [set(t.written.removed["path"].to_list()) for t in analysis.transactions]
    seen: set[str] = set()
    for paths in removes:
        if seen & paths:
            return True
        seen |= paths
    return False


def _error_traced(real_log: str, res: dict[str, Any]) -> bool:
    analysis = analyze(
        open_store(real_log), error_texts=[("engine", res["message"])], recommendations=False
    )
    winner = res["winner_version"]
    return any(
        c.exception == res["outcome"]
        and (
            c.winner_version == winner
            or (c.winner_version is None and winner in c.candidates and c.confidence == "low")
        )
        for c in analysis.error_conflicts
    )


def agreement(results: list[CaseResult]) -> dict[str, tuple[int, int]]:
    """Per check: (cases agreeing, cases the check applies to)."""
    out: dict[str, tuple[int, int]] = {}
    for name in CHECKS:
        applied = [r.checks[name] for r in results if r.checks[name] is not None]
        out[name] = (sum(1 for ok in applied if ok), len(applied))
    return out
