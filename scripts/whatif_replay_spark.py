"""Hold ``whatif`` to real replays on Delta-Spark: the seeded racing workloads of
scripts/whatif_replay.py, run on a pinned real Delta-Spark release (tests/realspark/engines.py)
under the baseline and under a change, compared with what ``whatif`` predicts from the baseline
run's log and its failed statements alone.

Every statement of a round reads the version the round started at and they commit in the
round's order (tests/realspark/rounds.py holds each at the gated log store until the ones
before it committed), so the baseline and the changed run replay the same read versions and
commit order, and Delta's own conflict checker decides every race. A failed statement leaves
nothing in the log, like a failed job; ``whatif`` is given it as ``--attempt SQL
--read-version r`` on the log as it stood when it tried to commit.

    python scripts/whatif_replay_spark.py                  # Delta 4.4.0, 5 seeds x 40 rounds
    python scripts/whatif_replay_spark.py --engine 3.3.2 --seeds 2 --rounds 10
    python scripts/whatif_replay_spark.py --work DIR --judge   # judge a run's records again
    python scripts/whatif_replay_spark.py --write-docs     # regenerate docs/whatif.md's table

The changes: partition by ``date``; an explicit MERGE partition literal; deletion vectors
(Delta-Spark only: deltalake writes none); WriteSerializable where the table ran Serializable,
which lets the INSERTs' blind appends pass; and Serializable where the table ran
WriteSerializable, which introduces conflicts (the same two runs, the other way round).
Open-source Delta lets a user set only Serializable (semantics doc §A.4) but honours
``delta.isolationLevel = WriteSerializable`` when the metadata already holds it, as on a table
a Databricks cluster created: that table carries the property in its first commit (rounds.py
says how).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deltaforensics.attempts.specs import AttemptSpec  # noqa: E402
from deltaforensics.whatif.scenario import (  # noqa: E402
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    PartitionBy,
    Scenario,
)
from tests.realspark.engines import DeltaSpark, by_key  # noqa: E402
from tests.realspark.harness import run_script  # noqa: E402


def _load_replay() -> ModuleType:
    """scripts/whatif_replay.py: the workloads, the prediction and the table's row."""
    name = "whatif_replay"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


replay = _load_replay()
OK = replay.OK
ROUNDS = ROOT / "tests" / "realspark" / "rounds.py"
BEGIN, END = "<!-- replay-table-spark:begin -->", "<!-- replay-table-spark:end -->"
SEED_USERS = 20


@dataclass(frozen=True)
class SparkTable:
    """How a run's table is laid out and set up on Delta-Spark."""

    partitioned: bool = True
    merge_literal: bool = True  # MERGE ON carries t.date = '<the batch's date>'
    deletion_vectors: bool = False
    write_serializable: bool = False  # delta.isolationLevel in the first commit (Databricks)

    @property
    def key(self) -> str:
        return "-".join(
            name
            for name, on in (
                ("part" if self.partitioned else "flat", True),
                ("literal" if self.merge_literal else "noliteral", True),
                ("dv", self.deletion_vectors),
                ("ws", self.write_serializable),
            )
            if on
        )

    def setup(self) -> dict[str, Any]:
        properties = {}
        if self.deletion_vectors:
            properties["delta.enableDeletionVectors"] = "true"
        first = {"delta.isolationLevel": "WriteSerializable"} if self.write_serializable else {}
        rows = [
            (i * 1000 + u, date) for i, date in enumerate(replay.DATES) for u in range(SEED_USERS)
        ]
        seed = f"INSERT INTO {{table}} VALUES {_values(rows)}"
        return {
            "partitioned": self.partitioned,
            "properties": properties,
            "first_commit": first,
            "seed": seed,
        }


def _values(rows: Sequence[tuple[int, str]], bump: float = 0.0) -> str:
    return ", ".join(f"({i}, 'US', {float(i) + bump}D, '{d}')" for i, d in rows)


