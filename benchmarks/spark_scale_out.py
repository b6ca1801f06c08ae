"""The Spark fleet audit at several core counts: measured in child processes, fitted, extrapolated.

``bench_spark.py`` calls :func:`measure_master` once per master (``local[1]``, ``local[2]``).
Each call starts a fresh interpreter (``python spark_scale_out.py --worker``) so that every
master gets its own JVM and Spark session, and the benchmark's own session (or a test's) is
never stopped. The child starts the session, audits the small fleet once to warm the JVM up,
then audits the small and the whole fleet ``repeat`` times each, alternating, and prints its
figures as JSON. Every run is timed in wall seconds and in CPU seconds of the child's whole
process tree (the driver's Python, the JVM and its Python workers, from ``/proc``), so a busy
machine shows up as wall time the CPU seconds do not explain.

:func:`fit` turns the best runs into a straight line per engine (seconds = fixed + n × per
table) and splits the Spark per-table cost into a serial part on the driver and a part the
executor cores share; :func:`overtakes` extrapolates from that where a Spark audit on C cores
beats ``audit --jobs C``. The extrapolation is arithmetic on this machine's figures, not a
measurement of a cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One timed audit."""

    tables: int
    wall_s: float
    cpu_s: float | None  # the process tree's CPU seconds; None off Linux
    load: float  # 1-minute load average when it ended


