"""Hold ``whatif`` to real replays: run seeded racing workloads on the real ``deltalake``
engine twice — on the table as it is and with a change applied — and compare the conflicts
the change really avoided or introduced with what ``whatif`` predicts from the first run alone.

A workload is rounds of two or three statements (appends, UPDATE, DELETE and MERGE with
partition literals, on a table of ``user_id, country, value, date``). Every statement of a
round reads the version the round started at (``DeltaTable(path, version=r)``, field notes
§3.1) and they try to commit in order, so each run replays the same read versions and commit
order; a statement that loses raises ``CommitFailedError`` and leaves nothing in the log,
like a failed job.

What ``whatif`` is given is what a user has: the baseline table's log, and every failed
statement as ``--attempt SQL --read-version r``, analysed on the log as it stood when the
statement failed (the commits up to the one just before it tried). Its prediction is the
count of pairs (races in the log and attempts) whose outcome the change flips.

    python scripts/whatif_replay.py                  # 5 seeds x 40 rounds, every change
    python scripts/whatif_replay.py --write-docs     # ... and regenerate docs/whatif.md's table

Targets (issue #20): predicted avoided and introduced each within ±max(1, 10%) of the
measured ones per workload, and ``unknown`` below 10% of the pairs.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
from deltalake import CommitProperties, DeltaTable, write_deltalake
from deltalake.exceptions import CommitFailedError

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deltaforensics.analysis import analyze, observed_attempts, open_store  # noqa: E402
from deltaforensics.attempts.specs import AttemptSpec  # noqa: E402
from deltaforensics.report.document import whatif_document  # noqa: E402
from deltaforensics.whatif.document import compare_scenario  # noqa: E402
from deltaforensics.whatif.scenario import (  # noqa: E402
    ExplicitMergePredicates,
    IsolationChange,
    MarkBlindAppends,
    PartitionBy,
    Scenario,
)
from deltaforensics.whatif.writers import writer_of  # noqa: E402

DATES = tuple(f"2024-02-0{i}" for i in range(1, 7))
OK = "commits"
DOC = ROOT / "docs" / "whatif.md"
BEGIN, END = "<!-- replay-table:begin -->", "<!-- replay-table:end -->"
MESSAGES = {
    "a concurrent transactions added new data": "ConcurrentAppendException",
    "deleted data this operation read": "ConcurrentDeleteReadException",
    "deleted the same data": "ConcurrentDeleteDeleteException",
    "Metadata changed since last commit": "MetadataChangedException",
    "Concurrent transaction failed": "ConcurrentTransactionException",
}


def classify(exc: BaseException) -> str:
    text = str(exc)
    return next((name for needle, name in MESSAGES.items() if needle in text), "CommitFailed")


# ---------------------------------------------------------------------------------------------
# tables and statements


@dataclass(frozen=True)
class TableSpec:
    """How a run's table is laid out and how its writers commit."""

    partitioned: bool = False
    isolation: str | None = None  # delta.isolationLevel, as delta-rs parses it (camelCase)
    blind_appends: bool = False  # appends pass isBlindAppend=true in commitInfo
    merge_literal: bool = True  # MERGE ON carries t.date = '<the batch's date>'


def rows(date: str, ids: Sequence[int], bump: float = 0.0) -> pa.Table:
    return pa.table(
        {
            "user_id": pa.array(list(ids), pa.int32()),
            "country": pa.array(["US"] * len(ids)),
            "value": pa.array([float(i) + bump for i in ids]),
            "date": pa.array([date] * len(ids)),
        }
    )


def create(path: str, spec: TableSpec) -> None:
    """Twenty users per date, written as one load (one file when unpartitioned)."""
    data = pa.concat_tables([rows(d, range(i * 1000, i * 1000 + 20)) for i, d in enumerate(DATES)])
    kw: dict[str, Any] = {"partition_by": ["date"]} if spec.partitioned else {}
    if spec.isolation:
        kw["configuration"] = {"delta.isolationLevel": spec.isolation}
    write_deltalake(path, data, **kw)


