"""Realistic Spark event logs for the failure-harvest benchmark (benchmarks/bench_failures.py).

Writes ``--apps`` applications of zstd-compressed event logs (Spark's default codec) under
``--out`` until about ``--mb`` MB of compressed bytes exist: single files ``app-…zstd`` and,
for every third application, a rolled ``eventlog_v2_<app id>`` folder of ``events_<n>_…``
parts. The mix follows what a Spark 4.2 application writes (the fixtures of
tests/sources/fixtures/spark-4.2, before trimming): per SQL execution a start with its
physical plan and plan tree, one to three jobs (each job start with ~50 properties), one or
two stages per job and 4–64 tasks per stage (task start and task end with metrics, the bulk
of every log), driver accumulator updates, and the execution's end. One execution in
``--fail-every`` fails: a fifth of those with a Delta conflict (the era-C texts Delta 4.4
printed in the harness), the rest with other errors. Nothing secret is written: the
environment update carries made-up settings only.

    python benchmarks/gen_event_logs.py --out /tmp/evlogs --mb 50
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import zstandard

CONFLICTS = [
    "[DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT] Transaction conflict detected, a concurrent "
    "WRITE added data to table delta.`{table}` (committed at version {v}) that this transaction "
    "read. The concurrent operation added data in the partition [date=2024-01-{d:02d}] that was "
    "read by this operation. Please retry the operation. Refer to "
    "https://docs.delta.io/latest/concurrency-control.html for more information.",
    "[DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT] Transaction conflict detected, a "
    "concurrent DELETE deleted data from table delta.`{table}` (committed at version {v}) that "
    "this transaction read. The concurrent operation deleted data in the partition "
    "[date=2024-01-{d:02d}] that was read by this operation. Please retry the operation. Refer "
    "to https://docs.delta.io/latest/concurrency-control.html for more information.",
]
OTHERS = [
    "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return "
    "NULL instead. SQLSTATE: 22012",
    "Job aborted due to stage failure: Task 3 in stage 12.0 failed 4 times, most recent failure:"
    " Lost task 3.3 in stage 12.0 (TID 88): java.lang.OutOfMemoryError: Java heap space",
]
PLAN = (
    "== Physical Plan ==\nExecute MergeIntoCommand (1)\n   +- MergeIntoCommand (2)\n\n\n"
    "(1) Execute MergeIntoCommand\nOutput [4]: [num_affected_rows#{n}L, num_updated_rows#{n}L, "
    "num_deleted_rows#{n}L, num_inserted_rows#{n}L]\n\n(2) MergeIntoCommand\nArguments: "
    "Delta[version={v}, file:{table}], (id#{n} = id#{n}), [Update [condition: None]]\n"
) + "(3) Scan parquet \nOutput [9]: [id#1, date#2, country#3, value#4, a#5, b#6, c#7, d#8]\n" * 12


def _dump(event: dict[str, object]) -> str:
    return json.dumps(event, separators=(",", ":"))


def _task(kind: str, stage: int, task: int, t: int, rng: random.Random) -> str:
    info = {
        "Task ID": task,
        "Index": task % 64,
        "Attempt": 0,
        "Partition ID": task % 64,
        "Launch Time": t,
        "Executor ID": str(rng.randint(1, 16)),
        "Host": f"10.0.{rng.randint(0, 9)}.{rng.randint(1, 250)}",
        "Locality": "PROCESS_LOCAL",
        "Speculative": False,
        "Getting Result Time": 0,
        "Finish Time": t + rng.randint(10, 900) if kind == "End" else 0,
        "Failed": False,
        "Killed": False,
        "Accumulables": [],
    }
    event: dict[str, object] = {
        "Event": f"SparkListenerTask{kind}",
        "Stage ID": stage,
        "Stage Attempt ID": 0,
        "Task Info": info,
    }
    if kind == "End":
        event["Task Type"] = "ResultTask"
        event["Task End Reason"] = {"Reason": "Success"}
        event["Task Executor Metrics"] = {k: rng.randint(0, 1 << 30) for k in _METRICS}
        event["Task Metrics"] = {
            "Executor Deserialize Time": rng.randint(0, 50),
            "Executor Run Time": rng.randint(10, 900),
            "Result Size": rng.randint(1000, 9000),
            "JVM GC Time": rng.randint(0, 30),
            "Shuffle Read Metrics": {k: rng.randint(0, 1 << 20) for k in _SHUFFLE},
            "Shuffle Write Metrics": {k: rng.randint(0, 1 << 20) for k in _SHUFFLE[:3]},
            "Input Metrics": {"Bytes Read": rng.randint(0, 1 << 26), "Records Read": 1000},
            "Output Metrics": {"Bytes Written": 0, "Records Written": 0},
            "Updated Blocks": [],
        }
        info["Accumulables"] = [
            {"ID": rng.randint(1, 9999), "Name": f"internal.metrics.{m}", "Update": 1, "Value": 9}
            for m in _SHUFFLE
        ]
    return _dump(event)


_METRICS = [
    "JVMHeapMemory",
    "JVMOffHeapMemory",
    "OnHeapExecutionMemory",
    "OffHeapExecutionMemory",
    "OnHeapStorageMemory",
    "OffHeapStorageMemory",
    "DirectPoolMemory",
    "MappedPoolMemory",
    "ProcessTreeJVMVMemory",
    "MinorGCCount",
    "MajorGCCount",
]
_SHUFFLE = [
    "Remote Blocks Fetched",
    "Local Blocks Fetched",
    "Fetch Wait Time",
    "Remote Bytes Read",
    "Local Bytes Read",
    "Total Records Read",
]


def application(app: str, target_bytes: int, fail_every: int, rng: random.Random) -> list[str]:
    """One application's lines, about ``target_bytes`` of JSON."""
    t = 1_795_000_000_000 + rng.randint(0, 10**8)
    lines = [
        _dump({"Event": "SparkListenerLogStart", "Spark Version": "4.2.0"}),
        _dump(
            {
                "Event": "SparkListenerApplicationStart",
                "App Name": "etl",
                "App ID": app,
                "Timestamp": t,
                "User": "etl",
            }
        ),
        _dump(
            {
                "Event": "SparkListenerEnvironmentUpdate",
                "Spark Properties": {
                    "spark.app.name": "etl",
                    "spark.made.up.setting": "not-a-secret",
                },
            }
        ),
    ]
    size = sum(map(len, lines))
    execution = job = stage = task = 0
    while size < target_bytes:
        table = f"/lake/db/t{rng.randint(0, 40)}"
        start = _dump(
            {
                "Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                "executionId": execution,
                "rootExecutionId": execution,
                "description": "sql at NativeMethodAccessorImpl.java:0",
                "details": "x" * 200,
                "physicalPlanDescription": PLAN.format(n=execution, v=execution, table=table),
                "sparkPlanInfo": {
                    "nodeName": "Execute MergeIntoCommand",
                    "simpleString": "x" * 500,
                    "children": [],
                    "metadata": {},
                    "metrics": [],
                },
                "time": t,
                "modifiedConfigs": {},
                "jobTags": [],
                "jobGroupId": None,
            }
        )
        out = [start]
        for _ in range(rng.randint(1, 3)):
            props = {f"spark.made.up.prop{k}": "v" * 20 for k in range(50)}
            props["spark.sql.execution.id"] = str(execution)
            out.append(
                _dump(
                    {
                        "Event": "SparkListenerJobStart",
                        "Job ID": job,
                        "Submission Time": t,
                        "Stage Infos": [],
                        "Stage IDs": [stage],
                        "Properties": props,
                    }
                )
            )
            for _ in range(rng.randint(1, 2)):
                out.append(
                    _dump(
                        {
                            "Event": "SparkListenerStageSubmitted",
                            "Stage Info": {
                                "Stage ID": stage,
                                "Stage Name": "merge",
                                "Number of Tasks": 8,
                                "RDD Info": [],
                            },
                        }
                    )
                )
                for _ in range(rng.choice((4, 8, 16, 64))):
                    out.append(_task("Start", stage, task, t, rng))
                    out.append(_task("End", stage, task, t, rng))
                    task += 1
                out.append(
                    _dump(
                        {
                            "Event": "SparkListenerStageCompleted",
                            "Stage Info": {"Stage ID": stage, "Completion Time": t},
                        }
                    )
                )
                stage += 1
            out.append(
                _dump(
                    {
                        "Event": "SparkListenerJobEnd",
                        "Job ID": job,
                        "Completion Time": t + 500,
                        "Job Result": {"Result": "JobSucceeded"},
                    }
                )
            )
            job += 1
        out.append(
            _dump(
                {
                    "Event": "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates",
                    "executionId": execution,
                    "accumUpdates": [[rng.randint(1, 999), 5]] * 8,
                }
            )
        )
        error = ""
        if execution % fail_every == fail_every - 1:
            if rng.random() < 0.2:
                error = rng.choice(CONFLICTS).format(table=table, v=execution, d=rng.randint(1, 28))
            else:
                error = rng.choice(OTHERS)
        out.append(
            _dump(
                {
                    "Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
                    "executionId": execution,
                    "time": t + 900,
                    "errorMessage": error,
                }
            )
        )
        lines += out
        size += sum(map(len, out)) + len(out)
        execution += 1
        t += 1000
    return lines


