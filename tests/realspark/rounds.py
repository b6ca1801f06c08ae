"""Replay seeded rounds of racing statements on a real Delta-Spark (scripts/whatif_replay_spark.py).

Run by the engine's interpreter like runner.py, whose session, statement execution and
failure description it imports (it imports nothing from the project):
``python rounds.py RUNS.json OUT.jsonl WORK JAR...``.

A run is one table and a list of rounds. Every statement of a round reads the version the
round started at and they commit in the round's order: the statements start together, each on
its own thread named for the gated log store (java/GatedLogStore.java), which holds it just
before its first commit attempt — it has read its snapshot and done its work. When every one
is held, the gates open one at a time, in the round's order; Delta's own conflict checker
decides each statement that finds its version taken. One JSON line per statement, written as it ends.

A table whose first commit says ``delta.isolationLevel = WriteSerializable`` (as a Databricks
cluster writes it) is made honestly the only way open-source Delta allows: the property cannot
be set there (semantics doc §A.4: validation says "must be Serializable") but is honoured when
the metadata already holds it, so the first commit Spark wrote is given the property before any
session has read the table (a fresh path, never in Delta's log cache).
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner import (  # runner.py is this file's sibling, not a package here
    describe_failure,
    execute,
    harness_parallel,
    latest_version,
    run_workers,
    start_session,
    table_ref,
)

COLUMNS = "user_id INT, country STRING, value DOUBLE, date STRING"
# Every statement of a round is held at once, and the last waits for all the others to commit:
# on a shared machine that takes longer than one pair's gate (GatedLogStore's property).
GATE_TIMEOUT = 900.0
# Small tables on a shared machine: no source copy for MERGE, no adaptive re-planning. Neither
# changes what a transaction reads, writes or records, so the conflict checker sees the same.
FAST = {
    "spark.databricks.delta.merge.materializeSource": "none",
    "spark.sql.adaptive.enabled": "false",
}


def create(spark: Any, setup: dict[str, Any], path: Path, work: Path) -> None:
    """The table and its seed rows; ``first_commit`` properties go into version 0 as written."""
    props = dict(setup.get("properties", {}))
    layout = " PARTITIONED BY (date)" if setup.get("partitioned") else ""
    pairs = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    tblprops = f" TBLPROPERTIES ({pairs})" if pairs else ""
    extra = setup.get("first_commit", {})
    made = work / "created" / path.name if extra else path
    spark.sql(f"CREATE TABLE {table_ref(made)} ({COLUMNS}) USING delta{layout}{tblprops}")
    if extra:
        _add_to_first_commit(made, extra)
        shutil.copytree(made, path)
    execute(spark, {"kind": "sql", "sql": setup["seed"]}, path)


def _add_to_first_commit(path: Path, properties: dict[str, str]) -> None:
    log = path / "_delta_log"
    first = log / f"{0:020d}.json"
    lines = []
    for line in first.read_text().splitlines():
        action = json.loads(line)
        if "metaData" in action:
            action["metaData"].setdefault("configuration", {}).update(properties)
        lines.append(json.dumps(action, separators=(",", ":")))
    first.write_text("\n".join(lines) + "\n")
    # the version checksum repeats the metadata; without it Delta rebuilds the state from the log
    (log / f"{0:020d}.crc").unlink(missing_ok=True)
    for stale in log.glob(f".{0:020d}.*.crc"):
        stale.unlink()


def play_round(
    spark: Any, path: Path, statements: list[str], gates: Path, tag: str
) -> list[dict[str, Any]]:
    """Every statement works at once, each held at its gate; the gates open in order."""
    jvm = spark.sparkContext._jvm
    start = latest_version(path)
    results: list[dict[str, Any]] = [{} for _ in statements]

    def held(index: int, gate: Path) -> None:
        jvm.java.lang.Thread.currentThread().setName(f"gate:{gate}")
        began = time.monotonic()
        try:
            execute(spark, {"kind": "sql", "sql": statements[index]}, path)
            results[index]["outcome"] = "commits"
        except Exception as exc:
            results[index].update(describe_failure(exc))
        finally:
            results[index]["seconds"] = round(time.monotonic() - began, 2)
            jvm.java.lang.Thread.currentThread().setName("rounds-idle")

    threads = []
    for index in range(len(statements)):
        gate = gates / f"{tag}-{index}"
        thread = threading.Thread(target=held, args=(index, gate), name=f"held-{tag}-{index}")
        thread.start()
        threads.append((index, gate, thread))
    started = time.monotonic()
    for _, gate, thread in threads:
        reached = Path(f"{gate}.reached")
        while not reached.exists() and thread.is_alive():
            if time.monotonic() - started > GATE_TIMEOUT:
                break
            time.sleep(0.01)
    out = []
    for index, gate, thread in threads:
        latest = latest_version(path)
        Path(f"{gate}.release").touch()
        thread.join(GATE_TIMEOUT)
        record = _record(index, start, latest, latest_version(path), results[index])
        if thread.is_alive():
            record["outcome"] = "hung"
        out.append(record)
    return out


def _record(
    index: int, start: int, latest: int, now: int, result: dict[str, Any]
) -> dict[str, Any]:
    committed = result.get("outcome") == "commits" and now > latest
    return {
        "index": index,
        "read_version": start,
        "tried_after": latest,
        "version": now if committed else None,
        **result,
    }


def template(
    spark: Any,
    setup: dict[str, Any],
    work: Path,
    templates: dict[str, tuple[Path, threading.Event]],
    lock: threading.Lock,
) -> Path:
    """One seeded table per setup, copied to a fresh path for each run (runs of every seed
    start from the same rows; a fresh path is one no session has cached)."""
    key = json.dumps(setup, sort_keys=True)
    with lock:
        mine = key not in templates
        if mine:
            templates[key] = (work / "templates" / f"t{len(templates)}", threading.Event())
    path, made = templates[key]
    if mine:
        try:
            create(spark, setup, path, work)
        finally:  # a failed creation fails every run of it, not hangs them
            made.set()
    made.wait()
    return path


def play_next(
    spark: Any,
    run: dict[str, Any],
    number: int,
    work: Path,
    out: Any,
    lock: threading.Lock,
    templates: dict[str, tuple[Path, threading.Event]],
) -> None:
    """One round of a run (round 0 creates its table first)."""
    path = work / "tables" / run["id"]
    if number == 0:
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(template(spark, run["setup"], work, templates, lock), path)
    gates = work / "gates"
    gates.mkdir(parents=True, exist_ok=True)
    tag = f"{run['id']}-{number}"
    lines = [
        json.dumps({"run": run["id"], "round": number, **record})
        for record in play_round(spark, path, run["rounds"][number], gates, tag)
    ]
    if number == len(run["rounds"]) - 1:
        lines.append(json.dumps({"run": run["id"], "done": True, "table": str(path)}))
    with lock:
        out.write("".join(line + "\n" for line in lines))
        out.flush()


def main(argv: list[str]) -> int:
    runs_file, out_file, work_dir, *jars = argv
    runs = json.loads(Path(runs_file).read_text())
    parallel = harness_parallel()
    work = Path(work_dir).resolve()
    (work / "tables").mkdir(parents=True, exist_ok=True)
    spark = start_session(jars, work)
    for key, value in FAST.items():
        spark.conf.set(key, value)
    timeout_ms = str(int(GATE_TIMEOUT * 1000))
    spark.sparkContext._jvm.java.lang.System.setProperty(
        "deltaforensics.gate.timeoutMs", timeout_ms
    )
    lock = threading.Lock()
    templates: dict[str, tuple[Path, threading.Event]] = {}
    # Runs take turns round by round, so a replay cut short leaves every run about as far on.
    pending = deque((run, 0) for run in runs if run["rounds"])
    with Path(out_file).open("a") as out:

        def worker() -> None:
            while True:
                with lock:
                    if not pending:
                        return
                    run, number = pending.popleft()
                try:
                    play_next(spark, run, number, work, out, lock, templates)
                except Exception as exc:
                    message = f"{type(exc).__name__}: {exc}"[:2000]
                    with lock:
                        out.write(json.dumps({"run": run["id"], "error": message}) + "\n")
                        out.flush()
                    continue
                if number + 1 < len(run["rounds"]):
                    with lock:
                        pending.append((run, number + 1))

        run_workers(worker, parallel)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