@dataclass(frozen=True)
class Op:
    """One statement of a workload: what it does to the table, and its Spark SQL."""

    kind: str  # append | update | delete | merge
    date: str
    ids: tuple[int, ...]

    def run(self, dt: DeltaTable, spec: TableSpec) -> None:
        d = self.date
        if self.kind == "append":
            props = (
                CommitProperties(custom_metadata={"isBlindAppend": True})
                if spec.blind_appends
                else None
            )
            write_deltalake(dt, rows(d, self.ids), mode="append", commit_properties=props)
        elif self.kind == "update":
            dt.update(updates={"value": "value + 1"}, predicate=f"date = '{d}'")
        elif self.kind == "delete":
            dt.delete(f"date = '{d}' AND user_id = {self.ids[0]}")
        else:
            (
                dt.merge(rows(d, self.ids, 0.5), self.on(spec), source_alias="s", target_alias="t")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .execute()
            )

    def on(self, spec: TableSpec) -> str:
        keys = "t.user_id = s.user_id AND t.date = s.date"
        return f"{keys} AND t.date = '{self.date}'" if spec.merge_literal else keys

    def writes(self, spec: TableSpec) -> dict[str, str] | None:
        """``--writes`` for a MERGE on a partitioned table: the partition its batch covers, as
        the job that failed knows it (its source is a table name in the SQL)."""
        return {"date": self.date} if self.kind == "merge" and spec.partitioned else None

    def sql(self, spec: TableSpec) -> str:
        d = self.date
        if self.kind == "append":
            values = ", ".join(f"({i}, 'US', {float(i)}, '{d}')" for i in self.ids)
            return f"INSERT INTO events VALUES {values}"
        if self.kind == "update":
            return f"UPDATE events SET value = value + 1 WHERE date = '{d}'"
        if self.kind == "delete":
            return f"DELETE FROM events WHERE date = '{d}' AND user_id = {self.ids[0]}"
        return (
            f"MERGE INTO events t USING updates s ON {self.on(spec)} "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        )


def workload(seed: int, rounds: int) -> list[list[Op]]:
    """Seeded rounds of two or three racing statements; dates skewed towards the recent ones,
    as real writers' are."""
    rng = random.Random(seed)
    fresh = iter(range(100, 10**6))
    out = []
    for _ in range(rounds):
        ops = []
        for _ in range(rng.choice((2, 2, 3))):
            kind = rng.choices(("append", "update", "delete", "merge"), (3, 2, 2, 3))[0]
            i = rng.choices(range(len(DATES)), (1, 1, 2, 2, 3, 3))[0]
            base = i * 1000
            if kind == "append":
                ids: tuple[int, ...] = tuple(base + next(fresh) for _ in range(3))
            elif kind == "delete":
                ids = (base + rng.randrange(20),)
            elif kind == "merge":
                ids = (base + rng.randrange(20), base + next(fresh))
            else:
                ids = ()
            ops.append(Op(kind, DATES[i], ids))
        out.append(ops)
    return out


# ---------------------------------------------------------------------------------------------
# running a workload for real


@dataclass(frozen=True)
class Outcome:
    round: int
    index: int
    op: Op
    read_version: int
    tried_after: int  # the latest version when it tried to commit
    outcome: str
    version: int | None  # where it committed


def replay(path: Path, spec: TableSpec, rounds: Sequence[Sequence[Op]]) -> list[Outcome]:
    create(str(path), spec)
    out = []
    for k, ops in enumerate(rounds):
        start = DeltaTable(str(path)).version()
        for j, op in enumerate(ops):
            latest = DeltaTable(str(path)).version()
            try:
                op.run(DeltaTable(str(path), version=start), spec)
                now = DeltaTable(str(path)).version()
                outcome, version = OK, (now if now > latest else None)
            except CommitFailedError as exc:
                outcome, version = classify(exc), None
            out.append(Outcome(k, j, op, start, latest, outcome, version))
    return out


# ---------------------------------------------------------------------------------------------
# what whatif predicts from the baseline run


