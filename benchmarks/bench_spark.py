"""Spark against polars: the audit of a fleet of small tables, and the read of one huge log.

    python benchmarks/bench_spark.py                    # 200 tables x 30 commits; 100,000 commits
    python benchmarks/bench_spark.py --quick            # 4 tables x 5 commits; 2,000 commits
    python benchmarks/bench_spark.py --master local[2] --json /tmp/bench-spark.json

One run, one process, in this order (page cache warm after generation):

1. generate ``--tables`` small logs (``gen_synthetic_log.generate``, seeds 1..N, 5% stale reads)
   and one ``--big-commits`` log (seed 42, 1% stale reads);
2. fleet: ``run_audit`` with the polars engine (tables one after another in this process), then
   ``audit --engine spark`` (``spark_outcomes`` + ``run_audit``: one Spark job) twice, the first
   including the session's JIT warm-up; the reports of both engines must be identical;
3. the big log: ``load(store, mode="history")`` with the polars engine, with ``SparkEngine``
   (Spark fetches, the core parses on the driver) and with ``fleet_frames`` (Spark fetches and
   the core parses on an executor); the frames must be identical.

Wall times (``time.perf_counter``); the Spark session start is reported on its own. Exit status
1 when a cross-check fails. ``--quick`` is what tests/engines/test_bench_spark.py runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_synthetic_log import generate  # noqa: E402

from deltaforensics.analysis import load, open_store  # noqa: E402
from deltaforensics.audit.config import AuditConfig, TableSpec  # noqa: E402
from deltaforensics.audit.core import AuditSettings  # noqa: E402
from deltaforensics.audit.run import run_audit  # noqa: E402

MB = 1_000_000


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def line(label: str, value: str) -> None:
    print(f"  {label:<52} {value}", flush=True)


def seconds(s: float) -> str:
    return f"{s:8.2f} s"


def ratio(a: float, b: float) -> str:
    return f"{a / b:8.2f}x"


def same_frames(a: Any, b: Any) -> bool:
    kinds = ("files", "commit_infos", "metadata", "protocols", "txns", "domains", "cdc", "unknown")
    return (
        a.commit_versions == b.commit_versions
        and a.partition_columns == b.partition_columns
        and all(getattr(a, k).equals(getattr(b, k)) for k in kinds)
    )


def reports(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((out / "reports").glob("*.json"))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--commits-per-table", type=int, default=30)
    p.add_argument("--big-commits", type=int, default=100_000)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--quick", action="store_true", help="4 tables x 5 commits, 2,000 commits")
    p.add_argument("--recommendations", action="store_true", help="audit with what-if advice")
    p.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    a = p.parse_args(argv)
    if a.quick:
        a.tables, a.commits_per_table, a.big_commits = 4, 5, 2_000
    work = a.workdir or Path(tempfile.mkdtemp(prefix="bench-spark-"))
    try:
        return run(a, work)
    finally:
        if a.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


def run(a: argparse.Namespace, work: Path) -> int:
    from deltaforensics.audit.on_spark import spark_outcomes
    from deltaforensics.engines.spark_engine import SparkEngine, spark_session
    from deltaforensics.engines.spark_fleet import fleet_frames
    from deltaforensics.log.listing import list_log
    from deltaforensics.log.segment import LogSegment

    figures: dict[str, Any] = {"tables": a.tables, "commits_per_table": a.commits_per_table}
    ok = True
    gen_s, made = timed(
        lambda: [
            generate(
                a.commits_per_table,
                work / "fleet" / f"t{i:04d}",
                seed=i,
                race_fraction=0.05,
                quiet=True,
            )
            for i in range(1, a.tables + 1)
        ]
    )
    fleet_bytes = sum(m["json_bytes"] for m in made)
    big_gen_s, big = timed(
        lambda: generate(a.big_commits, work / "big", seed=42, race_fraction=0.01, quiet=True)
    )
    print(
        f"generated: {a.tables} tables x {a.commits_per_table} commits "
        f"({fleet_bytes / MB:.1f} MB JSON) in {gen_s:.1f} s; one log of {a.big_commits:,} commits "
        f"({big['json_bytes'] / MB:.1f} MB JSON) in {big_gen_s:.1f} s",
        flush=True,
    )

    specs = tuple(
        TableSpec(name=f"t{i:04d}", uri=str(work / "fleet" / f"t{i:04d}"))
        for i in range(1, a.tables + 1)
    )
    settings = AuditSettings(recommendations=a.recommendations)

    def audit(engine: str, out: str) -> dict[str, Any]:
        config = AuditConfig(source="bench", tables=specs, output=work / out)
        outcomes = None
        if engine == "spark":
            outcomes = spark_outcomes(config, spark=spark, state_dir=None, settings=settings)
        return run_audit(
            config,
            state_dir=None,
            fail_on=(),
            settings=settings,
            engine=engine,
            outcomes=outcomes,
        )

    print(f"fleet audit: {a.tables} tables, {a.tables * a.commits_per_table:,} commits", flush=True)
    polars_s, summary = timed(lambda: audit("polars", "out-polars"))
    line("polars engine", seconds(polars_s))
    # the field notes' recipe: a local driver holds the Spark side of everything (default 1 GiB)
    session_s, spark = timed(lambda: spark_session(a.master, {"spark.driver.memory": "4g"}))
    first_s, _ = timed(lambda: audit("spark", "out-spark-1"))
    line(f"spark {a.master}, first job in the session", seconds(first_s))
    warm_s, spark_summary = timed(lambda: audit("spark", "out-spark"))
    line(f"spark {a.master}, warm", seconds(warm_s))
    line("spark warm / polars", ratio(warm_s, polars_s))
    same = reports(work / "out-polars") == reports(work / "out-spark")
    all_ok = summary["totals"]["ok"] == spark_summary["totals"]["ok"] == a.tables
    line("reports identical, every table ok", "yes" if same and all_ok else "NO")
    ok &= same and all_ok
    figures["fleet"] = {
        "json_bytes": fleet_bytes,
        "polars_s": polars_s,
        "spark_first_s": first_s,
        "spark_warm_s": warm_s,
        "races": summary["totals"]["races"],
    }

    print(f"one log: {a.big_commits:,} commits, {big['actions']:,} actions", flush=True)
    store = open_store(str(work / "big"))
    polars_read_s, loaded = timed(lambda: load(store, mode="history"))
    line("polars engine, load(history)", seconds(polars_read_s))
    engine = SparkEngine(store, spark=spark)
    spark_read_s, spark_loaded = timed(lambda: load(store, mode="history", engine=engine))
    line(f"spark {a.master}, load(history), parse on driver", seconds(spark_read_s))
    listing = list_log(store)
    segment = LogSegment.for_history(listing)
    fleet_read_s, fleet = timed(lambda: fleet_frames(spark, [("big", store, listing, segment)]))
    line(f"spark {a.master}, fleet_frames, parse on executor", seconds(fleet_read_s))
    line("spark (driver parse) / polars", ratio(spark_read_s, polars_read_s))
    line("spark (executor parse) / polars", ratio(fleet_read_s, polars_read_s))
    frames = loaded.replay.frames
    same_big = same_frames(frames, spark_loaded.replay.frames) and same_frames(frames, fleet["big"])
    line("frames identical", "yes" if same_big else "NO")
    ok &= same_big
    print(f"spark session start ({a.master}): {session_s:.2f} s", flush=True)
    figures["big"] = {
        "commits": a.big_commits,
        "json_bytes": big["json_bytes"],
        "polars_s": polars_read_s,
        "spark_driver_parse_s": spark_read_s,
        "spark_executor_parse_s": fleet_read_s,
    }
    figures["session_start_s"] = session_s
    if a.json is not None:
        a.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print("cross-checks:", "ok" if ok else "FAILED", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
