"""Scale benchmark: ``history``, ``snapshot`` and ``explain`` on big generated logs, each as a
subprocess, against ``deltalake`` doing the same work in its own subprocess in the same run.

Scenarios (issue #9):

* ``commits`` (a): ``gen_synthetic_log.py --commits N``, no checkpoint (default N = 100,000).
* ``checkpoint`` (b): ``gen_checkpoint_log.py --files F --commits 10000`` as a multi-part and as
  a V2 (sidecar) checkpoint (default F = 1,000,000).
* ``races`` (c): ``gen_synthetic_log.py --commits N --race-fraction 0.1`` (default N = 20,000).

Each command runs as ``python -m deltaforensics CMD PATH --format json > /dev/null``; wall time
and peak RSS come from ``os.wait4`` (the child's own ``ru_maxrss``), so interpreter start-up and
imports are included, as a user sees them. deltalake's side, also one subprocess each:

* ``history``: ``DeltaTable(path)`` + ``history()``.
* ``snapshot``: ``DeltaTable(path)`` + ``get_add_actions(flatten=False)`` + ``file_uris()``.
* ``explain``: deltalake has no equivalent; the ratio is against ``DeltaTable(path)`` +
  ``history()`` (loading the same history), and the table says so.

    python benchmarks/bench_scale.py commits                      # (a) at 100,000 commits
    python benchmarks/bench_scale.py checkpoint                   # (b) at 1,000,000 files
    python benchmarks/bench_scale.py races                        # (c)
    python benchmarks/bench_scale.py commits --sizes 10000,30000,100000   # growth
    python benchmarks/bench_scale.py commits --quick              # tiny smoke run

Generated tables go under ``--scratch`` (default a new temporary directory, removed at the end
unless ``--keep``); an existing table of the same parameters there is reused.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COMMANDS = ("history", "snapshot", "explain")
DEFAULT_SIZES = {"commits": [100_000], "checkpoint": [1_000_000], "races": [20_000]}
QUICK_SIZES = {"commits": [300], "checkpoint": [3_000], "races": [300]}
CHECKPOINT_COMMITS = 10_000
QUICK_CHECKPOINT_COMMITS = 50
DELTALAKE_WORK = {
    "history": "DeltaTable(p) + history()",
    "snapshot": "DeltaTable(p) + get_add_actions() + file_uris()",
    "explain": "DeltaTable(p) + history() (no explain in deltalake)",
}
_DELTALAKE_CODE = """
import sys
import pyarrow as pa
from deltalake import DeltaTable
p, work = sys.argv[1], sys.argv[2]
dt = DeltaTable(p)
if work == "snapshot":
    n = pa.table(dt.get_add_actions(flatten=False)).num_rows
    m = len(dt.file_uris())
    print(f"files={n} uris={m} version={dt.version()}")
else:
    print(f"history={len(dt.history())} files={len(dt.file_uris())} version={dt.version()}")
"""


@dataclass(frozen=True, slots=True)
class Run:
    wall: float
    cpu: float  # user + system seconds of the child (all threads): robust to background load
    rss_mb: float
    status: int
    out: str
    err: str


def run_child(argv: list[str], *, stdout_null: bool, timeout: float) -> Run:
    """Run ``argv``; wall time and the child's own peak RSS from ``wait4``."""
    env = dict(os.environ)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sink = subprocess.DEVNULL if stdout_null else out
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=sink, stderr=err, env=env)
        deadline = started + timeout
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                status = -9
                break
            time.sleep(0.01)
        wall = time.perf_counter() - started
        proc.returncode = 0  # reaped by wait4 above
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status) if status != -9 else -9
        return Run(
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime if usage else 0.0,
            rss_mb=usage.ru_maxrss / 1024 if usage else 0.0,
            status=code,
            out=out.read().decode(errors="replace"),
            err=err.read().decode(errors="replace"),
        )


def ours(command: str, path: Path, timeout: float) -> Run:
    argv = [sys.executable, "-m", "deltaforensics", command, str(path), "--format", "json"]
    return run_child(argv, stdout_null=True, timeout=timeout)


def deltalake(command: str, path: Path, timeout: float) -> Run:
    work = "snapshot" if command == "snapshot" else "history"
    argv = [sys.executable, "-c", _DELTALAKE_CODE, str(path), work]
    return run_child(argv, stdout_null=False, timeout=timeout)