@dataclass
class Prediction:
    avoided: int = 0
    introduced: int = 0
    unknown: int = 0
    excluded: int = 0
    pairs: int = 0
    reasons: list[str] = field(default_factory=list)

    def add(self, pairs: Sequence[dict[str, Any]]) -> None:
        for p in pairs:
            self.pairs += 1
            if not p["known"]:
                self.unknown += 1
                self.reasons.append(p["reason"])
            elif not p["counted"]:
                self.excluded += 1
                self.reasons.append(p["reason"])
            elif p["before"] != OK and p["after"] == OK:
                self.avoided += 1
            elif p["before"] == OK and p["after"] != OK:
                self.introduced += 1


ScenarioFor = Callable[[Any], Scenario]


def predict(
    path: Path, spec: TableSpec, results: Sequence[Outcome], scenario_for: ScenarioFor
) -> Prediction:
    """Races from the whole log; each failed statement as an attempt on the log as it stood
    when it tried to commit."""
    failed: dict[int, list[AttemptSpec]] = defaultdict(list)
    for r in results:
        if r.outcome != OK:
            failed[r.tried_after].append(
                AttemptSpec(
                    sql=r.op.sql(spec), read_version=r.read_version, writes=r.op.writes(spec)
                )
            )
    return predict_attempts(path, failed, scenario_for)


def predict_attempts(
    path: Path,
    failed: Mapping[int, Sequence[AttemptSpec]],
    scenario_for: ScenarioFor,
    to_version: int | None = None,
) -> Prediction:
    """What ``whatif`` says from a baseline log (up to ``to_version``) and its failed
    statements, keyed by the latest version when each tried to commit (shared with
    scripts/whatif_replay_spark.py)."""
    found = Prediction()
    store = open_store(str(path))
    whole = analyze(store, to_version=to_version, recommendations=False)
    doc = _whatif_json(whole, scenario_for(whole))
    found.add([p for p in doc["pairs"] if p["source"] == "race"])
    for latest, specs in sorted(failed.items()):
        at = analyze(store, to_version=latest, attempts=list(specs), recommendations=False)
        doc = _whatif_json(at, scenario_for(whole), attempts=observed_attempts(at))
        found.add([p for p in doc["pairs"] if p["source"] == "attempt"])
    return found


def _whatif_json(analysis: Any, scenario: Any, attempts: Sequence[Any] = ()) -> dict[str, Any]:
    """The whatif document's JSON form for ``scenario``, without the writer matrix."""
    comparison = compare_scenario(analysis, scenario, attempts=attempts, samples=0)
    return whatif_document(analysis, comparison).to_dict()


# ---------------------------------------------------------------------------------------------
# the changes


def _blind_appenders(analysis: Any) -> list[MarkBlindAppends]:
    names = {
        writer_of(t)
        for t in analysis.transactions
        if t.provenance.operation == "WRITE" and t.version
    }
    return [MarkBlindAppends(n) for n in sorted(names)]


@dataclass(frozen=True)
class Change:
    name: str
    option: str  # how it is asked of whatif
    baseline: TableSpec
    changed: TableSpec
    scenario: ScenarioFor


CHANGES = (
    Change(
        "partition by date",
        "--partition-by date",
        TableSpec(partitioned=False),
        TableSpec(partitioned=True),
        lambda _a: Scenario.of(PartitionBy(("date",))),
    ),
    Change(
        "explicit MERGE partition literal",
        "--explicit-merge-predicates",
        TableSpec(partitioned=True, merge_literal=False),
        TableSpec(partitioned=True, merge_literal=True),
        lambda _a: Scenario.of(ExplicitMergePredicates()),
    ),
    Change(
        "writeSerializable + blind appends",
        "--isolation writeSerializable, appends marked blind",
        TableSpec(partitioned=True),
        TableSpec(partitioned=True, isolation="writeSerializable", blind_appends=True),
        lambda a: Scenario.of(IsolationChange("writeSerializable"), *_blind_appenders(a)),
    ),
    Change(
        "Serializable (introduces conflicts)",
        "--isolation Serializable",
        TableSpec(partitioned=True, isolation="writeSerializable", blind_appends=True),
        TableSpec(partitioned=True, isolation="serializable", blind_appends=True),
        lambda _a: Scenario.of(IsolationChange("serializable")),
    ),
)


