"""Trim real event logs to the events the harvest reads, re-written through Spark's own codec.

Run by the engine's interpreter (``python trim_eventlogs.py SRC DEST JAR...``): every event log
under SRC is read through ``org.apache.spark.io.CompressionCodec`` (the codec its name ends
with), and written under DEST through the same codec's ``compressedOutputStream``, so the
fixtures keep Spark's real Java framing (LZ4Block, xerial snappy, ZV chunks, zstd frames).

Kept: ``SparkListenerLogStart``, ``SparkListenerApplicationStart``/``End``, the SQL-execution
start and end events, and job start and end. ``SparkListenerEnvironmentUpdate`` and every other
event are dropped; a job start keeps only its ``spark.sql.execution.id`` property, an execution
start an empty ``modifiedConfigs`` (they carry the application's configuration), no
``sparkPlanInfo`` and a shortened ``details`` (size).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

KEEP = {
    "SparkListenerLogStart",
    "SparkListenerApplicationStart",
    "SparkListenerApplicationEnd",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
    "SparkListenerJobStart",
    "SparkListenerJobEnd",
}
CODECS = ("zstd", "lz4", "lzf", "snappy")


def trim(line: str) -> str | None:
    if not line.strip():
        return None
    try:
        event = json.loads(line)
    except json.JSONDecodeError:  # an .inprogress file's last line, still being written
        return None
    if event.get("Event") not in KEEP:
        return None
    if "Properties" in event:
        props = event["Properties"] or {}
        event["Properties"] = {
            k: v
            for k, v in props.items()
            if k in ("spark.sql.execution.id", "spark.job.description")
        }
    if "modifiedConfigs" in event:
        event["modifiedConfigs"] = {}
    if "sparkPlanInfo" in event:  # the plan as a tree, repeated by physicalPlanDescription
        event["sparkPlanInfo"] = {}
    if isinstance(event.get("details"), str):  # a call stack
        event["details"] = event["details"][:200]
    return json.dumps(event, separators=(",", ":"))


def codec_of(name: str) -> str | None:
    base = name.removesuffix(".inprogress")
    return next((c for c in CODECS if base.endswith("." + c)), None)


def main(argv: list[str]) -> int:
    from pyspark import SparkConf, SparkContext

    src, dest, *_jars = argv
    sc = SparkContext(conf=SparkConf().setMaster("local[1]").setAppName("trim"))
    jvm: Any = sc._jvm
    conf = sc._jsc.sc().conf()
    for path in sorted(Path(src).rglob("*")):
        if not path.is_file() or path.name.startswith(("appstatus_", ".")):
            continue
        out = Path(dest) / path.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        codec = codec_of(path.name)
        raw_in = jvm.java.io.FileInputStream(str(path))
        raw_out = jvm.java.io.FileOutputStream(str(out))
        if codec:
            c = jvm.org.apache.spark.io.CompressionCodec.createCodec(conf, codec)
            stream_in, stream_out = (
                c.compressedInputStream(raw_in),
                c.compressedOutputStream(raw_out),
            )
        else:
            stream_in, stream_out = raw_in, raw_out
        reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(stream_in, "UTF-8"))
        writer = jvm.java.io.OutputStreamWriter(stream_out, "UTF-8")
        while True:
            line = reader.readLine()
            if line is None:
                break
            kept = trim(line)
            if kept is not None:
                writer.write(kept + "\n")
        writer.close()
        reader.close()
    sc.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
