"""Issue #23: ``explain`` on very long logs against the physical floor, a time window on a
long checkpointed log, and ``history`` against deltalake, each pair in the same run.

Rows (every command a subprocess; wall, CPU seconds of all threads and peak RSS from
``os.wait4``; the 1-minute load average before and after each row, since the host is shared):

* ``explain N``: ``python -m deltaforensics explain PATH --format json`` on
  ``gen_synthetic_log.py --commits N --seed 42`` (no checkpoint), beside **the floor**: read
  every commit file (one ``open``/``read`` each, in version order), join, and one
  ``pyarrow.json.read_json`` parse with an explicit schema (``bench_ingest.py``'s).
* ``window``: ``explain PATH --since T`` over the last ``--window`` commits of an N-commit log
  with checkpoints at K and 2K (K chosen so the newest one lands just before the window's
  lookback), beside ``explain`` on a ``--window``-commit log; also which checkpoint and how
  many commit files the window's segment reads, **the window's floor** (list the folder,
  read the checkpoint's columns without file statistics with pyarrow, read and parse the
  segment's commit files as the floor above does) and deltalake's ``DeltaTable(p)`` (the
  newest checkpoint and every commit after it: the table's state at its last version).
* ``history N``: ``deltaforensics history PATH --format json`` against deltalake's
  ``DeltaTable(p)`` + ``history()``.

    python benchmarks/bench_bounded.py --sizes 100000 --history 100000 --window-size 1000000
    python benchmarks/bench_bounded.py --quick       # tiny smoke run (tests/benchmarks)

Tables go under ``--scratch`` and are reused there when present.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]
# the children run this checkout's code too, wherever the benchmark is started from
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
from bench_scale import Run, _table, deltalake, run_child  # noqa: E402

# Both floors read their commit files the one way: an open/read each, in version order, into
# one buffer, parsed once by pyarrow with bench_ingest.py's explicit schema.
_READ_COMMITS = """
import io, os, sys, time
sys.path.insert(0, sys.argv[2])
import pyarrow.json as pj
from bench_ingest import _floor_schema

