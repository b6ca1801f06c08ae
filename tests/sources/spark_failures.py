"""Real Spark failures for the failure harvest: event logs and a driver log from Delta-Spark.

Run by the engine's interpreter like tests/realspark/runner.py, whose session, statement
execution and failure description it imports (it imports nothing from the project):
``python spark_failures.py PLAN.json OUT.jsonl WORK JAR...``.

One application per entry of the plan (``codec``: a Spark event-log codec or ``none``;
``rolling``: a rolled ``eventlog_v2_*`` folder), all in one JVM, whose log4j2 writes a driver log
to ``WORK/driver`` with gzip-rotated parts. Each application makes three partitioned tables and
forces real conflicts on them with the gated log store (rounds.py's ``play_round``: every
statement reads the same version, the gates open in order, Delta's own checker decides), and
runs two statements that fail for other reasons (a division by zero under ANSI, a failed
``assert_true``). The application logs each failure through log4j at ERROR with the Java
throwable, as a Scala job's ``logger.error(msg, e)`` would.

Ground truth, one JSON line per statement in OUT: the application id, table path, the
statement, and the outcome (the Delta exception class and message, or ``commits``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "realspark"))

from rounds import FAST, create, play_round  # the harness's own race: see rounds.py
from runner import describe_failure, java_throwable, start_session

LOG4J2 = """\
status = error
appender.rolling.type = RollingFile
appender.rolling.name = driver
appender.rolling.fileName = {folder}/log4j-active.log
appender.rolling.filePattern = {folder}/log4j-%d{{yyyy-MM-dd-HH}}-%i.log.gz
appender.rolling.layout.type = PatternLayout
appender.rolling.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
appender.rolling.policies.type = Policies
appender.rolling.policies.size.type = SizeBasedTriggeringPolicy
appender.rolling.policies.size.size = 40KB
appender.rolling.strategy.type = DefaultRolloverStrategy
appender.rolling.strategy.max = 100
rootLogger.level = warn
rootLogger.appenderRef.rolling.ref = driver
logger.app.name = failures.app
logger.app.level = info
"""

SETUP = {
    "partitioned": True,
    "seed": "INSERT INTO {table} VALUES "
    "(1, 'US', 1.0, '2024-01-01'), (2, 'FR', 2.0, '2024-01-02'), (3, 'DE', 3.0, '2024-01-03')",
}
ROUNDS = [
    [  # both delete the same files: the second loses
        "DELETE FROM {table} WHERE date = '2024-01-01'",
        "DELETE FROM {table} WHERE date = '2024-01-01'",
    ],
    [  # an append into the partition an UPDATE read
        "INSERT INTO {table} VALUES (9, 'FR', 9.0, '2024-01-02')",
        "UPDATE {table} SET value = value + 1 WHERE date = '2024-01-02'",
    ],
    [  # a metadata change under a write
        "ALTER TABLE {table} SET TBLPROPERTIES ('delta.appendOnly' = 'false')",
        "INSERT INTO {table} VALUES (10, 'DE', 10.0, '2024-01-03')",
    ],
]
OTHER_FAILURES = ["SELECT 1 / 0 AS x", "SELECT assert_true(id < 0) FROM range(3)"]


def app_conf(entry: dict[str, Any], work: Path) -> dict[str, str]:
    conf = {
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": str(work / "eventlogs"),
        "spark.eventLog.compress": "false" if entry["codec"] == "none" else "true",
        "spark.driver.extraJavaOptions": (
            f"-Djava.io.tmpdir={work / 'jvmtmp'} "
            f"-Dlog4j2.configurationFile=file:{work / 'log4j2.properties'}"
        ),
    }
    if entry["codec"] != "none":
        conf["spark.eventLog.compression.codec"] = entry["codec"]
    # Spark 4 rolls by default: say which layout each application writes
    conf["spark.eventLog.rolling.enabled"] = "true" if entry.get("rolling") else "false"
    if entry.get("rolling"):
        conf["spark.eventLog.rolling.maxFileSize"] = "10m"
    if entry.get(
        "openlineage"
    ):  # the OpenLineage Spark listener (its jar among JAR...), file transport
        conf["spark.extraListeners"] = "io.openlineage.spark.agent.OpenLineageSparkListener"
        conf["spark.openlineage.transport.type"] = "file"
        conf["spark.openlineage.transport.location"] = str(
            work / "openlineage" / f"{entry['name']}.ndjson"
        )
        conf["spark.openlineage.namespace"] = "deltaforensics-harness"
        (work / "openlineage").mkdir(parents=True, exist_ok=True)
    return conf


def run_app(entry: dict[str, Any], jars: list[str], work: Path, out: Any) -> None:
    spark = start_session(jars, work, app_conf(entry, work))
    spark.sparkContext.setLogLevel("WARN")
    for key, value in FAST.items():
        spark.conf.set(key, value)
    jvm = spark.sparkContext._jvm
    jvm.java.lang.System.setProperty("deltaforensics.gate.timeoutMs", "600000")
    logger = jvm.org.apache.logging.log4j.LogManager.getLogger("failures.app")
    app_id = spark.sparkContext.applicationId
    name = entry["name"]
    for t in range(3):
        path = work / "tables" / f"{name}_t{t}"
        create(spark, SETUP, path, work)
        for number, statements in enumerate(ROUNDS):
            gates = work / "gates"
            gates.mkdir(parents=True, exist_ok=True)
            records = play_round(spark, path, statements, gates, f"{name}-{t}-{number}")
            for record, sql in zip(records, statements, strict=True):
                outcome = record.get("outcome")
                if outcome not in ("commits", None):
                    # the exception as log4j's %ex starts it (class: message); frames omitted
                    logger.error(f"statement failed\n{record.get('text', '')}")
                out.write(
                    json.dumps(
                        {"app": app_id, "name": name, "table": str(path), "sql": sql, **record}
                    )
                    + "\n"
                )
    for sql in OTHER_FAILURES:
        try:
            spark.sql(sql).collect()
            outcome: dict[str, Any] = {"outcome": "commits"}
        except Exception as exc:
            outcome = describe_failure(exc)
            throwable = java_throwable(exc)
            if throwable is not None:
                logger.error("query failed", throwable)  # noqa: PLE1205 - log4j's (msg, Throwable)
        out.write(json.dumps({"app": app_id, "name": name, "table": None, "sql": sql, **outcome}))
        out.write("\n")
    out.flush()
    spark.stop()
    time.sleep(1)


def main(argv: list[str]) -> int:
    plan_file, out_file, work_dir, *jars = argv
    work = Path(work_dir).resolve()
    (work / "eventlogs").mkdir(parents=True, exist_ok=True)
    (work / "driver").mkdir(parents=True, exist_ok=True)
    (work / "log4j2.properties").write_text(LOG4J2.format(folder=work / "driver"))
    with Path(out_file).open("w") as out:
        for entry in json.loads(Path(plan_file).read_text()):
            run_app(entry, jars, work, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