def table_for(scenario: str, size: int, scratch: Path, *, quick: bool, kind: str = "") -> Path:
    """Generate (or reuse) the table of one scenario and size; returns its root."""
    if scenario == "checkpoint":
        commits = QUICK_CHECKPOINT_COMMITS if quick else CHECKPOINT_COMMITS
        root = scratch / f"checkpoint-{kind}-{size}-{commits}"
        argv = [sys.executable, str(HERE / "gen_checkpoint_log.py"), "--files", str(size),
                "--commits", str(commits), "--kind", kind, "--out", str(root), "--quiet"]  # fmt: skip
        if quick:
            argv += ["--parts", "3", "--sidecars", "2"]
    else:
        race = "0.1" if scenario == "races" else "0"
        root = scratch / f"{scenario}-{size}"
        argv = [sys.executable, str(HERE / "gen_synthetic_log.py"), "--commits", str(size),
                "--race-fraction", race, "--out", str(root), "--quiet"]  # fmt: skip
    if (root / "synthetic_manifest.json").exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    subprocess.run(argv, check=True)
    return root


def _fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]  # fmt: skip
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def best(runs: list[Run]) -> Run:
    ok = [r for r in runs if r.status in (0, 1)] or runs
    return min(ok, key=lambda r: r.wall)


