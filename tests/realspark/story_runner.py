"""Run one table's story on a real Delta-Spark: statements in order, some racing.

Run by the interpreter that has the engine's pyspark, like runner.py (whose session, failure
reading and log listing it shares): ``python story_runner.py STORY.json OUT.json WORK JAR...``.
A story creates one table and runs steps on it. A step is one statement committed alone, or a
race: the ``held`` statements start one after another, each in its own thread, and each stops
at the gated log store (java/GatedLogStore.java) just before its first commit attempt, having
read its snapshot and done all its work; then the ``winners`` commit from the main thread; then
the held statements are released one at a time, in their order, and Delta's own conflict
checker decides each one's fate. A race is thus several writers of one day, made to overlap
deterministically.

The record of every statement is what the engine did: committed at which version, or failed
with which exception, after reading which version, and against which winner (the commit whose
``txnId`` the exception's "Conflicting commit" names). Nothing here predicts an outcome.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner import describe_failure, latest_version, start_session

GATE_WAIT = 600.0  # seconds to reach the gate or finish after release, on a loaded machine


class StoryError(RuntimeError):
    """The story could not be told (a gate never reached, a statement that hung)."""


def execute(spark: Any, statement: dict[str, Any], path: Path) -> None:
    """A SQL statement, or a DataFrame append (the way to give one write its userMetadata)."""
    if "sql" in statement:
        spark.sql(statement["sql"].replace("{path}", str(path)))
        return
    append = statement["append"]
    frame = spark.sql(append["select"]).coalesce(1)  # one file per append, as a small job writes
    writer = frame.write.format("delta").mode("append")
    for key, value in append.get("options", {}).items():
        writer = writer.option(key, value)
    writer.save(str(path))


def commit_of_txn(path: Path, txn_id: str) -> int | None:
    """The version whose commitInfo carries this txnId."""
    for commit in sorted((path / "_delta_log").glob("*.json")):
        if not re.fullmatch(r"\d{20}\.json", commit.name):
            continue
        first = json.loads(commit.read_text().splitlines()[0])
        if first.get("commitInfo", {}).get("txnId") == txn_id:
            return int(commit.name[:20])
    return None


def winner_named(path: Path, text: str) -> int | None:
    """The winner an exception text names: the txnId of its "Conflicting commit"."""
    found = re.search(r'Conflicting commit: \{.*?"txnId":"([0-9a-f-]{36})"', text, re.S)
    return commit_of_txn(path, found.group(1)) if found else None


class Held:
    """One statement running in its own thread, stopped at the gate before its commit."""

    def __init__(self, spark: Any, statement: dict[str, Any], path: Path, gates: Path) -> None:
        self.spark, self.statement, self.path = spark, statement, path
        self.token = gates / statement["id"]
        self.result: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, name=f"held-{statement['id']}")

    def _run(self) -> None:
        jvm_thread = self.spark.sparkContext._jvm.java.lang.Thread.currentThread()
        jvm_thread.setName(f"gate:{self.token}")
        try:
            execute(self.spark, self.statement, self.path)
            self.result["outcome"] = "commits"
        except Exception as exc:
            self.result.update(describe_failure(exc))
        finally:
            jvm_thread.setName("story-idle")

    def start_and_reach(self) -> int:
        """Start, wait at the gate; the version the statement read."""
        self.thread.start()
        reached = Path(f"{self.token}.reached")
        deadline = time.monotonic() + GATE_WAIT
        while not reached.exists():
            if not self.thread.is_alive():
                raise StoryError(f"{self.statement['id']} ended before its commit: {self.result}")
            if time.monotonic() > deadline:
                raise StoryError(f"{self.statement['id']} never reached its commit")
            time.sleep(0.02)
        return int(reached.read_text().strip()[:20]) - 1

    def release(self) -> None:
        Path(f"{self.token}.release").touch()
        self.thread.join(GATE_WAIT)
        if self.thread.is_alive():
            raise StoryError(f"{self.statement['id']} hung after its release")


def run_alone(spark: Any, statement: dict[str, Any], path: Path, step: int) -> dict[str, Any]:
    read = latest_version(path) if (path / "_delta_log").is_dir() else -1
    execute(spark, statement, path)
    return {"id": statement["id"], "step": step, "role": "alone", "outcome": "commits",
            "read_version": read, "version": latest_version(path)}  # fmt: skip


def run_race(
    spark: Any, race: dict[str, Any], path: Path, gates: Path, step: int
) -> list[dict[str, Any]]:
    records = []
    held = [Held(spark, s, path, gates) for s in race["held"]]
    reads = [h.start_and_reach() for h in held]  # one after another: each reads the same table
    for statement in race["winners"]:
        execute(spark, statement, path)
        records.append({"id": statement["id"], "step": step, "role": "winner",
                        "outcome": "commits", "version": latest_version(path)})  # fmt: skip
    for h, read in zip(held, reads, strict=True):
        before = latest_version(path)
        started = time.monotonic()
        h.release()
        record = {"id": h.statement["id"], "step": step, "role": "held", "read_version": read,
                  "seconds_after_release": round(time.monotonic() - started, 2), **h.result}  # fmt: skip
        if record["outcome"] == "commits":
            record["version"] = latest_version(path)
            assert record["version"] == before + 1, "nothing else commits while one is released"
        else:
            record["winner_version"] = winner_named(path, record.get("text", ""))
        records.append(record)
    return records


def main(argv: list[str]) -> int:
    story_file, out_file, work_dir, *jars = argv
    story = json.loads(Path(story_file).read_text())
    work = Path(work_dir).resolve()
    path = work / "table"
    gates = work / "gates"
    gates.mkdir(parents=True, exist_ok=True)
    spark = start_session(jars, work)
    import pyspark

    records: list[dict[str, Any]] = []
    started = time.time()
    for step, item in enumerate(story["steps"]):
        if "race" in item:
            records += run_race(spark, item["race"], path, gates, step)
        else:
            records.append(run_alone(spark, item["do"], path, step))
        print(f"step {step}: {records[-1]['id']} {records[-1]['outcome']}", flush=True)
    session = {
        "spark": pyspark.__version__,
        "java": spark.sparkContext._jvm.System.getProperty("java.version"),
        "started": started,
        "seconds": round(time.time() - started, 1),
    }
    Path(out_file).write_text(json.dumps({"session": session, "records": records}, indent=1))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
