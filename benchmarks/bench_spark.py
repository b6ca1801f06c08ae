"""Spark against polars: the audit of a fleet of small tables, and the read of one huge log.

    python benchmarks/bench_spark.py                    # 200 tables x 30 commits; 100,000 commits
    python benchmarks/bench_spark.py --big-commits 0    # the fleet only (the scale-out figures)
    python benchmarks/bench_spark.py --quick            # 4 tables x 5 commits; 2,000 commits
    python benchmarks/bench_spark.py --masters 'local[1],local[2],local[4]' --json /tmp/f.json

One run, in this order (page cache warm after generation):

1. generate ``--tables`` small logs (``gen_synthetic_log.generate``, seeds 1..N, 5% stale reads)
   and one ``--big-commits`` log (seed 42, 1% stale reads);
2. fleet: ``run_audit`` with the polars engine, ``--jobs 1`` and ``--jobs 2``, on the first
   ``--small-tables`` tables and on all of them, ``--repeat`` times each; then, for each of
   ``--masters`` in a process of its own (a fresh JVM: :mod:`spark_scale_out`), the session
   start, a first ``audit --engine spark`` of the small fleet (the JIT warm-up) and ``--repeat``
   audits of both fleet sizes. Every report of every Spark run must equal the polars engine's.
   From the best runs: throughput per core count and its gain, the per-table cost of each
   engine (the slope between the two fleet sizes) and Spark's fixed cost per run (the
   intercept), Spark's per-table overhead over the polars engine on one core, and, labelled as
   an extrapolation, the fleet size where Spark on C cores overtakes ``--jobs C``;
3. the big log, in this process's session (``--master``): ``load(store, mode="history")``
   with the polars engine, with ``SparkEngine`` (Spark fetches, the core parses on the driver)
   and with ``fleet_frames`` (Spark fetches and the core parses on an executor); the frames
   must be identical.

Wall times (``time.perf_counter``), and for the fleet also the CPU seconds of the process tree
that ran it (driver, JVM, Python workers) and the 1-minute load average at the end of each run:
on a shared machine a Spark run gains from a second core only if that core is free. Exit status
1 when a cross-check fails; a missed throughput target is printed, not an error. ``--quick`` is
what tests/engines/test_bench_spark.py runs.
"""

from __future__ import annotations

import argparse
import json
import os
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
from spark_scale_out import (  # noqa: E402
    Line,
    Run,
    SparkCost,
    as_run,
    audit_fleet,
    best,
    measure_master,
    overtakes,
    run_dict,
    timed_run,
)