def measure(path: Path, commands: tuple[str, ...], repeat: int, timeout: float
            ) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Round-robin ``repeat`` rounds of ours and deltalake per command; best wall of each."""
    results: dict[str, dict[str, Any]] = {}
    dl_cache: dict[str, list[Run]] = {}
    for command in commands:
        mine: list[Run] = []
        for _ in range(repeat):
            mine.append(ours(command, path, timeout))
            work = "snapshot" if command == "snapshot" else "history"
            if len(dl_cache.get(work, [])) < repeat:
                dl_cache.setdefault(work, []).append(deltalake(command, path, timeout))
        results[command] = {"ours": best(mine), "deltalake": best(dl_cache[work]), "runs": mine}
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scenario", choices=("commits", "checkpoint", "races"))
    p.add_argument("--sizes", help="comma-separated sizes (commits, or checkpoint files)")
    p.add_argument(
        "--commands", default=None, help="comma-separated subset of history,snapshot,explain"
    )
    p.add_argument("--kinds", default="multipart,v2", help="checkpoint kinds (scenario b)")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per child")
    p.add_argument("--scratch", type=Path, help="where tables are generated (reused if present)")
    p.add_argument("--keep", action="store_true", help="keep generated tables")
    p.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    p.add_argument("--json", type=Path, help="also write the figures as JSON here")
    a = p.parse_args(argv)
    sizes = (
        [int(s.replace("_", "")) for s in a.sizes.split(",")]
        if a.sizes
        else (QUICK_SIZES if a.quick else DEFAULT_SIZES)[a.scenario]
    )
    default_cmds = ("snapshot", "history") if a.scenario == "checkpoint" else COMMANDS
    commands = tuple(a.commands.split(",")) if a.commands else default_cmds
    kinds = a.kinds.split(",") if a.scenario == "checkpoint" else [""]
    made = a.scratch is None
    scratch = a.scratch or Path(tempfile.mkdtemp(prefix="df-scale-"))
    scratch.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, {_mem_gib():.0f} GiB, {platform.platform()}, "
          f"Python {platform.python_version()}, {_versions()}")  # fmt: skip
    rows: list[list[str]] = []
    figures: list[dict[str, Any]] = []
    try:
        for size in sizes:
            for kind in kinds:
                t0 = time.perf_counter()
                path = table_for(a.scenario, size, scratch, quick=a.quick, kind=kind)
                manifest = json.loads((path / "synthetic_manifest.json").read_text())
                gen = time.perf_counter() - t0
                label = f"{a.scenario}{'/' + kind if kind else ''}"
                print(f"table: {label} size={size} live_files={manifest['live_files']} "
                      f"path={path} (ready in {gen:.1f} s)", flush=True)  # fmt: skip
                res = measure(path, commands, a.repeat, a.timeout)
                for command, r in res.items():
                    mine, theirs = r["ours"], r["deltalake"]
                    ok = mine.status in (0, 1) and "Traceback" not in mine.err
                    ratio = theirs.wall / mine.wall if ok and theirs.status == 0 else None
                    check = _check(command, theirs, manifest)
                    cpu_ratio = theirs.cpu / mine.cpu if ratio and mine.cpu else None
                    rows.append([label, f"{size:,}", command,
                                 _fmt(mine.wall) if ok else f"FAIL({mine.status})",
                                 _fmt(mine.cpu), f"{mine.rss_mb:,.0f}", _fmt(theirs.wall),
                                 _fmt(theirs.cpu), f"{theirs.rss_mb:,.0f}",
                                 f"{ratio:.2f}x" if ratio else "-",
                                 f"{cpu_ratio:.2f}x" if cpu_ratio else "-",
                                 check, DELTALAKE_WORK[command]])  # fmt: skip
                    figures.append({"scenario": label, "size": size, "command": command,
                                    "ours_s": mine.wall, "ours_cpu_s": mine.cpu,
                                    "ours_rss_mb": mine.rss_mb, "ours_status": mine.status,
                                    "deltalake_s": theirs.wall, "deltalake_cpu_s": theirs.cpu,
                                    "deltalake_rss_mb": theirs.rss_mb, "ratio": ratio,
                                    "cpu_ratio": cpu_ratio, "check": check,
                                    "live_files": manifest["live_files"]})  # fmt: skip
                    if not ok:
                        print(mine.err[-2000:], file=sys.stderr)
    finally:
        if made and not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    headers = ["scenario", "size", "command", "ours s", "ours CPU s", "ours RSS MB",
               "deltalake s", "deltalake CPU s", "deltalake RSS MB", "wall ratio", "CPU ratio",
               "check", "deltalake work"]  # fmt: skip
    print()
    print(_table(headers, rows))
    print()
    for line in _targets(a.scenario, figures):
        print(line)
    if len(sizes) >= 2:
        print()
        print(_growth(figures))
    load_after = os.getloadavg()
    print(f"\nload average (1/5/15 min) before: {'/'.join(f'{x:.2f}' for x in load_before)}, "
          f"after: {'/'.join(f'{x:.2f}' for x in load_after)}")  # fmt: skip
    if a.json:
        a.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if all(f["ours_status"] in (0, 1) for f in figures) else 1


def _check(command: str, theirs: Any, manifest: dict[str, Any]) -> str:
    """deltalake's live-file count against the generator's manifest."""
    if theirs.status != 0:
        return f"deltalake failed ({theirs.status})"
    fields = dict(kv.split("=", 1) for kv in theirs.out.split())
    files = int(fields.get("files", -1))
    return (
        "files ok"
        if files == manifest["live_files"]
        else f"files {files} != {manifest['live_files']}"
    )


def _targets(scenario: str, figures: list[dict[str, Any]]) -> list[str]:
    out = []
    for f in figures:
        s, c = f["ours_s"], f["command"]
        if scenario == "commits" and f["size"] >= 100_000 and c == "explain":
            out.append(
                f"target: explain on (a) <= 15 s: {'MET' if s <= 15 else 'MISSED'} "
                f"({s:.2f} s wall, {f['ours_cpu_s']:.2f} CPU s)"
            )
        if scenario == "commits" and f["size"] >= 100_000 and c == "history" and f["ratio"]:
            met = "MET" if f["ratio"] >= 3 else "MISSED"
            out.append(
                f"target: history on (a) >= 3x faster than deltalake: {met} "
                f"({f['ratio']:.2f}x wall, {f['cpu_ratio'] or 0:.2f}x CPU)"
            )
        if scenario.startswith("checkpoint") and f["size"] >= 1_000_000 and c == "snapshot":
            met = "MET" if s <= 5 and f["ours_rss_mb"] <= 2048 else "MISSED"
            out.append(f"target: snapshot of (b) {f['scenario']} <= 5 s and <= 2 GiB: {met} "
                       f"({s:.2f} s wall, {f['ours_cpu_s']:.2f} CPU s, "
                       f"{f['ours_rss_mb']:,.0f} MB)")  # fmt: skip
    return out or ["targets: none apply at these sizes"]


def _growth(figures: list[dict[str, Any]]) -> str:
    rows = []
    by_cmd: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for f in figures:
        by_cmd.setdefault((f["scenario"], f["command"]), []).append(f)
    for (scenario, command), fs in by_cmd.items():
        fs.sort(key=lambda f: f["size"])
        first, last = fs[0], fs[-1]
        size_x = last["size"] / first["size"]
        time_x = last["ours_s"] / first["ours_s"] if first["ours_s"] else float("nan")
        rss_x = last["ours_rss_mb"] / first["ours_rss_mb"] if first["ours_rss_mb"] else float("nan")
        rows.append([scenario, command, " -> ".join(f"{f['size']:,}" for f in fs),
                     " -> ".join(_fmt(f["ours_s"]) for f in fs),
                     " -> ".join(_fmt(f["ours_cpu_s"]) for f in fs),
                     " -> ".join(f"{f['ours_rss_mb']:,.0f}" for f in fs),
                     f"{size_x:.1f}x", f"{time_x:.1f}x", f"{rss_x:.1f}x"])  # fmt: skip
    headers = ["growth", "command", "sizes", "ours s", "ours CPU s", "ours RSS MB", "size x",
               "time x", "RSS x"]  # fmt: skip
    return _table(headers, rows)


def _mem_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return 0.0


def _versions() -> str:
    out = []
    for name in ("polars", "pyarrow", "deltalake"):
        try:
            mod = __import__(name)
            out.append(f"{name} {mod.__version__}")
        except ImportError:
            out.append(f"{name} missing")
    return ", ".join(out)


if __name__ == "__main__":
    sys.exit(main())
