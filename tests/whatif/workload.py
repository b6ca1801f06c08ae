"""Run one stale-snapshot workload on the real deltalake engine and turn it into what-if input.

A workload is a table setup plus steps; each step is a winner A (fresh snapshot, commits
first) and a stale loser B (snapshot from before A). Running the same workload on two tables
(without and with a change) measures the change; running it once gives the baseline log and
the real failures, from which the what-if predicts the change (field notes §3.1).

A loser that failed left nothing in the log, like a real failed job: its would-be commit is
recorded by running B alone on a copy of the table taken before A, and it enters the what-if
as attempt evidence with the real outcome (``Observed``).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
from deltalake import CommitProperties, DeltaTable, write_deltalake
from deltalake.exceptions import CommitFailedError

from deltaforensics.analysis import ConflictAnalysis, analyze, load, open_store
from deltaforensics.transactions import reconstruct_transactions
from deltaforensics.whatif.comparison import Observed
from tests.conflicts.deltars_harness import classify

Op = Callable[[DeltaTable], Any]
Setup = Callable[[str], None]

D1, D2, D3, D4 = "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"
OK = "commits"
APPEND = "ConcurrentAppendException"
DELREAD = "ConcurrentDeleteReadException"


def rows(*parts: tuple[str, range | list[int]]) -> pa.Table:
    """Rows for (date, user ids) parts, in one table (so in one file when unpartitioned)."""
    ids = [i for _, r in parts for i in r]
    dates = [d for d, r in parts for _ in r]
    return pa.table(
        {
            "user_id": pa.array(ids, pa.int32()),
            "country": pa.array(["US"] * len(ids)),
            "value": pa.array([float(i) for i in ids]),
            "date": pa.array(dates),
        }
    )


def append(*parts: tuple[str, range | list[int]], blind: bool = False) -> Op:
    props = CommitProperties(custom_metadata={"isBlindAppend": True}) if blind else None

    def op(dt: DeltaTable) -> None:
        write_deltalake(dt, rows(*parts), mode="append", commit_properties=props)

    return op


def delete(predicate: str) -> Op:
    return lambda dt: dt.delete(predicate)


def update(predicate: str) -> Op:
    return lambda dt: dt.update(updates={"value": "value * 2"}, predicate=predicate)


def merge(on: str, *parts: tuple[str, range | list[int]]) -> Op:
    def op(dt: DeltaTable) -> None:
        (
            dt.merge(rows(*parts), on, source_alias="s", target_alias="t")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute()
        )

    return op


@dataclass(frozen=True)
class Step:
    name: str
    winner: Op
    loser: Op


@dataclass(frozen=True)
class StepResult:
    name: str
    base: int  # the stale loser's read version
    winner: int  # the version the winner committed
    outcome: str  # the stale loser's real outcome
    loser_version: int | None  # where it committed, if it did
    shadow: Path  # a copy at ``base`` where the loser ran alone


def run(path: Path, setup: Setup, steps: Sequence[Step], shadows: Path) -> list[StepResult]:
    setup(str(path))
    out = []
    for i, step in enumerate(steps):
        base = DeltaTable(str(path)).version()
        shadow = shadows / f"{path.name}-{i}"
        shutil.copytree(path, shadow)
        stale = DeltaTable(str(path))
        step.winner(DeltaTable(str(path)))
        winner = DeltaTable(str(path)).version()
        assert winner == base + 1, f"{step.name}: the winner must commit exactly one version"
        try:
            step.loser(stale)
            outcome, loser_version = OK, DeltaTable(str(path)).version()
        except CommitFailedError as exc:
            outcome, loser_version = classify(exc), None
            step.loser(DeltaTable(str(shadow)))
        out.append(StepResult(step.name, base, winner, outcome, loser_version, shadow))
    return out


def evidence(path: Path, results: Sequence[StepResult]) -> tuple[ConflictAnalysis, list[Observed]]:
    """The baseline analysis and every stale loser as attempt evidence with its real outcome."""
    analysis = analyze(open_store(str(path)))
    by_version = {t.version: t for t in analysis.transactions}
    observed = []
    for r in results:
        if r.loser_version is not None:
            loser = by_version[r.loser_version]
        else:
            rep = load(open_store(str(r.shadow)), mode="history").replay
            last = reconstruct_transactions(rep)[-1]
            statement = replace(last.provenance, statement=r.name)
            loser = replace(last, version=None, provenance=statement)
        loser = loser.reading_version(r.base, "stale snapshot (test)")
        observed.append(
            Observed(
                loser=loser,
                winners=(by_version[r.winner],),
                outcome=r.outcome,
                source="attempt",
                label=r.name,
            )
        )
    return analysis, observed


def counts(before: Sequence[str], after: Sequence[str]) -> tuple[int, int]:
    """(avoided, introduced) between two lists of outcomes of the same steps."""
    avoided = sum(1 for b, a in zip(before, after, strict=True) if b != OK and a == OK)
    introduced = sum(1 for b, a in zip(before, after, strict=True) if b == OK and a != OK)
    return avoided, introduced