@dataclass(frozen=True)
class Row:
    change: str
    seed: int
    rounds: int
    conflicts_before: int
    conflicts_after: int
    measured_avoided: int
    measured_introduced: int
    predicted: Prediction

    @property
    def within(self) -> bool:
        def near(predicted: int, measured: int) -> bool:
            return abs(predicted - measured) <= max(1, measured // 10)

        return (
            near(self.predicted.avoided, self.measured_avoided)
            and near(self.predicted.introduced, self.measured_introduced)
            and self.unknown_share < 0.10
        )

    @property
    def unknown_share(self) -> float:
        return self.predicted.unknown / self.predicted.pairs if self.predicted.pairs else 0.0


def measure(change: Change, seed: int, rounds: int, scratch: Path) -> Row:
    """One workload, run under the baseline and under the change, and predicted."""
    plan = workload(seed, rounds)
    base_path, changed_path = scratch / "baseline", scratch / "changed"
    for p in (base_path, changed_path):
        shutil.rmtree(p, ignore_errors=True)
    before = replay(base_path, change.baseline, plan)
    after = replay(changed_path, change.changed, plan)
    avoided = sum(1 for b, a in zip(before, after, strict=True) if b.outcome != OK == a.outcome)
    introduced = sum(1 for b, a in zip(before, after, strict=True) if b.outcome == OK != a.outcome)
    predicted = predict(base_path, change.baseline, before, change.scenario)
    return Row(
        change=change.name,
        seed=seed,
        rounds=rounds,
        conflicts_before=sum(1 for b in before if b.outcome != OK),
        conflicts_after=sum(1 for a in after if a.outcome != OK),
        measured_avoided=avoided,
        measured_introduced=introduced,
        predicted=predicted,
    )


def table(rows_: Sequence[Row]) -> str:
    head = (
        "| change | seed | rounds | real conflicts before → after | avoided: real / predicted "
        "| introduced: real / predicted | unknown pairs | within target |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
    )
    body = "".join(
        f"| {r.change} | {r.seed} | {r.rounds} | {r.conflicts_before} → {r.conflicts_after} "
        f"| {r.measured_avoided} / {r.predicted.avoided} "
        f"| {r.measured_introduced} / {r.predicted.introduced} "
        f"| {r.predicted.unknown} of {r.predicted.pairs} | {'yes' if r.within else 'NO'} |\n"
        for r in rows_
    )
    return head + body


def write_docs(text: str, begin: str = BEGIN, end: str = END) -> None:
    doc = DOC.read_text(encoding="utf-8")
    start, stop = doc.index(begin) + len(begin), doc.index(end)
    DOC.write_text(doc[:start] + "\n" + text + doc[stop:], encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--change", action="append", help="only changes whose name has this")
    parser.add_argument("--write-docs", action="store_true", help="regenerate docs/whatif.md")
    parser.add_argument("--verbose", action="store_true", help="print unknown/excluded reasons")
    args = parser.parse_args(argv)
    chosen = [c for c in CHANGES if not args.change or any(w in c.name for w in args.change)]
    found = []
    with tempfile.TemporaryDirectory(prefix="whatif-replay-") as tmp:
        for change in chosen:
            for seed in range(1, args.seeds + 1):
                row = measure(change, seed, args.rounds, Path(tmp))
                found.append(row)
                print(table([row]).splitlines()[-1], flush=True)
                if args.verbose:
                    for reason in row.predicted.reasons[:5]:
                        print("   ", reason[:150])
    text = table(found)
    print(text)
    if args.write_docs:
        write_docs(text)
    return 0 if all(r.within for r in found) else 1


if __name__ == "__main__":
    raise SystemExit(main())
