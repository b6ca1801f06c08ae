"""Run racing pairs on a real Delta-Spark: one local session, every case of one engine.

Run by the interpreter that has the engine's pyspark (engines.py), so it imports nothing from
the project: ``python runner.py CASES.json OUT.jsonl WORK JAR...``. Each case copies a seeded
template table, starts the losing statement in its own thread, and holds it at the gated log
store (java/GatedLogStore.java) just before its first commit attempt: it has read its snapshot
(version ``read_version``) and done all its work. The winners then commit from the main thread,
the gate opens, and Delta's own conflict checker decides whether the loser commits or fails.
One JSON line per case is written as soon as the case ends, with the real outcome.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

SEED = {  # partition -> ids; d1 has two files so OPTIMIZE has work to do
    "2024-01-01": [range(10), range(10, 20)],
    "2024-01-02": [range(100, 105)],
    "2024-01-03": [range(200, 205), range(205, 210)],
}
COUNTRY = {"2024-01-01": "US", "2024-01-02": "DE", "2024-01-03": "FR"}
COLUMNS = "id, date, country, value"
# errors a release raises for a concurrent change outside its conflict checker (checks.py)
ENGINE_ERRORS = ("DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS",)
GATE_TIMEOUT = 300.0  # a loaded 2-core machine needs minutes to reach a commit


def start_session(jars: list[str], work: Path, extra: dict[str, str] | None = None) -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = {
        "spark.jars": ",".join(jars),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.delta.logStore.file.impl": "deltaforensics.harness.GatedLogStore",
        # Writers on different clusters share no lock: without this, the loser held at the gate
        # would hold the JVM's commit lock and the winners could never commit.
        "spark.databricks.delta.commitLock.enabled": "false",
        "spark.sql.catalogImplementation": "in-memory",
        "spark.sql.warehouse.dir": str(work / "warehouse"),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.databricks.delta.snapshotPartitions": "2",
        "spark.driver.memory": "1g",
        "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={work / 'jvmtmp'}",
    }
    conf |= extra or {}  # event logs, driver-log configuration (tests/sources)
    (work / "jvmtmp").mkdir(parents=True, exist_ok=True)
    builder = SparkSession.builder.master("local[2]").appName("deltaforensics-harness")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def values(rows: list[list[Any]]) -> str:
    def literal(v: Any) -> str:
        return f"'{v}'" if isinstance(v, str) else repr(v)

    return ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)


def seed_rows(ids: range, date: str) -> list[list[Any]]:
    return [[i, date, COUNTRY[date], float(i) * 1.5] for i in ids]


def table_ref(path: Path) -> str:
    return f"delta.`{path}`"


def create_template(spark: Any, setup: dict[str, Any], path: Path) -> None:
    props = dict(setup.get("properties", {}))
    if setup.get("deletion_vectors"):
        props["delta.enableDeletionVectors"] = "true"
    if setup.get("identity"):
        _create_with_identity(spark, setup, path, props)
    else:
        layout = " PARTITIONED BY (date)" if setup.get("partitioned") else ""
        if setup.get("clustered"):
            layout = " CLUSTER BY (date)"
        tblprops = ""
        if props:
            pairs = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
            tblprops = f" TBLPROPERTIES ({pairs})"
        spark.sql(
            f"CREATE TABLE {table_ref(path)} (id BIGINT, date STRING, country STRING, "
            f"value DOUBLE) USING delta{layout}{tblprops}"
        )
    for date, files in SEED.items():
        for ids in files:
            rows = values(seed_rows(ids, date))
            spark.sql(f"INSERT INTO {table_ref(path)} ({COLUMNS}) VALUES {rows}")
    if setup.get("isolation"):
        _declare_isolation(path, setup["isolation"])


def _declare_isolation(path: Path, level: str) -> None:
    """Write ``delta.isolationLevel`` into the template's first metaData action.

    OSS Delta refuses to SET any level but Serializable, yet honours the property when the
    metadata already holds it (a table a Databricks cluster created): this gives the real
    engine such a table. The checksums repeat the metadata, so they go.
    """
    log = path / "_delta_log"
    first = log / f"{0:020d}.json"
    lines = []
    for line in first.read_text().splitlines():
        action = json.loads(line)
        if "metaData" in action:
            action["metaData"].setdefault("configuration", {})["delta.isolationLevel"] = level
        lines.append(json.dumps(action))
    first.write_text("\n".join(lines) + "\n")
    for checksum in log.glob("*.crc"):
        checksum.unlink()
    for checksum in log.glob(".*.crc"):
        checksum.unlink()


def _create_with_identity(spark: Any, setup: dict[str, Any], path: Path, props: dict) -> None:
    """Spark 3.5's parser has no identity-column syntax, so every release creates the identity
    table through Delta's own builder API (``DeltaTable.create``), the path Delta documents."""
    jvm, jss = spark.sparkContext._jvm, spark._jsparkSession
    tables = jvm.io.delta.tables.DeltaTable
    builder = tables.create(jss).location(str(path))
    for name, kind in (
        ("id", "BIGINT"),
        ("date", "STRING"),
        ("country", "STRING"),
        ("value", "DOUBLE"),
    ):
        builder = builder.addColumn(name, kind)
    seq = tables.columnBuilder(jss, "seq").dataType("BIGINT").generatedByDefaultAsIdentity(1, 1)
    builder = builder.addColumn(seq.build())
    if setup.get("partitioned"):
        names = spark.sparkContext._gateway.new_array(jvm.java.lang.String, 1)
        names[0] = "date"
        builder = builder.partitionedBy(names)
    for key, value in props.items():
        builder = builder.property(key, value)
    builder.execute()


