"""Run a list of pairs on one real Delta-Spark and judge each with the three checks.

The runner (runner.py) runs in the engine's own interpreter, one local session for all the
pairs; this side, in the project's interpreter, reads its records and runs the CLI checks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.realspark.cases import Case
from tests.realspark.checks import Verdict, check, real_pair
from tests.realspark.engines import DeltaSpark, Installed, install

RUNNER = Path(__file__).with_name("runner.py")


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    engine: DeltaSpark
    session: dict[str, Any]
    records: dict[str, dict[str, Any]]
    verdicts: list[Verdict]
    not_pairs: dict[str, str]  # case id -> why it is not a real race


def run_runner(
    engine: DeltaSpark,
    cases: list[Case],
    work: Path,
    *,
    timeout: float = 3600,
    append: bool = False,
) -> Path:
    """Run the pairs on the engine; its records land in ``work/records.jsonl``, one per line
    (after the records already there with ``append``)."""
    return run_script(
        engine, RUNNER, [c.spec() for c in cases], work, timeout=timeout, append=append
    )


def run_script(
    engine: DeltaSpark,
    script: Path,
    payload: list[dict[str, Any]],
    work: Path,
    *,
    timeout: float = 3600,
    append: bool = False,
) -> Path:
    """Run an engine-side script (runner.py, rounds.py) in the engine's interpreter with its
    jars: ``script work/cases.json work/records.jsonl work JAR...``."""
    installed = install(engine)
    work.mkdir(parents=True, exist_ok=True)
    spec = work / "cases.json"
    spec.write_text(json.dumps(payload))
    out = work / "records.jsonl"
    if not append:
        out.unlink(missing_ok=True)
    log = work / ("runner-resumed.log" if append else "runner.log")
    run_in_engine(installed, [script, spec, out, work], log, timeout=timeout)
    if not out.exists():
        raise RuntimeError(f"Delta {engine.delta} {script.name} wrote no records (see {log})")
    return out


def run_in_engine(installed: Installed, command: list[Path], log: Path, *, timeout: float) -> None:
    """Run a script of this folder in the engine's interpreter with its jars as the last
    arguments; its output goes to ``log``. In its own process group, so a script that times
    out takes its JVM down with it."""
    engine = installed.engine
    with log.open("w") as sink:
        process = subprocess.Popen(
            [str(installed.python), *map(str, command), *map(str, installed.jars)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise RuntimeError(
                f"Delta {engine.delta} {command[0].name} timed out after {timeout:.0f} s"
            ) from None
    if returncode != 0:
        tail = log.read_text().strip().splitlines()[-5:]
        raise RuntimeError(
            f"Delta {engine.delta} {command[0].name} exited {returncode}: {' | '.join(tail)}"
        )


def read_records(out: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    lines = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    session = lines[0].get("session", {}) if lines else {}
    return session, {r["id"]: r for r in lines[1:] if "id" in r}


def judge(
    engine: DeltaSpark,
    cases: list[Case],
    session: dict[str, Any],
    records: dict[str, dict[str, Any]],
) -> Run:
    """The three checks of every record that is a real race; the others listed with why."""
    verdicts: list[Verdict] = []
    not_pairs: dict[str, str] = {}
    for case in cases:
        record = records.get(case.id)
        if record is None:
            continue
        why = real_pair(record)
        if why is not None:
            not_pairs[case.id] = why
            continue
        verdicts.extend(check(case, record))
    return Run(
        engine=engine, session=session, records=records, verdicts=verdicts, not_pairs=not_pairs
    )


def run_pairs(engine: DeltaSpark, cases: list[Case], work: Path, *, timeout: float = 3600) -> Run:
    session, records = read_records(run_runner(engine, cases, work, timeout=timeout))
    return judge(engine, cases, session, records)
