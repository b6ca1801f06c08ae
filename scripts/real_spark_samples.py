"""The sample logs a real Delta-Spark writes: their stories, and their findings from its records.

Used by ``python scripts/make_sample_logs.py --real-spark [NAME]``. A story is a list of real
statements on one table, some of them racing (tests/realspark/story_runner.py holds a statement
at the gate before its commit while others commit); the engine decides every race. Each
finding of ``expected.json`` is taken from the engine's records: a held statement that
committed behind the table is a ``survived-race``; one that failed is a ``failed-race`` with the
exception, the winner its text names, and the driver-log text itself (the log keeps no trace of
it). The prose around them is the story's; when the engine does not do what a story says, the
sample is not written (``StoryMismatchError``) rather than told wrong.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tests.realspark.engines import DeltaSpark, by_key
from tests.realspark.stories import run_story

COMMAND = "python scripts/make_sample_logs.py --real-spark"


class StoryMismatchError(RuntimeError):
    """The real engine did not do what the story's prose says it did."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    """One statement of a story: what runs, how a user would give it to ``explain
    --attempt``, who runs it, and (for a held one) what the story says happens to it."""

    id: str
    run: dict[str, Any]
    attempt: str
    who: str
    expect: str = "commits"  # or the exception the story says it fails with
    why: str = ""  # the engine's reason, for the finding's text

    def spec(self) -> dict[str, Any]:
        return {"id": self.id, **self.run}


# ---------------------------------------------------------------------------------------------
# schema_change_during_writes: DDL while two append jobs run (Delta 3.3.2 on Spark 3.5.3)

INGEST_DAY, BACKFILL_DAY = "2024-03-04", "2024-03-03"


def _append(job: str, run: int, day: str, attempt: int = 1) -> Statement:
    first = (500_000 if day == BACKFILL_DAY else 0) + run * 1000
    rows = [(first + i, 100 + 7 * i + run, f"/p/{(run + i) % 9}", day) for i in range(4)]
    values = ", ".join(f"({c}, {u}, '{url}', '{d}')" for c, u, url, d in rows)
    again = f", attempt {attempt}" if attempt > 1 else ""
    select = (
        "SELECT CAST(click_id AS BIGINT) AS click_id, CAST(user_id AS BIGINT) AS user_id, "
        f"url, date FROM VALUES {values} AS v(click_id, user_id, url, date)"
    )
    return Statement(
        id=f"{job}-{run}" + (f"-attempt-{attempt}" if attempt > 1 else ""),
        run={"append": {"select": select, "options": {"userMetadata": f"{job} run {run}{again}"}}},
        attempt=f"INSERT INTO clicks (click_id, user_id, url, date) VALUES {values}",
        who=f"{job} run {run}{again}",
    )


def _ingest(run: int, attempt: int = 1) -> Statement:
    return _append("clicks_ingest", run, INGEST_DAY, attempt)


def _backfill(run: int, attempt: int = 1) -> Statement:
    return _append("clicks_backfill", run, BACKFILL_DAY, attempt)


def _ddl(key: str, sql: str, who: str, why: str = "", expect: str = "commits") -> Statement:
    return Statement(id=key, run={"sql": sql}, attempt=sql, who=who, expect=expect, why=why)


DDL_IS_BLIND = "the DDL writes no files and reads none, so no append can conflict with it"
LOST_TO_METADATA = (
    "a concurrent metadata change fails every in-flight write (rule 2; scenario 16); OSS ≥4.1 "
    "lets only allow-listed feature enablements through"
)
ADD_COLUMNS_1 = _ddl(
    "add-columns-referrer",
    "ALTER TABLE clicks ADD COLUMNS (referrer STRING)",
    "ALTER TABLE clicks ADD COLUMNS (referrer STRING)",
    DDL_IS_BLIND,
)
SET_PROPERTIES = _ddl(
    "set-retention",
    "ALTER TABLE clicks SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 60 days', "
    "'delta.deletedFileRetentionDuration' = 'interval 14 days')",
    "SET TBLPROPERTIES (log and file retention)",
    DDL_IS_BLIND,
)
CONSTRAINT_SQL = "ALTER TABLE clicks ADD CONSTRAINT valid_user CHECK (user_id > 0)"
ADD_CONSTRAINT = _ddl(
    "add-constraint",
    CONSTRAINT_SQL,
    "ADD CONSTRAINT valid_user",
    "it read the whole table to validate the existing rows and changes the metadata, so a "
    "concurrent append is data it should have checked (scenario 18)",
    expect="ConcurrentAppendException",
)
ADD_COLUMNS_2 = _ddl(
    "add-columns-session",
    "ALTER TABLE clicks ADD COLUMNS (session_id STRING)",
    "ALTER TABLE clicks ADD COLUMNS (session_id STRING)",
    DDL_IS_BLIND,
)


def _race(held: list[Statement], winners: list[Statement]) -> dict[str, Any]:
    return {"race": {"held": [s.spec() for s in held], "winners": [s.spec() for s in winners]}}


def _alone(statement: Statement) -> dict[str, Any]:
    return {"do": statement.spec()}


def schema_change_story() -> tuple[dict[str, Any], list[Statement]]:
    """The steps for story_runner.py, and every statement they run."""
    ingest_4, backfill_2, backfill_3 = (
        replace(s, expect="MetadataChangedException", why=LOST_TO_METADATA)
        for s in (_ingest(4), _backfill(2), _backfill(3))
    )
    blind = "a blind append reads nothing, so another append cannot conflict with it (scenario 1)"
    backfill_2_again = replace(_backfill(2, 2), why=blind)
    constraint_again = _ddl("add-constraint-attempt-2", CONSTRAINT_SQL, "ADD CONSTRAINT, attempt 2")
    create = _ddl(
        "create",
        "CREATE TABLE clicks (click_id BIGINT, user_id BIGINT, url STRING, date STRING) "
        "USING delta PARTITIONED BY (date) LOCATION '{path}'",
        "CREATE TABLE clicks",
    )
    plan: list[dict[str, Any]] = [_alone(create), *(_alone(_ingest(n)) for n in (1, 2, 3))]
    plan += [_race([ADD_COLUMNS_1, ingest_4], [_backfill(1)])]
    plan += [_alone(_ingest(4, 2)), _alone(_ingest(5)), _alone(_ingest(6))]
    plan += [_race([SET_PROPERTIES, backfill_2], [_ingest(7), _ingest(8)])]
    plan += [_race([backfill_2_again], [_ingest(9)]), _alone(_ingest(10))]
    plan += [_race([ADD_CONSTRAINT], [_ingest(11)]), _alone(constraint_again), _alone(_ingest(12))]
    plan += [_race([ADD_COLUMNS_2, backfill_3], [_ingest(13), _ingest(14)])]
    plan += [_alone(_backfill(3, 2)), _alone(_ingest(15)), _alone(_ingest(16))]
    statements = [
        create, ADD_COLUMNS_1, SET_PROPERTIES, ADD_CONSTRAINT, ADD_COLUMNS_2, constraint_again,
        ingest_4, backfill_2, backfill_3, backfill_2_again, _backfill(1), _backfill(3, 2),
        _ingest(4, 2), *(_ingest(n) for n in (1, 2, 3, *range(5, 17))),
    ]  # fmt: skip
    return {"steps": plan}, statements


# ---------------------------------------------------------------------------------------------
# From the engine's records to the sample's facts


def _check_story(records: list[dict[str, Any]], statements: dict[str, Statement]) -> None:
    for record in records:
        expected = statements[record["id"]].expect
        if record["outcome"] != expected:
            raise StoryMismatchError(
                f"{record['id']}: the story says {expected}, the engine said "
                f"{record['outcome']}: {record.get('text', '')[:300]}"
            )


def _versions(versions: list[int]) -> str:
    return ", ".join(f"v{v}" for v in versions)


def findings_of(
    records: list[dict[str, Any]], statements: dict[str, Statement]
) -> list[dict[str, Any]]:
    """Every race the engine decided, as the sample's findings (in the order they happened)."""
    by_version = {r["version"]: statements[r["id"]].who for r in records if "version" in r}
    retries = {r["id"].removesuffix("-attempt-2"): r["version"] for r in records
               if r["id"].endswith("-attempt-2")}  # fmt: skip
    findings: list[dict[str, Any]] = []
    for record in records:
        if record["role"] != "held":
            continue
        s, read = statements[record["id"]], record["read_version"]
        if record["outcome"] == "commits":
            over = list(range(read + 1, record["version"]))
            whom = " and ".join(f"v{v} ({by_version[v]})" for v in over)
            findings.append({"kind": "survived-race", "version": record["version"],
                             "read_version": read, "rebased_over": over,
                             "statement": s.attempt,
                             "text": f"{s.who} rebased over {whom}: committed, {s.why}."})  # fmt: skip
            continue
        winner = record["winner_version"]
        retry = retries.get(record["id"])
        findings.append({
            "kind": "failed-race", "read_version": read, "winner_version": winner,
            "exception": record["outcome"], "statement": s.attempt, "retried_as": retry,
            "error_text": record["text"],
            "text": f"{s.who} read v{read} and failed with {record['outcome']} against "
            f"v{winner} ({by_version[winner]}): {s.why}. The attempt left nothing in the log"
            + (f"; its retry committed as v{retry}." if retry is not None else "."),
        })  # fmt: skip
    return findings