def execute(spark: Any, statement: dict[str, Any], path: Path) -> None:
    kind = statement["kind"]
    if kind == "sql":
        spark.sql(statement["sql"].replace("{table}", table_ref(path)))
        return
    if kind == "write":
        rows = statement["rows"] or [[0, "none", "none", 0.0]]
        df = spark.sql(
            "SELECT CAST(id AS BIGINT) AS id, date, country, CAST(value AS DOUBLE) AS value "
            f"FROM VALUES {values(rows)} AS v({COLUMNS})"
            + ("" if statement["rows"] else " WHERE false")  # an empty batch
        )
        writer = df.write.format("delta").mode(statement["mode"])
        for key, value in statement.get("options", {}).items():
            writer = writer.option(key, value)
        writer.save(str(path))
        return
    if kind == "merge-api":
        prepare_merge(spark, statement, path)()
        return
    raise ValueError(f"unknown statement kind {kind!r}")


def prepare_merge(spark: Any, statement: dict[str, Any], path: Path) -> Callable[[], Any]:
    """A MERGE through Delta's DeltaTable API, analysed now and run when called: ``forPath``
    resolves the target (its schema) at once, the transaction starts at ``execute``."""
    jvm = spark.sparkContext._jvm
    target = jvm.io.delta.tables.DeltaTable.forPath(spark._jsparkSession, str(path))
    source = spark.sql(
        "SELECT CAST(id AS BIGINT) AS id, date, country, CAST(value AS DOUBLE) AS value "
        f"FROM VALUES {values(statement['rows'])} AS v({COLUMNS})"
    )
    builder = target.alias("t").merge(source.alias("s")._jdf, statement["on"])
    return builder.whenMatched().updateAll().whenNotMatched().insertAll().execute


def java_throwable(exc: BaseException) -> Any:
    for name in ("java_exception", "_origin"):
        found = getattr(exc, name, None)
        if found is not None:
            return found
    return None


def describe_failure(exc: BaseException) -> dict[str, Any]:
    """The Delta exception in the chain: its class, message and the text a driver log shows."""
    throwable = java_throwable(exc)
    chain = []
    while throwable is not None and len(chain) < 8:
        chain.append(throwable)
        throwable = throwable.getCause()
    for item in chain:
        cls = item.getClass().getName()
        if cls.startswith(("io.delta.exceptions.", "org.apache.spark.sql.delta.")) and (
            "Concurrent" in cls or "Changed" in cls
        ):
            return {
                "outcome": cls.rsplit(".", 1)[-1],
                "exception_class": cls,
                "message": str(item.getMessage()),
                "text": str(item.toString()),
            }
    first = chain[0] if chain else None
    found = re.search(r"\[([A-Z_]+)[.\]]", str(first.getMessage()) if first is not None else "")
    error_class = found.group(1) if found else None
    return {
        "outcome": error_class if error_class in ENGINE_ERRORS else "error",
        "error_class": error_class,
        "exception_class": first.getClass().getName() if first is not None else type(exc).__name__,
        "message": str(first.getMessage()) if first is not None else str(exc),
        "text": str(first.toString())
        if first is not None
        else "".join(traceback.format_exception_only(type(exc), exc)),
    }


def latest_version(path: Path) -> int:
    names = (p.name for p in (path / "_delta_log").iterdir())
    return max(int(n[:20]) for n in names if re.fullmatch(r"\d{20}\.json", n))