def sql(op: Any, table: SparkTable) -> str:
    """The Spark SQL of one workload statement, ``{table}`` standing for the table."""
    d = op.date
    if op.kind == "append":
        return f"INSERT INTO {{table}} VALUES {_values([(i, d) for i in op.ids])}"
    if op.kind == "update":
        return f"UPDATE {{table}} SET value = value + 1 WHERE date = '{d}'"
    if op.kind == "delete":
        return f"DELETE FROM {{table}} WHERE date = '{d}' AND user_id = {op.ids[0]}"
    on = "t.user_id = s.user_id AND t.date = s.date"
    if table.merge_literal:
        on += f" AND t.date = '{d}'"
    source = _values([(i, d) for i in op.ids], 0.5)
    return (
        f"MERGE INTO {{table}} t USING (SELECT * FROM VALUES {source} "
        f"AS v(user_id, country, value, date)) s ON {on} "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


@dataclass(frozen=True)
class SparkChange:
    name: str
    option: str  # how it is asked of whatif
    baseline: SparkTable
    changed: SparkTable
    scenario: Scenario


CHANGES = (
    SparkChange(
        name="partition by date",
        option="--partition-by date",
        baseline=SparkTable(partitioned=False),
        changed=SparkTable(),
        scenario=Scenario.of(PartitionBy(("date",))),
    ),
    SparkChange(
        name="explicit MERGE partition literal",
        option="--explicit-merge-predicates",
        baseline=SparkTable(merge_literal=False),
        changed=SparkTable(),
        scenario=Scenario.of(ExplicitMergePredicates()),
    ),
    SparkChange(
        name="deletion vectors",
        option="--deletion-vectors",
        baseline=SparkTable(),
        changed=SparkTable(deletion_vectors=True),
        scenario=Scenario.of(DeletionVectors()),
    ),
    SparkChange(
        name="WriteSerializable + blind appends",
        option="--isolation WriteSerializable",
        baseline=SparkTable(),  # open-source Delta's default, Serializable (§A.4)
        changed=SparkTable(write_serializable=True),
        scenario=Scenario.of(IsolationChange("WriteSerializable")),
    ),
    SparkChange(
        name="Serializable (introduces conflicts)",
        option="--isolation Serializable",
        baseline=SparkTable(write_serializable=True),
        changed=SparkTable(),  # open-source Delta's default is Serializable (§A.4)
        scenario=Scenario.of(IsolationChange("Serializable")),
    ),
)


@dataclass(frozen=True)
class Played:
    """One statement of a run, as the real engine decided it."""

    round: int
    index: int
    read_version: int
    tried_after: int
    outcome: str
    version: int | None


def run_id(seed: int, table: SparkTable) -> str:
    return f"s{seed}-{table.key}"


def payload(changes: Sequence[SparkChange], seeds: Sequence[int], rounds: int) -> list[dict]:
    runs: dict[str, dict[str, Any]] = {}
    for seed in seeds:
        plan = replay.workload(seed, rounds)
        for change in changes:
            for table in (change.baseline, change.changed):
                runs.setdefault(
                    run_id(seed, table),
                    {
                        "id": run_id(seed, table),
                        "setup": table.setup(),
                        "rounds": [[sql(op, table) for op in ops] for ops in plan],
                    },
                )
    return list(runs.values())


def read_runs(
    records: Path, work: Path
) -> tuple[dict[str, list[Played]], dict[str, str], dict[str, str]]:
    """Each run's statements in order, its table, and the runs that failed."""
    played: dict[str, list[Played]] = defaultdict(list)
    tables: dict[str, str] = {}
    errors: dict[str, str] = {}
    for line in records.read_text().splitlines():
        record = json.loads(line)
        run = record["run"]
        if "error" in record:
            errors[run] = record["error"]
        elif record.get("done"):
            tables[run] = record["table"]
        else:
            played[run].append(
                Played(
                    round=record["round"],
                    index=record["index"],
                    read_version=record["read_version"],
                    tried_after=record["tried_after"],
                    outcome=record.get("outcome", "missing"),
                    version=record.get("version"),
                )
            )
    for run in played:  # a run still going (or cut short) is judged on its finished rounds
        tables.setdefault(run, str(work.resolve() / "tables" / run))
    ordered = {k: sorted(v, key=lambda p: (p.round, p.index)) for k, v in played.items()}
    return defaultdict(list, ordered), tables, errors


HARNESS_FAILURES = ("hung", "error", "missing")  # not the conflict checker's decision


def finished_rounds(played: Sequence[Played], sizes: Sequence[int]) -> int:
    """How many of the workload's rounds a run has played to the end, every statement decided
    by the engine (a round the harness failed ends the run's usable part)."""
    done: dict[int, int] = defaultdict(int)
    for p in played:
        done[p.round] += 1 if p.outcome not in HARNESS_FAILURES else len(sizes) * 10
    return next((k for k, size in enumerate(sizes) if done[k] != size), len(sizes))


def measure(
    change: SparkChange,
    seed: int,
    rounds: int,
    played: dict[str, list[Played]],
    tables: dict[str, str],
) -> Any:
    """One workload's row: the measured difference and the prediction from the baseline, on
    the rounds both runs finished (a seeded workload's first n rounds are its n-round one)."""
    plan = replay.workload(seed, rounds)
    sizes = [len(ops) for ops in plan]
    before = played[run_id(seed, change.baseline)]
    after = played[run_id(seed, change.changed)]
    n = min(finished_rounds(before, sizes), finished_rounds(after, sizes))
    before = [p for p in before if p.round < n]
    after = [p for p in after if p.round < n]
    ops = [op for round_ops in plan[:n] for op in round_ops]
    failed: dict[int, list[AttemptSpec]] = defaultdict(list)
    for op, p in zip(ops, before, strict=True):
        if p.outcome != OK:
            statement = sql(op, change.baseline).replace("{table}", "events")
            failed[p.tried_after].append(AttemptSpec(sql=statement, read_version=p.read_version))
    predicted = replay.Prediction()
    if n:
        last = max(p.version or p.read_version for p in before)
        predicted = replay.predict_attempts(
            Path(tables[run_id(seed, change.baseline)]), failed, lambda _a: change.scenario, last
        )
    pairs = list(zip(before, after, strict=True))
    return replay.Row(
        change=change.name,
        seed=seed,
        rounds=n,
        conflicts_before=sum(1 for b in before if b.outcome != OK),
        conflicts_after=sum(1 for a in after if a.outcome != OK),
        measured_avoided=sum(1 for b, a in pairs if b.outcome != OK == a.outcome),
        measured_introduced=sum(1 for b, a in pairs if b.outcome == OK != a.outcome),
        predicted=predicted,
    )


def table(engine: DeltaSpark, rows: Sequence[Any]) -> str:
    """replay.table's rows with the release in front."""
    head, rule, *body = replay.table(rows).splitlines()
    return (
        "\n".join(
            [
                "| Delta " + head,
                "| ---: " + rule,
                *(f"| {engine.delta} {line}" for line in body),
            ]
        )
        + "\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="4.4.0", help="a pinned Delta-Spark release")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--change", action="append", help="only changes whose name has this")
    parser.add_argument("--work", type=Path, help="keep the runs here (default: a scratch dir)")
    parser.add_argument("--judge", action="store_true", help="judge the records in --work only")
    parser.add_argument("--write-docs", action="store_true", help="regenerate docs/whatif.md")
    parser.add_argument("--verbose", action="store_true", help="print unknown/excluded reasons")
    args = parser.parse_args(argv)
    engine = by_key(args.engine)
    chosen = [c for c in CHANGES if not args.change or any(w in c.name for w in args.change)]
    seeds = range(1, args.seeds + 1)
    work = args.work or ROOT / ".cache" / "whatif-replay-spark" / engine.key
    records = work / "records.jsonl"
    if not args.judge:
        shutil.rmtree(work, ignore_errors=True)
        started = time.monotonic()
        run_script(engine, ROUNDS, payload(chosen, seeds, args.rounds), work, timeout=6 * 3600)
        print(f"Delta {engine.delta}: ran in {(time.monotonic() - started) / 60:.1f} min")
    played, tables, errors = read_runs(records, work)
    for run, error in errors.items():
        print(f"run {run} failed: {error}", file=sys.stderr)
    found = []
    for change in chosen:
        for seed in seeds:
            row = measure(change, seed, args.rounds, played, tables)
            if row.rounds < args.rounds:
                print(f"{change.name}, seed {seed}: {row.rounds} rounds finished", file=sys.stderr)
            if not row.rounds:
                continue
            found.append(row)
            print(table(engine, [row]).splitlines()[-1], flush=True)
            if args.verbose:
                for reason in row.predicted.reasons[:5]:
                    print("   ", reason[:150])
    text = table(engine, found)
    print(text)
    if args.write_docs:
        replay.write_docs(text, BEGIN, END)
    complete = len(found) == len(chosen) * len(seeds) and all(
        r.rounds == args.rounds for r in found
    )
    return 0 if complete and all(r.within for r in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
