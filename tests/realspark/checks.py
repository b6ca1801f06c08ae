"""The three checks of one real pair, each through the CLI's JSON report.

(a) the loser committed: its race in ``explain`` says ``commits`` and no W401 names it;
(b) the loser failed: ``explain --error`` given the engine's exception text names the same
    exception and the winner's version;
(c) ``explain --attempt "<the loser's statement>" --read-version r`` (against the log up to the
    last winner) predicts the real outcome, and for a failure the same winner.
A pair the engine did not race (the loser never reached its commit, or a statement failed for
a reason of its own) is not a pair; it is reported with that reason, not counted.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltaforensics.cli import main
from tests.realspark.cases import Case

COMMITS = "commits"
# errors a release raises for a concurrent change outside its conflict checker: the outcome is
# the error class, and the model must name it as ``engine_error``
ENGINE_ERRORS = frozenset({"DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    case: str
    check: str  # "committed", "error", "attempt"
    real: str
    predicted: str
    agrees: bool
    detail: str = ""


def real_pair(record: dict[str, Any]) -> str | None:
    """Why the record is not a real race, or None when it is one."""
    if record.get("outcome") in (None, "harness-error", "hung"):
        return f"harness: {record.get('message', record.get('outcome'))}"
    if record.get("winner_error"):
        return f"winner failed: {record['winner_error'].get('text', '')[:200]}"
    winners = record.get("winner_versions") or []
    if record.get("raced") and (not winners or winners[-1] <= record.get("read_version", -1)):
        return "the winner wrote no commit (nothing to race)"
    if not record.get("raced"):
        return f"loser never reached its commit ({record.get('outcome')}: {record.get('message', '')[:160]})"
    if record["outcome"] == "error":
        return f"loser failed outside the conflict checker: {record.get('text', '')[:200]}"
    return None


def _explain(table: str, *args: str) -> tuple[int, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="df-check-") as tmp:
        out = Path(tmp) / "report.json"
        code = main(["explain", table, "--format", "json", "--output", str(out), *args])
        return code, (json.loads(out.read_text()) if out.exists() else {})


def check_committed(case: Case, record: dict[str, Any]) -> Verdict:
    code, report = _explain(record["table"])
    version = record["loser_version"]
    race = next((r for r in report.get("races", []) if r["version"] == version), None)
    disagreements = [
        d
        for d in report.get("diagnostics", [])
        if d["code"] == "W401" and d.get("version") == version
    ]
    predicted = race["outcome"] if race else f"no race at v{version}"
    agrees = race is not None and race["outcome"] == COMMITS and not disagreements
    detail = race["reason"] if race else f"exit {code}"
    recorded = _recorded_read_version(Path(record["table"]), version)
    if race is None and recorded is not None and recorded >= record["winner_versions"][-1]:
        # the engine re-ran the statement on a newer snapshot (OPTIMIZE's commitAndRetry): the
        # commit records that read version, so the log holds no race, as explain says
        predicted, agrees = COMMITS, not disagreements
        detail = f"v{version} records readVersion {recorded}: re-run after the winners, no race"
    if disagreements:
        detail += "; W401: " + disagreements[0]["message"]
    return Verdict(
        case=case.id,
        check="committed",
        real=COMMITS,
        predicted=predicted,
        agrees=agrees,
        detail=detail,
    )


def _recorded_read_version(table: Path, version: int) -> int | None:
    commit = table / "_delta_log" / f"{version:020d}.json"
    for line in commit.read_text().splitlines():
        info = json.loads(line).get("commitInfo")
        if info is not None:
            value = info.get("readVersion")
            return int(value) if value is not None else None
    return None


def check_error(case: Case, record: dict[str, Any]) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="df-error-") as tmp:
        text = Path(tmp) / "driver.log"
        text.write_text(record["text"])
        code, report = _explain(record["table"], "--error", str(text))
    conflicts = [c for c in report.get("conflicts", []) if c.get("source") == "error"]
    expected = (record["outcome"], record["winner_versions"][0])
    named = "engine_error" if record["outcome"] in ENGINE_ERRORS else "exception"
    if not conflicts:
        return Verdict(
            case=case.id,
            check="error",
            real=f"{expected[0]}@v{expected[1]}",
            predicted=f"nothing (exit {code})",
            agrees=False,
        )
    found = conflicts[0]
    predicted = (found.get(named), found.get("winner_version"))
    return Verdict(
        case=case.id,
        check="error",
        real=f"{expected[0]}@v{expected[1]}",
        predicted=f"{predicted[0]}@v{predicted[1]}",
        agrees=predicted == expected,
        detail=found.get("reason", ""),
    )


def check_attempt(case: Case, record: dict[str, Any]) -> Verdict:
    _, loser = case.statements()
    last_winner = record["winner_versions"][-1]
    code, report = _explain(
        record["table"],
        "--attempt",
        loser.attempt.replace("{table}", "t"),
        "--read-version",
        str(record["read_version"]),
        "--to-version",
        str(last_winner),
        *loser.flags,
    )
    attempts = report.get("attempts", [])
    real = record["outcome"]
    expected_winner = None if real == COMMITS else record["winner_versions"][0]
    if not attempts:
        return Verdict(
            case=case.id,
            check="attempt",
            real=real,
            predicted=f"nothing (exit {code})",
            agrees=False,
        )
    found = attempts[0]
    predicted = found.get("engine_error" if real in ENGINE_ERRORS else "outcome")
    agrees = predicted == real and (
        expected_winner is None or found.get("winner_version") == expected_winner
    )
    shown_real = real if expected_winner is None else f"{real}@v{expected_winner}"
    shown = predicted if predicted == COMMITS else f"{predicted}@v{found.get('winner_version')}"
    return Verdict(
        case=case.id,
        check="attempt",
        real=shown_real,
        predicted=str(shown),
        agrees=agrees,
        detail=found.get("reason", ""),
    )


def check(case: Case, record: dict[str, Any]) -> list[Verdict]:
    if record["outcome"] == COMMITS:
        return [check_committed(case, record), check_attempt(case, record)]
    return [check_error(case, record), check_attempt(case, record)]