from deltaforensics.analysis import load, open_store  # noqa: E402

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
    p.add_argument("--big-commits", type=int, default=100_000, help="0: no huge log")
    p.add_argument("--master", default="local[2]", help="the huge log's session")
    p.add_argument("--masters", default="local[1],local[2]", help="the fleet's, one JVM each")
    p.add_argument("--small-tables", type=int, default=None, help="default: a quarter")
    p.add_argument("--repeat", type=int, default=2, help="timed fleet runs per size and engine")
    p.add_argument("--quick", action="store_true", help="4 tables x 5 commits, 2,000 commits")
    p.add_argument("--recommendations", action="store_true", help="audit with what-if advice")
    p.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    a = p.parse_args(argv)
    if a.quick:
        a.tables, a.commits_per_table, a.big_commits, a.repeat = 4, 5, 2_000, 1
    a.small_tables = a.small_tables or max(1, a.tables // 4)
    if not 0 < a.small_tables < a.tables:
        p.error("--small-tables must be between 0 and --tables")
    work = a.workdir or Path(tempfile.mkdtemp(prefix="bench-spark-"))
    try:
        return run(a, work)
    finally:
        if a.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


def run(a: argparse.Namespace, work: Path) -> int:
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
    big_gen_s, big = 0.0, {"json_bytes": 0, "actions": 0}
    if a.big_commits:
        big_gen_s, big = timed(
            lambda: generate(a.big_commits, work / "big", seed=42, race_fraction=0.01, quiet=True)
        )
    print(
        f"generated: {a.tables} tables x {a.commits_per_table} commits "
        f"({fleet_bytes / MB:.1f} MB JSON) in {gen_s:.1f} s; one log of {a.big_commits:,} commits "
        f"({big['json_bytes'] / MB:.1f} MB JSON) in {big_gen_s:.1f} s",
        flush=True,
    )
    figures["fleet"] = {"json_bytes": fleet_bytes}

    ok &= fleet_scale_out(a, work, figures)
    if a.big_commits == 0:
        return finish(a, figures, ok)
    # the field notes' recipe: a local driver holds the Spark side of everything (default 1 GiB)
    session_s, spark = timed(lambda: spark_session(a.master, {"spark.driver.memory": "4g"}))
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
    return finish(a, figures, ok)


def fleet_scale_out(a: argparse.Namespace, work: Path, figures: dict[str, Any]) -> bool:
    """The fleet audited by the polars engine and by Spark at each of ``--masters``; the
    per-table costs, the scale-out and the extrapolation. False when a cross-check fails."""
    n, m = a.tables, a.small_tables
    print(
        f"fleet audit: {n} tables, {n * a.commits_per_table:,} commits; also the first {m} "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    # imports and first-call caches, so that the first timed run pays for none of them
    audit_fleet(work, m, "out-polars-warm-up", engine="polars")
    polars: dict[int, dict[str, list[Run]]] = {}
    for jobs in (1, 2):
        runs: dict[str, list[Run]] = {"small": [], "full": []}
        for _ in range(a.repeat):
            for size, tables in (("small", m), ("full", n)):
                run, _ = timed_run(
                    tables,
                    lambda t=tables, s=size, j=jobs: audit_fleet(
                        work,
                        t,
                        f"out-polars-{s}",
                        engine="polars",
                        jobs=j,
                        recommendations=a.recommendations,
                    ),
                )
                runs[size].append(run)
        polars[jobs] = runs
        for size in ("full", "small"):
            show(f"polars engine --jobs {jobs}, {best(runs[size]).tables} tables", runs[size])
    masters = [x.strip() for x in a.masters.split(",") if x.strip()]
    spark = {}
    for master in masters:
        got = measure_master(
            master,
            work=work,
            tables=n,
            small=m,
            repeat=a.repeat,
            recommendations=a.recommendations,
        )
        spark[master] = got
        line(f"spark {master}: session start", seconds(got["session"]["wall_s"]))
        show(f"spark {master}: first job, {m} tables", [as_run(got["first"])])
        for size in ("full", "small"):
            show(f"spark {master}: {got[size][0]['tables']} tables", [as_run(r) for r in got[size]])
    same = all(
        reports(work / f"out-polars-{size}") == reports(work / f"out-spark-{got['tag']}-{size}")
        for got in spark.values()
        for size in ("full", "small")
    )
    all_ok = all(got["all_ok"] for got in spark.values())
    line("reports identical, every table ok", "yes" if same and all_ok else "NO")
    figures["fleet"] |= {
        "polars": {
            str(j): {size: [run_dict(r) for r in rs] for size, rs in runs.items()}
            for j, runs in polars.items()
        },
        "spark": spark,
    }
    figures["scale_out"] = scale_out(polars, spark, n)
    return same and all_ok


def show(label: str, runs: list[Run]) -> None:
    """A timed row: the best run's wall and CPU seconds, and how many runs it was the best of."""
    b = best(runs)
    cpu = f"{b.cpu_s:7.1f} cpu-s" if b.cpu_s is not None else ""
    of = f" (best of {len(runs)})" if len(runs) > 1 else ""
    line(label + of, f"{seconds(b.wall_s)} {cpu}  load {b.load:.1f}")


def scale_out(
    polars: dict[int, dict[str, list[Run]]], spark: dict[str, dict[str, Any]], n: int
) -> dict[str, Any]:
    """Throughput per master, the per-table costs, and where Spark overtakes ``--jobs C``."""
    print("scale-out (best runs):", flush=True)
    lines = {
        got["cores"]: Line.through(
            best([as_run(r) for r in got["small"]]), best([as_run(r) for r in got["full"]])
        )
        for got in spark.values()
    }
    full = {got["cores"]: best([as_run(r) for r in got["full"]]) for got in spark.values()}
    out: dict[str, Any] = {
        "throughput_tables_per_s": {c: n / r.wall_s for c, r in full.items()},
        "spark_lines": {
            c: {"fixed_s": f.fixed_s, "per_table_s": f.per_table_s} for c, f in lines.items()
        },
    }
    for cores, run in sorted(full.items()):
        line(f"spark on {cores} core(s): {n} tables per second", f"{n / run.wall_s:8.2f}")
    if len(full) >= 2:
        lo, hi = min(full), max(full)
        gain = full[lo].wall_s / full[hi].wall_s
        out["gain"] = gain
        line(f"throughput gain, {lo} -> {hi} core(s)", ratio(full[lo].wall_s, full[hi].wall_s))
        cpu = [full[c].cpu_s for c in (lo, hi)]
        if None not in cpu:
            line("CPU seconds, same runs", f"{cpu[0]:8.1f} {cpu[1]:8.1f}")
    p_lines = {
        j: Line.through(best(runs["small"]), best(runs["full"])) for j, runs in polars.items()
    }
    out["polars_lines"] = {
        j: {"fixed_s": f.fixed_s, "per_table_s": f.per_table_s} for j, f in p_lines.items()
    }
    for j, fit in sorted(p_lines.items()):
        line(f"per table: polars --jobs {j}", f"{fit.per_table_s:8.3f} s")
    for cores, fit in sorted(lines.items()):
        line(f"per table: spark on {cores} core(s)", f"{fit.per_table_s:8.3f} s")
        line(f"fixed per run: spark on {cores} core(s)", seconds(fit.fixed_s))
    one = lines.get(1)
    if one is not None:
        overhead = one.per_table_s - p_lines[1].per_table_s
        out["per_table_overhead_s"] = overhead
        line("per-table overhead: spark 1 core - polars --jobs 1", f"{overhead:8.3f} s")
    if len(lines) < 2:
        return out
    cost = SparkCost.fit(lines)
    start = sum(
        got["session"]["wall_s"]
        + got["first"]["wall_s"]
        - best([as_run(r) for r in got["small"]]).wall_s
        for got in spark.values()
    ) / len(spark)
    out["model"] = {
        "fixed_s": cost.fixed_s,
        "driver_s": cost.driver_s,
        "executor_s": cost.executor_s,
        "start_s": start,
    }
    line(
        "model: per table on the driver, on executors",
        f"{cost.driver_s:6.3f} {cost.executor_s:6.3f} s",
    )
    line("model: session start + JIT warm-up", seconds(start))
    print(
        "extrapolated, not measured: fleet size where spark on C cores beats --jobs C", flush=True
    )
    polars_line = p_lines[max(p_lines)]
    out["overtakes"] = {}
    for cores in (2, 4, 8, 16, 32, 64):
        warm = overtakes(cost, polars_line, cores)
        cold = overtakes(cost, polars_line, cores, start_s=start)
        out["overtakes"][cores] = {"warm": warm, "cold": cold}
        line(
            f"C={cores}: session running, session started by the run",
            f"{_tables(warm)} {_tables(cold)}",
        )
    return out


def _tables(n: int | None) -> str:
    return f"{n:>8,}" if n is not None else "   never"


def finish(a: argparse.Namespace, figures: dict[str, Any], ok: bool) -> int:
    if a.json is not None:
        a.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print("cross-checks:", "ok" if ok else "FAILED", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