# ---------------------------------------------------------------------------------------------
# Writing a sample


def _keep_log(table: Path, dest: Path) -> None:
    """The table's ``_delta_log`` as Spark left it (its checkpoints, Delta's and Hadoop's .crc
    files), without the data files beside it and without empty folders (git keeps none)."""
    shutil.copytree(table / "_delta_log", dest / "_delta_log")
    for folder in sorted((dest / "_delta_log").rglob("*"), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def _is_ddl(finding: dict[str, Any]) -> bool:
    return str(finding["statement"]).startswith("ALTER TABLE")


def provenance(engine: DeltaSpark, session: dict[str, Any], name: str) -> dict[str, str]:
    written = dt.datetime.fromtimestamp(session["started"], tz=dt.UTC)
    return {
        "engine": f"Delta Lake {engine.delta} (`{engine.artifact}`) on Apache Spark "
        f"{session['spark']} (pip `pyspark=={engine.spark}`), Java {session['java']}, "
        "`local[2]`, a local path",
        "command": f"{COMMAND} {name}",
        "written": written.strftime("%Y-%m-%d %H:%M UTC"),
        "run_seconds": str(session["seconds"]),
    }


def schema_change_during_writes(path: Path) -> dict[str, Any]:
    engine = by_key("3.3.2")
    story, statements = schema_change_story()
    by_id = {s.id: s for s in statements}
    work = Path(tempfile.mkdtemp(prefix="real-sample-"))  # kept when the story goes wrong
    result = run_story(engine, story, work)
    records = result["records"]
    _check_story(records, by_id)
    _keep_log(work / "table", path)
    shutil.rmtree(work)
    story_file = {"story": story, **result}  # what ran and what the engine did, as provenance
    (path / "records.json").write_text(json.dumps(story_file, indent=1) + "\n")
    findings = findings_of(records, by_id)
    failed = [f for f in findings if f["kind"] == "failed-race"]
    survived = [f for f in findings if f["kind"] == "survived-race"]
    findings.append({"kind": "fix", "text": "Run DDL while the appenders are paused, or retry "
                     "the appends that fail with MetadataChangedException (they wrote nothing); "
                     "validate a new constraint when no append runs. On OSS ≥4.1 only "
                     "allow-listed feature enablements commute with concurrent writes."})  # fmt: skip
    return {
        "title": "ALTER TABLE while append jobs run",
        "engine": f"Apache Spark {result['session']['spark']} / Delta Lake {engine.delta} "
        "(OSS, Serializable), real engine, partitioned by `date`",
        "provenance": provenance(engine, result["session"], "schema_change_during_writes"),
        "story": (
            "Table `clicks`. Job `clicks_ingest` appends to `date=2024-03-04`, job "
            "`clicks_backfill` to `date=2024-03-03` (each write's `userMetadata` names its run). "
            "During the day someone runs `ALTER TABLE clicks ADD COLUMNS (referrer STRING)`, "
            "`SET TBLPROPERTIES` for retention, `ADD CONSTRAINT valid_user CHECK (user_id > 0)` "
            "and a second `ADD COLUMNS`, while appends are in flight. Every race was run on the "
            "real engine: the racing statements were held just before their commit while the "
            "others committed, then let go, and Delta's own conflict checker decided."
        ),
        "what_you_see": (
            f"DDL commits (no file actions) whose `readVersion` is behind "
            f"({_versions([f['version'] for f in survived if _is_ddl(f)])}) and a backfill "
            f"append rebased over an ingest one "
            f"({_versions([f['version'] for f in survived if not _is_ddl(f)])}): races that "
            f"survived. What the log does not show: {len(failed)} statements failed "
            f"({', '.join(sorted({f['exception'] for f in failed}))}) and left no trace but "
            "their retry, a later commit of the same statement (the jobs' `userMetadata` says "
            "`attempt 2`). Their driver-log texts are in `expected.json` (`error_text`): give "
            "one to `explain --error` to have it explained. The timestamps are the run's own, "
            "commits seconds apart, so no finding is drawn from the timing."
        ),
        "findings": findings,
    }


REAL_SPARK_SAMPLES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "schema_change_during_writes": schema_change_during_writes,
}