def run_case(
    spark: Any,
    case: dict[str, Any],
    work: Path,
    templates: dict[str, Path],
    template_lock: threading.Lock,
) -> dict:
    jvm = spark.sparkContext._jvm
    key = json.dumps(case["setup"], sort_keys=True)
    with template_lock:  # session-wide defaults are set while a template is created
        if key not in templates:
            template = work / "templates" / f"t{os.getpid()}-{len(templates)}"
            create_template(spark, case["setup"], template)
            templates[key] = template
    table = work / "tables" / case["id"]
    shutil.rmtree(table, ignore_errors=True)  # a case run again (resume) starts afresh
    for stale in ("reached", "release"):
        (work / "gates" / f"{case['id']}.{stale}").unlink(missing_ok=True)
    shutil.copytree(templates[key], table)
    for statement in case.get("before", []):  # commits every party has seen
        execute(spark, statement, table)
    read_version = latest_version(table)
    gate = work / "gates" / case["id"]
    gate.parent.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {}

    def lose() -> None:
        held = case["loser"].get("hold") == "after-analysis"
        if not held:
            jvm.java.lang.Thread.currentThread().setName(f"gate:{gate}")
        try:
            if held:  # hold between the statement's analysis and its transaction
                run = prepare_merge(spark, case["loser"], table)
                Path(f"{gate}.reached").write_text("analysed")
                while not Path(f"{gate}.release").exists():
                    time.sleep(0.01)
                run()
            else:
                execute(spark, case["loser"], table)
            result["outcome"] = "commits"
        except Exception as exc:
            result.update(describe_failure(exc))
        finally:
            jvm.java.lang.Thread.currentThread().setName("harness-idle")

    loser = threading.Thread(target=lose, name=f"loser-{case['id']}")
    started = time.monotonic()
    loser.start()
    reached = Path(f"{gate}.reached")
    while not reached.exists() and loser.is_alive():
        if time.monotonic() - started > GATE_TIMEOUT:
            break
        time.sleep(0.01)
    raced = reached.exists()
    winners = []
    winner_error = None
    if raced:
        for statement in case["winners"]:
            try:
                execute(spark, statement, table)
            except Exception as exc:
                winner_error = describe_failure(exc)
                break
            winners.append(latest_version(table))
    Path(f"{gate}.release").touch()
    loser.join(GATE_TIMEOUT)
    final = latest_version(table)
    record = {
        "id": case["id"],
        "read_version": read_version,
        "winner_versions": winners,
        "raced": raced,
        "winner_error": winner_error,
        "loser_version": final
        if result.get("outcome") == "commits" and final > read_version
        else None,
        "table": str(table),
        "seconds": round(time.monotonic() - started, 2),
        **result,
    }
    if loser.is_alive():
        record["outcome"] = "hung"
    return record


def main(argv: list[str]) -> int:
    cases_file, out_file, work_dir, *jars = argv
    cases = json.loads(Path(cases_file).read_text())
    parallel = harness_parallel()
    work = Path(work_dir).resolve()
    (work / "tables").mkdir(parents=True, exist_ok=True)
    spark = start_session(jars, work)
    import pyspark

    templates: dict[str, Path] = {}
    template_lock = threading.Lock()
    write_lock = threading.Lock()
    pending = list(reversed(cases))
    with Path(out_file).open("a") as out:
        header = {
            "spark": pyspark.__version__,
            "java": spark.sparkContext._jvm.System.getProperty("java.version"),
        }
        out.write(json.dumps({"session": header}) + "\n")
        out.flush()

        def worker() -> None:
            # Each case's winners run on this thread, its loser on a thread of its own; the
            # cases in flight touch different tables, so they never race each other.
            while True:
                with write_lock:
                    if not pending:
                        return
                    case = pending.pop()
                try:
                    record = run_case(spark, case, work, templates, template_lock)
                except Exception as exc:
                    message = f"{type(exc).__name__}: {exc}"[:2000]
                    record = {"id": case["id"], "outcome": "harness-error", "message": message}
                with write_lock:
                    out.write(json.dumps(record) + "\n")
                    out.flush()

        run_workers(worker, parallel)
    spark.stop()
    return 0


def harness_parallel() -> int:
    """How many cases (or rounds) one session runs at once."""
    return max(1, int(os.environ.get("DELTAFORENSICS_HARNESS_PARALLEL", "2")))


def run_workers(worker: Callable[[], None], parallel: int) -> None:
    """``parallel`` threads running ``worker`` (it takes work until none is left); returns
    when every one has."""
    threads = [threading.Thread(target=worker) for _ in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