def tree_cpu_seconds() -> float | None:
    """CPU seconds used so far by this process and every live descendant, children they have
    reaped included (a Python worker that exited is counted in the daemon that forked it)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:  # it ended while we looked
            continue
        fields = raw[raw.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [me]
    while stack:
        pid = stack.pop()
        total += ticks.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total / tick


def timed_run(tables: int, fn: Callable[[], Any]) -> tuple[Run, Any]:
    cpu0, t0 = tree_cpu_seconds(), time.perf_counter()
    value = fn()
    wall, cpu1 = time.perf_counter() - t0, tree_cpu_seconds()
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    return Run(tables=tables, wall_s=wall, cpu_s=cpu, load=os.getloadavg()[0]), value


def best(runs: Sequence[Run]) -> Run:
    """The fastest of repeated runs: on a shared machine the others measure the neighbours."""
    return min(runs, key=lambda r: r.wall_s)


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """seconds = fixed + tables × per_table, through two fleet sizes."""

    fixed_s: float
    per_table_s: float

    @classmethod
    def through(cls, small: Run, full: Run) -> Line:
        per_table = (full.wall_s - small.wall_s) / (full.tables - small.tables)
        return cls(fixed_s=full.wall_s - full.tables * per_table, per_table_s=per_table)

    def at(self, tables: float) -> float:
        return self.fixed_s + tables * self.per_table_s


@dataclass(frozen=True, slots=True, kw_only=True)
class SparkCost:
    """A Spark audit on ``cores`` cores: fixed + n × (driver + executor / cores).

    ``driver_s`` is each table's serial share (planned, unpacked and written on the driver);
    ``executor_s`` is its fetch and analysis, which the executor cores share.
    """

    fixed_s: float
    driver_s: float
    executor_s: float

    @classmethod
    def fit(cls, lines: dict[int, Line]) -> SparkCost:
        """From the lines of two core counts (more: the two farthest apart)."""
        lo, hi = min(lines), max(lines)
        a, b = lines[lo].per_table_s, lines[hi].per_table_s
        executor = max(0.0, (a - b) / (1 / lo - 1 / hi))
        driver = max(0.0, a - executor / lo)
        return cls(
            fixed_s=sum(line.fixed_s for line in lines.values()) / len(lines),
            driver_s=driver,
            executor_s=executor,
        )

    def at(self, tables: float, cores: int) -> float:
        return self.fixed_s + tables * (self.driver_s + self.executor_s / cores)


def overtakes(spark: SparkCost, polars: Line, cores: int, *, start_s: float = 0.0) -> int | None:
    """The smallest fleet a Spark audit on ``cores`` cores finishes before the polars one (whose
    analysis stays on one core whatever ``--jobs``), or None when it never does.
    ``start_s``: what a run pays before its first job (a session start, the JIT warm-up)."""
    gain = polars.per_table_s - (spark.driver_s + spark.executor_s / cores)
    if gain <= 0:
        return None
    behind = spark.fixed_s + start_s - polars.fixed_s
    return max(1, int(behind / gain) + 1)


def measure_master(
    master: str, *, work: Path, tables: int, small: int, repeat: int, recommendations: bool
) -> dict[str, Any]:
    """Run the worker for ``master`` in a fresh interpreter and return its figures."""
    import deltaforensics

    root = Path(deltaforensics.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(HERE)])}
    args = [sys.executable, str(HERE / "spark_scale_out.py"), "--worker", master]
    args += ["--work", str(work), "--tables", str(tables), "--small", str(small)]
    args += ["--repeat", str(repeat)] + (["--recommendations"] if recommendations else [])
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{master}: the measuring process failed:\n{done.stderr[-4000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def fleet_specs(work: Path, tables: int) -> tuple[Any, ...]:
    from deltaforensics.audit.config import TableSpec

    return tuple(
        TableSpec(name=f"t{i:04d}", uri=str(work / "fleet" / f"t{i:04d}"))
        for i in range(1, tables + 1)
    )


def audit_fleet(
    work: Path,
    tables: int,
    out: str,
    *,
    engine: str,
    spark: Any = None,
    jobs: int = 4,
    recommendations: bool = False,
) -> dict[str, Any]:
    """``audit`` of the first ``tables`` tables of the fleet into ``work/out``, as the CLI runs
    it: ``spark_outcomes`` then ``run_audit`` for Spark, ``run_audit`` alone for polars."""
    from deltaforensics.audit.config import AuditConfig
    from deltaforensics.audit.core import AuditSettings
    from deltaforensics.audit.on_spark import spark_outcomes
    from deltaforensics.audit.run import run_audit

    config = AuditConfig(source="bench", tables=fleet_specs(work, tables), output=work / out)
    settings = AuditSettings(recommendations=recommendations)
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
        jobs=jobs,
    )


def _worker(a: argparse.Namespace) -> dict[str, Any]:
    from deltaforensics.engines.spark_engine import spark_session

    tag = a.worker.replace("[", "").replace("]", "").replace("*", "all")
    session, spark = timed_run(0, lambda: spark_session(a.worker, {"spark.driver.memory": "4g"}))
    cores = int(spark.sparkContext.defaultParallelism)

    def audit(tables: int, out: str) -> tuple[Run, Any]:
        return timed_run(
            tables,
            lambda: audit_fleet(
                a.work,
                tables,
                out,
                engine="spark",
                spark=spark,
                recommendations=a.recommendations,
            ),
        )

    first, _ = audit(a.small, f"out-spark-{tag}-warm-up")
    runs: dict[str, list[Run]] = {"small": [], "full": []}
    ok = True
    for _ in range(a.repeat):
        for size, tables in (("small", a.small), ("full", a.tables)):
            run, summary = audit(tables, f"out-spark-{tag}-{size}")
            ok &= summary["totals"]["ok"] == tables
            runs[size].append(run)
    spark.stop()
    return {
        "master": a.worker,
        "tag": tag,
        "cores": cores,
        "session": run_dict(session),
        "first": run_dict(first),
        "small": [run_dict(r) for r in runs["small"]],
        "full": [run_dict(r) for r in runs["full"]],
        "all_ok": ok,
    }


def run_dict(run: Run) -> dict[str, Any]:
    return {"tables": run.tables, "wall_s": run.wall_s, "cpu_s": run.cpu_s, "load": run.load}


def as_run(d: dict[str, Any]) -> Run:
    return Run(tables=d["tables"], wall_s=d["wall_s"], cpu_s=d["cpu_s"], load=d["load"])


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="one master's runs (called by bench_spark.py)")
    p.add_argument("--worker", required=True, help="the Spark master")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--tables", type=int, required=True)
    p.add_argument("--small", type=int, required=True)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--recommendations", action="store_true")
    print(json.dumps(_worker(p.parse_args())), flush=True)