def write(lines: list[str], path: Path, level: int) -> int:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(zstandard.ZstdCompressor(level=level).compress(data))
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--mb", type=float, default=50.0, help="compressed MB to write")
    parser.add_argument("--apps", type=int, default=0, help="applications (default: 1 per 5 MB)")
    parser.add_argument("--fail-every", type=int, default=100)
    parser.add_argument("--level", type=int, default=1, help="zstd level (Spark's default: 1)")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    apps = args.apps or max(1, round(args.mb / 5))
    ratio = 12.0  # JSON bytes per compressed byte, measured on a first application
    started, written = time.time(), 0
    for n in range(apps):
        app = f"app-20261128093000-{n:04d}"
        want = int((args.mb * 1e6 - written) / (apps - n) * ratio)
        lines = application(app, want, args.fail_every, rng)
        json_bytes = sum(map(len, lines)) + len(lines)
        if n % 3 == 2:
            folder = args.out / f"eventlog_v2_{app}"
            folder.mkdir(exist_ok=True)
            half = len(lines) // 2
            got = write(lines[:half], folder / f"events_1_{app}.zstd", args.level)
            got += write(lines[half:], folder / f"events_2_{app}.zstd", args.level)
        else:
            got = write(lines, args.out / f"{app}.zstd", args.level)
        written += got
        ratio = json_bytes / got
    print(f"{apps} applications, {written / 1e6:.1f} MB zstd in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