def read_commits(log, names):
    parts = []
    for n in names:
        fd = os.open(os.path.join(log, n), os.O_RDONLY)
        try:
            data = os.read(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        parts.append(data if data.endswith(b"\\n") else data + b"\\n")
    return b"".join(parts)

def parse(buffer):
    opts = pj.ParseOptions(explicit_schema=_floor_schema(), unexpected_field_behavior="ignore")
    return pj.read_json(io.BytesIO(buffer), parse_options=opts).num_rows
"""
_FLOOR_CODE = (
    _READ_COMMITS
    + """
log = os.path.join(sys.argv[1], "_delta_log")
names = sorted(n for n in os.listdir(log) if n.endswith(".json") and n[:20].isdigit())
t0 = time.perf_counter()
buffer = read_commits(log, names)
t1 = time.perf_counter()
rows = parse(buffer)
print(f"files={len(names)} rows={rows} read={t1 - t0:.2f}s parse={time.perf_counter() - t1:.2f}s")
"""
)
# The window's physical floor: what reading its segment must cost at the least, with the
# tool's own choices of what to read: the names in _delta_log, the checkpoint's columns
# without the file statistics (the window's segment is over the statistics budget), and the
# segment's commit files read into one buffer and parsed once.
_WINDOW_FLOOR_CODE = (
    _READ_COMMITS
    + """
import pyarrow.parquet as pq
log, checkpoint, base = os.path.join(sys.argv[1], "_delta_log"), sys.argv[3], int(sys.argv[4])
t0 = time.perf_counter()
listed = os.listdir(log)
names = sorted(n for n in listed if n.endswith(".json") and n[:20].isdigit() and int(n[:20]) > base)
t1 = time.perf_counter()
f = pq.ParquetFile(os.path.join(log, checkpoint), memory_map=True)
skip = ("add.stats", "add.stats_parsed", "add.partitionValues_parsed")
cols = [c for c in f.schema_arrow.names if c != "add"]
cols += [f"add.{x.name}" for x in f.schema_arrow.field("add").type if f"add.{x.name}" not in skip]
rows = f.read(columns=cols).num_rows
t2 = time.perf_counter()
parse(read_commits(log, names))
print(f"list={t1 - t0:.2f}s checkpoint={t2 - t1:.2f}s ({rows:,} rows) "
      f"commits={time.perf_counter() - t2:.2f}s ({len(names):,} files)")
"""
)
# delta-rs loading the table's latest state: the newest checkpoint and the commits after it
_DELTALAKE_LOAD_CODE = """
import sys
from deltalake import DeltaTable
dt = DeltaTable(sys.argv[1])
print(f"version={dt.version()}")
"""
LOOKBACK_SLACK = 1_000  # the window's analysis starts from a checkpoint >= 250 commits before it


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def generate(root: Path, commits: int, checkpoint_every: int | None = None) -> Path:
    if (root / "synthetic_manifest.json").exists():
        return root
    argv = [sys.executable, str(HERE / "gen_synthetic_log.py"), "--commits", str(commits),
            "--seed", "42", "--out", str(root), "--quiet"]  # fmt: skip
    if checkpoint_every:
        argv += ["--checkpoint-every", str(checkpoint_every)]
    subprocess.run(argv, check=True)
    return root


def explain(path: Path, timeout: float, *extra: str) -> Run:
    """The report is kept (at most a few hundred KB even at 1,000,000 commits): ``--expect``
    holds it to one recorded before a change."""
    argv = [sys.executable, "-m", "deltaforensics", "explain", str(path), "--format", "json"]
    return run_child([*argv, *extra], stdout_null=False, timeout=timeout)


def same_as(expected: Path | None, name: str, run: Run) -> str:
    """Whether ``run`` printed the JSON recorded in ``expected/name`` (byte for byte)."""
    if expected is None:
        return ""
    recorded = expected / name
    if not recorded.exists():
        return f"no {name} to compare"
    return (
        f"same JSON as {name}"
        if run.out.encode() == recorded.read_bytes()
        else f"JSON DIFFERS from {name}"
    )


def history(path: Path, timeout: float) -> Run:
    argv = [sys.executable, "-m", "deltaforensics", "history", str(path), "--format", "json"]
    return run_child(argv, stdout_null=True, timeout=timeout)


def floor(path: Path, timeout: float) -> Run:
    return run_child([sys.executable, "-c", _FLOOR_CODE, str(path), str(HERE)],
                     stdout_null=False, timeout=timeout)  # fmt: skip


def row(label: str, run: Run, before: str, note: str = "") -> list[str]:
    status = "ok" if run.status == 0 else f"exit {run.status}"
    return [label, f"{run.wall:.2f}", f"{run.cpu:.2f}", f"{run.rss_mb:,.0f}", status,
            f"{before} -> {load_average()}", note]  # fmt: skip


def ratio(label: str, a: Run, b: Run, target: str = "") -> list[str]:
    return [label, f"{a.wall / b.wall:.2f}x", f"{a.cpu / b.cpu:.2f}x", target]


def window_since(path: Path, first: int) -> str:
    """The commit time of version ``first`` as the user would give it (epoch ms): the
    ``commitInfo.timestamp`` the tool reads these commits' times from (no in-commit times)."""
    with (path / "_delta_log" / f"{first:020d}.json").open("rb") as f:
        return str(json.loads(f.readline())["commitInfo"]["timestamp"])


def window_segment(path: Path, window_from: int) -> tuple[str | None, int, str]:
    """The checkpoint file the analysis of the window reads (``None``: none), its version (-1),
    and which checkpoint and how many commit files that is, in words."""
    from deltaforensics.analysis import WINDOW_LOOKBACK, open_store
    from deltaforensics.log.listing import list_log
    from deltaforensics.log.segment import LogSegment

    listing = list_log(open_store(str(path)))
    seg = LogSegment.for_window(listing, window_from, None, lookback=WINDOW_LOOKBACK)
    cp = seg.checkpoint
    words = f"checkpoint v{cp.version if cp else None} + {len(seg.commits):,} commit files"
    words += f" (v{seg.commits[0][0]}..)"
    return (cp.names[0] if cp else None), (cp.version if cp else -1), words


def window_floor(path: Path, checkpoint: str, base: int, timeout: float) -> Run:
    argv = [sys.executable, "-c", _WINDOW_FLOOR_CODE, str(path), str(HERE), checkpoint, str(base)]
    return run_child(argv, stdout_null=False, timeout=timeout)


def deltalake_load(path: Path, timeout: float) -> Run:
    return run_child([sys.executable, "-c", _DELTALAKE_LOAD_CODE, str(path)],
                     stdout_null=False, timeout=timeout)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100000", help="explain vs floor at these commit counts")
    p.add_argument("--history", default="100000", help="history vs deltalake at these sizes")
    p.add_argument("--window-size", type=int, default=1_000_000, help="0: no window row")
    p.add_argument("--window", type=int, default=10_000, help="commits in the window")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--scratch", type=Path, default=Path("bench-bounded"))
    p.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    p.add_argument("--json", type=Path, help="also write the figures as JSON here")
    p.add_argument("--expect", type=Path, help="folder of explain-N.json / window-N.json "
                   "recorded before a change: each report must be byte-identical")  # fmt: skip
    p.add_argument("--record", type=Path, help="write each explain report here (as --expect reads)")
    a = p.parse_args(argv)
    if a.quick:
        a.sizes, a.history, a.window_size, a.window = "300", "300", 3000, 300
    sizes = [int(s) for s in a.sizes.split(",") if s]
    hist = [int(s) for s in a.history.split(",") if s]
    a.scratch.mkdir(parents=True, exist_ok=True)
    rows: list[list[str]] = []
    ratios: list[list[str]] = []
    figures: dict[str, Any] = {}

    def timed(label: str, work: Callable[[], Run], show_out: bool = False, report: str = "") -> Run:
        before = load_average()
        run = work()
        note = run.out.strip() if show_out else ""
        if report:
            note = same_as(a.expect, report, run)
            if a.record:
                a.record.mkdir(parents=True, exist_ok=True)
                (a.record / report).write_text(run.out)
        rows.append(row(label, run, before, note))
        print("  ".join(rows[-1]), file=sys.stderr, flush=True)  # a slow run's figures so far
        return run

    for n in sizes:
        path = generate(a.scratch / f"commits-{n}", n)
        fl = timed(f"floor {n:,}", partial(floor, path, a.timeout), show_out=True)
        ex = timed(f"explain {n:,}", partial(explain, path, a.timeout), report=f"explain-{n}.json")
        ratios.append(ratio(f"explain / floor at {n:,}", ex, fl, "<= 2x CPU"))
        figures[f"explain-{n}"] = {"ours": asdict(ex), "floor": asdict(fl)}
    for n in hist:
        path = generate(a.scratch / f"commits-{n}", n)
        dl = timed(f"deltalake history {n:,}", partial(deltalake, "history", path, a.timeout), True)
        ours = timed(f"history {n:,}", partial(history, path, a.timeout))
        ratios.append(ratio(f"deltalake / history at {n:,}", dl, ours, ">= 5x CPU"))
        figures[f"history-{n}"] = {"ours": asdict(ours), "deltalake": asdict(dl)}
    if a.window_size:
        n, w = a.window_size, a.window
        every = (n - w - LOOKBACK_SLACK) // 2
        long_log = generate(a.scratch / f"checkpointed-{n}-{every}", n, every)
        small = generate(a.scratch / f"commits-{w}", w)
        first = n - w
        ref = timed(
            f"explain {w:,}", partial(explain, small, a.timeout), report=f"explain-{w}.json"
        )
        checkpoint, base, segment_words = window_segment(long_log, first)
        peers: list[tuple[str, Run]] = []
        if checkpoint is not None:
            peers.append((f"its floor (last {w:,} of {n:,})", timed(
                f"window floor, last {w:,} of {n:,}",
                partial(window_floor, long_log, checkpoint, base, a.timeout), show_out=True,
            )))  # fmt: skip
        peers.append(("deltalake DeltaTable()", timed(
            f"deltalake DeltaTable(), {n:,}", partial(deltalake_load, long_log, a.timeout), True
        )))  # fmt: skip
        before = load_average()
        win = explain(long_log, a.timeout, "--since", window_since(long_log, first))
        got = json.loads(win.out).get("time_window") or {} if win.status == 0 else {}
        window = f"v{got.get('first_version')}..v{got.get('last_version')}"
        compared = same_as(a.expect, f"window-{n}.json", win)
        if a.record:
            (a.record / f"window-{n}.json").write_text(win.out)
        rows.append(row(f"explain --since, last {w:,} of {n:,}", win, before,
                        "; ".join(filter(None, [segment_words, f"window {window}",
                                                compared]))))  # fmt: skip
        print("  ".join(rows[-1]), file=sys.stderr, flush=True)
        ratios.append(ratio(f"window of {w:,} / explain {w:,}", win, ref, "<= 1.2x, <= 5 s"))
        for label, peer in peers:
            ratios.append(ratio(f"window of {w:,} / {label}", win, peer))
        figures["window"] = {"ours": asdict(win), "reference": asdict(ref),
                             **{label: asdict(peer) for label, peer in peers}}  # fmt: skip
    print(_table(["run", "wall s", "CPU s", "peak RSS MB", "status", "load 1/5/15", "notes"],
                 rows))  # fmt: skip
    print()
    print(_table(["ratio", "wall", "CPU", "target"], ratios))
    if a.json:
        a.json.write_text(json.dumps(figures, indent=2, default=str))
    failed = [r for r in rows if r[4] != "ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
