"""Full-history ingest throughput: deltaforensics vs delta-rs vs a pyarrow parse floor.

    python benchmarks/bench_ingest.py [--commits 20000] [--repeat 3] [--path TABLE] [--json OUT]

Generates the synthetic log of docs/field-notes §6.1 (``gen_synthetic_log.py``, seed 42, no
checkpoint) into a temp dir, then measures, each run in a fresh subprocess (best of ``--repeat``;
peak RSS is the child's ``ru_maxrss`` from ``wait4``, the largest over its runs; page cache warm):

* ours   ``load(store, mode="history")`` + ``replay.snapshot_at()``  (full history + latest snapshot)
* ours   ``load_commits(store)``   (what ``deltaforensics history`` computes)
* delta-rs ``DeltaTable(path)`` + ``.history()``
* floor  ``pyarrow.json.read_json`` of the already-joined bytes with an explicit schema
* the CLI ``deltaforensics history PATH`` end to end (exit 0, a table, no traceback)

and a one-off step breakdown of ours (listing, reads, join, parse, assemble, commit table,
lifecycle + snapshot). Times exclude interpreter start-up and imports, except the CLI's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MB = 1_000_000


# --------------------------------------------------------------------------- worker side


def _rss_mb() -> float:
    with Path("/proc/self/status").open() as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _cpu() -> float:
    """CPU seconds of this process, all threads (less sensitive to other load than wall time)."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _commit_files(path: str) -> list[Path]:
    log = Path(path) / "_delta_log"
    return sorted(f for f in log.iterdir() if f.name.endswith(".json") and f.name[:20].isdigit())


def _read_joined(path: str) -> bytes:
    parts = []
    for f in _commit_files(path):
        data = f.read_bytes()
        parts.append(data if data.endswith(b"\n") else data + b"\n")
    return b"".join(parts)


def _floor_schema() -> Any:
    import pyarrow as pa

    pv = pa.struct([("date", pa.string())])
    return pa.schema(
        [
            (
                "commitInfo",
                pa.struct(
                    [
                        ("timestamp", pa.int64()),
                        ("operation", pa.string()),
                        ("readVersion", pa.int64()),
                        ("isolationLevel", pa.string()),
                        ("isBlindAppend", pa.bool_()),
                        ("txnId", pa.string()),
                        ("engineInfo", pa.string()),
                        ("clientVersion", pa.string()),
                        ("userName", pa.string()),
                    ]
                ),
            ),
            (
                "add",
                pa.struct(
                    [
                        ("path", pa.string()),
                        ("partitionValues", pv),
                        ("size", pa.int64()),
                        ("modificationTime", pa.int64()),
                        ("dataChange", pa.bool_()),
                        ("stats", pa.string()),
                        ("tags", pa.string()),
                        ("baseRowId", pa.int64()),
                        ("defaultRowCommitVersion", pa.int64()),
                        ("clusteringProvider", pa.string()),
                    ]
                ),
            ),
            (
                "remove",
                pa.struct(
                    [
                        ("path", pa.string()),
                        ("deletionTimestamp", pa.int64()),
                        ("dataChange", pa.bool_()),
                        ("extendedFileMetadata", pa.bool_()),
                        ("partitionValues", pv),
                        ("size", pa.int64()),
                    ]
                ),
            ),
            (
                "metaData",
                pa.struct(
                    [
                        ("id", pa.string()),
                        ("schemaString", pa.string()),
                        ("partitionColumns", pa.list_(pa.string())),
                        ("createdTime", pa.int64()),
                    ]
                ),
            ),
            (
                "protocol",
                pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())]),
            ),
            (
                "txn",
                pa.struct(
                    [("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())]
                ),
            ),
        ]
    )


def _worker(kind: str, path: str) -> dict[str, Any]:
    t_import = time.perf_counter()
    out: dict[str, Any] = {"kind": kind}
    if kind == "ours_history":
        from deltaforensics.analysis import load, open_store

        out["import_s"] = time.perf_counter() - t_import
        out["rss_after_import_mb"] = _rss_mb()
        c0, t0 = _cpu(), time.perf_counter()
        store = open_store(path)
        loaded = load(store, mode="history")
        t1 = time.perf_counter()
        snap = loaded.replay.snapshot_at()
        t2 = time.perf_counter()
        out.update(
            seconds=t2 - t0,
            cpu_s=_cpu() - c0,
            load_s=t1 - t0,
            snapshot_s=t2 - t1,
            live_files=snap.num_files,
            file_actions=loaded.replay.frames.files.height,
            diagnostics=[d.code for d in loaded.diagnostics],
        )
    elif kind == "ours_commits":
        from deltaforensics.analysis import load_commits, open_store

        out["import_s"] = time.perf_counter() - t_import
        out["rss_after_import_mb"] = _rss_mb()
        c0, t0 = _cpu(), time.perf_counter()
        _, commits, diagnostics = load_commits(open_store(path))
        out.update(
            seconds=time.perf_counter() - t0,
            cpu_s=_cpu() - c0,
            commits=commits.height,
            diagnostics=[d.code for d in diagnostics],
        )
    elif kind == "deltalake":
        from deltalake import DeltaTable

        out["import_s"] = time.perf_counter() - t_import
        out["rss_after_import_mb"] = _rss_mb()
        c0, t0 = _cpu(), time.perf_counter()
        dt = DeltaTable(path)
        t1 = time.perf_counter()
        history = dt.history()
        t2 = time.perf_counter()
        out.update(
            seconds=t2 - t0,
            cpu_s=_cpu() - c0,
            load_s=t1 - t0,
            history_s=t2 - t1,
            commits=len(history),
        )
        out["live_files"] = len(dt.file_uris())  # after timing: a cross-check only
    elif kind == "floor":
        import io

        import pyarrow.json as pj

        schema = _floor_schema()
        out["import_s"] = time.perf_counter() - t_import
        out["rss_after_import_mb"] = _rss_mb()
        t0 = time.perf_counter()
        buffer = _read_joined(path)
        c1, t1 = _cpu(), time.perf_counter()
        table = pj.read_json(
            io.BytesIO(buffer),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            ),
        )
        t2 = time.perf_counter()
        out.update(
            seconds=t2 - t1,
            cpu_s=_cpu() - c1,
            read_join_s=t1 - t0,
            rows=table.num_rows,
            bytes=len(buffer),
        )
    elif kind == "breakdown":
        out.update(_breakdown(path, t_import))
        out["seconds"] = out["cpu_s"] = 0.0
    else:
        raise SystemExit(f"unknown worker {kind!r}")
    return out


INFO = "  · "  # breakdown rows that re-measure part of a step; not added to the sum


def _breakdown(path: str, t_import: float) -> dict[str, Any]:
    """The steps of ``load(mode="history")`` + ``snapshot_at()``, timed one by one, plus what
    ``load_commits`` adds (the commit table), and two informational splits of the parse step."""
    from deltaforensics.analysis import open_store
    from deltaforensics.log.assembly import assemble, physical_partition_columns
    from deltaforensics.log.commit_actions import CommitActions
    from deltaforensics.log.commit_fallback import inject_version, parse_raw
    from deltaforensics.log.commit_reader import read_commits
    from deltaforensics.log.listing import list_log
    from deltaforensics.log.segment import LogSegment
    from deltaforensics.replay import Replay, content_diagnostics

    steps: dict[str, float] = {"import": time.perf_counter() - t_import}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        steps[name] = now - clock
        clock = now

    store = open_store(path)
    listing = list_log(store)
    lap("list_log (store.list_log + classify)")
    segment = LogSegment.for_history(listing)
    lap("LogSegment.for_history")
    blobs = store.read_many([n for _, n in segment.commits])
    lap("store.read_many (one read per commit)")
    triples = [(v, n, blobs[n]) for v, n in segment.commits]
    raw = read_commits(triples)
    lap("read_commits (join + one parse)")
    commits = CommitActions.from_raw(raw)
    pcs = physical_partition_columns(commits.metadata_texts())
    frames = assemble(segment, None, commits, pcs, triples)
    lap("normalise + assemble (file_actions, side_actions)")
    rep = Replay(store.uri, frames)
    content_diagnostics(rep)
    lap("content_diagnostics")
    _ = rep.lifecycle
    lap("Replay.lifecycle")
    snap = rep.snapshot_at()
    lap("snapshot_at")
    _ = rep.commits
    lap("Replay.commits (load_commits only)")
    buffer = b"".join(inject_version(v, d) for v, _, d in triples)
    lap(INFO + "inject_version + join alone")
    parse_raw(buffer)
    lap(INFO + "pl.read_ndjson of the joined buffer alone")
    return {"steps": steps, "live_files": snap.num_files, "bytes": len(buffer)}


# --------------------------------------------------------------------------- driver side


def _run_child(
    cmd: list[str], stdout_path: Path, stderr_path: Path
) -> tuple[int, float, float, float]:
    """Run ``cmd``; return (exit code, wall seconds, peak RSS MB, CPU seconds) of the child."""
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _measure_once(kind: str, path: str, i: int, scratch: Path) -> tuple[dict[str, Any], float]:
    so, se = scratch / f"{kind}.{i}.out", scratch / f"{kind}.{i}.err"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--path", path]
    rc, _, rss, _ = _run_child(cmd, so, se)
    if rc != 0:
        raise SystemExit(f"worker {kind} failed (exit {rc}):\n{se.read_text()[-3000:]}")
    return json.loads(so.read_text().strip().splitlines()[-1]), rss


def _summarise(kind: str, runs: list[tuple[dict[str, Any], float]]) -> dict[str, Any]:
    best = min((r for r, _ in runs), key=lambda r: r["seconds"])
    return {
        "kind": kind,
        "best": best,
        "times": [r["seconds"] for r, _ in runs],
        "median_s": statistics.median(r["seconds"] for r, _ in runs),
        "peak_rss_mb": max(rss for _, rss in runs),
        "best_cpu_s": min(r["cpu_s"] for r, _ in runs),
    }


def _cli_once(path: str, i: int, scratch: Path, commits: int) -> dict[str, Any]:
    exe = shutil.which("deltaforensics")
    base = [exe] if exe else [sys.executable, "-m", "deltaforensics"]
    so, se = scratch / f"cli.{i}.out", scratch / f"cli.{i}.err"
    rc, wall, rss, cpu = _run_child([*base, "history", path], so, se)
    err = se.read_text(errors="replace")
    with so.open("rb") as fh:
        head = fh.readline().decode(errors="replace")
        rows = sum(1 for _ in fh) - 1  # minus the rule line under the header
    problems = []
    if rc != 0:
        problems.append(f"run {i}: exit {rc}")
    if "Traceback" in err or "internal error" in err:
        problems.append(f"run {i}: traceback/internal error on stderr")
    if not head.startswith("version") or "operation" not in head:
        problems.append(f"run {i}: stdout does not start with the table header")
    if rows != commits:
        problems.append(f"run {i}: {rows} table rows, expected {commits}")
    return {
        "seconds": wall,
        "cpu_s": cpu,
        "rss": rss,
        "problems": problems,
        "stdout_bytes": so.stat().st_size,
        "command": " ".join([*base, "history", path]),
    }


def _breakdown_min(path: str, repeat: int, scratch: Path) -> dict[str, float]:
    best: dict[str, float] = {}
    for i in range(repeat):
        r, _ = _measure_once("breakdown", path, i, scratch)
        for k, v in r["steps"].items():
            best[k] = min(v, best.get(k, v))
    return best


def measure_all(path: str, repeat: int, scratch: Path, commits: int) -> dict[str, Any]:
    """Round-robin (one run of each per round) so background load hits every contender alike."""
    kinds = ("ours_history", "ours_commits", "deltalake", "floor")
    runs: dict[str, list[tuple[dict[str, Any], float]]] = {k: [] for k in kinds}
    cli_runs: list[dict[str, Any]] = []
    for i in range(repeat):
        for k in kinds:
            runs[k].append(_measure_once(k, path, i, scratch))
        cli_runs.append(_cli_once(path, i, scratch, commits))
        print(f"  round {i + 1}/{repeat} done", file=sys.stderr)
    out: dict[str, Any] = {k: _summarise(k, runs[k]) for k in kinds}
    problems = [p for r in cli_runs for p in r["problems"]]
    times = [r["seconds"] for r in cli_runs]
    out["cli"] = {
        "kind": "cli_history",
        "best_s": min(times),
        "times": times,
        "median_s": statistics.median(times),
        "peak_rss_mb": max(r["rss"] for r in cli_runs),
        "best_cpu_s": min(r["cpu_s"] for r in cli_runs),
        "ok": not problems,
        "problems": problems,
        "stdout_bytes": cli_runs[0]["stdout_bytes"],
        "command": cli_runs[0]["command"],
    }
    return out


def _fmt_row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [_fmt_row(headers, widths), "  ".join("-" * w for w in widths)]
    lines += [_fmt_row(r, widths) for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commits", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--path", help="use this existing table instead of generating one")
    p.add_argument("--keep", action="store_true", help="keep the generated table")
    p.add_argument("--json", type=Path, help="also write all results as JSON here")
    p.add_argument("--no-breakdown", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker:
        print(json.dumps(_worker(a.worker, a.path)))
        return 0

    scratch = Path(tempfile.mkdtemp(prefix="df-bench-"))
    results: dict[str, Any] = {"argv": sys.argv, "python": sys.version.split()[0]}
    try:
        if a.path:
            path = a.path
            manifest_file = Path(path) / "synthetic_manifest.json"
            manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
        else:
            sys.path.insert(0, str(HERE))
            from gen_synthetic_log import generate

            path = str(scratch / "table")
            t0 = time.perf_counter()
            manifest = generate(a.commits, Path(path), seed=a.seed, quiet=True)
            print(f"generated {a.commits} commits in {time.perf_counter() - t0:.2f} s -> {path}")
        results["manifest"] = manifest
        files = _commit_files(path)
        t0 = time.perf_counter()
        total = sum(len(f.read_bytes()) for f in files)  # also warms the page cache
        io_s = time.perf_counter() - t0
        n = len(files)
        print(
            f"{n} commit files, {total / MB:.1f} MB JSON, {manifest.get('actions', '?')} actions, "
            f"{manifest.get('live_files', '?')} live files; plain open+read of all: {io_s:.3f} s"
        )
        import deltalake
        import polars
        import pyarrow

        versions = f"polars {polars.__version__}, pyarrow {pyarrow.__version__}, deltalake {deltalake.__version__}"
        print(
            f"Python {results['python']}, {versions}, {os.cpu_count()} cores; best of {a.repeat}\n"
        )
        results["versions"] = versions
        results["io_read_s"] = io_s

        load_before = os.getloadavg()
        m = measure_all(path, a.repeat, scratch, n)
        load_after = os.getloadavg()
        cli = m["cli"]
        results.update(m)
        results["loadavg_before_after"] = [load_before, load_after]

        def row(label: str, secs: float, rec: dict[str, Any], note: str) -> list[str]:
            return [
                label,
                f"{secs:.3f}",
                f"{statistics.median(rec['times']):.3f}" if "times" in rec else "",
                f"{n / secs:,.0f}",
                f"{total / MB / secs:,.1f}",
                f"{rec['best_cpu_s']:.3f}",
                f"{rec['peak_rss_mb']:,.0f}",
                note,
            ]

        oh, oc, dl, fl = (m[k] for k in ("ours_history", "ours_commits", "deltalake", "floor"))
        rows = [
            row(
                "ours: load(history) + snapshot_at()",
                oh["best"]["seconds"],
                oh,
                f"load {oh['best']['load_s']:.3f} + snapshot {oh['best']['snapshot_s']:.3f}; "
                f"{oh['best']['live_files']} live files",
            ),
            row(
                "ours: load_commits()",
                oc["best"]["seconds"],
                oc,
                f"{oc['best']['commits']} commits",
            ),
            row(
                "delta-rs: DeltaTable() + history()",
                dl["best"]["seconds"],
                dl,
                f"load {dl['best']['load_s']:.3f} + history {dl['best']['history_s']:.3f}; "
                f"{dl['best']['live_files']} live files",
            ),
            row(
                "floor: pyarrow read_json(joined)",
                fl["best"]["seconds"],
                fl,
                f"parse only; read+join {fl['best']['read_join_s']:.3f} s extra",
            ),
            row(
                "CLI: deltaforensics history PATH",
                cli["best_s"],
                cli,
                ("ok" if cli["ok"] else "FAILED: " + "; ".join(cli["problems"]))
                + f"; wall incl. start-up, {cli['stdout_bytes'] / MB:.1f} MB table",
            ),
        ]
        print(
            _table(
                [
                    "measurement",
                    "best s",
                    "median s",
                    "files/s",
                    "MB/s",
                    "best CPU s",
                    "peak RSS MB",
                    "notes",
                ],
                rows,
            )
        )

        ours = oh["best"]["seconds"]
        ratios = [
            (
                "delta-rs (load+history) / ours (history+snapshot)",
                dl["best"]["seconds"] / ours,
                ">= 2.0",
                True,
            ),
            (
                "delta-rs (load+history) / ours load_commits",
                dl["best"]["seconds"] / oc["best"]["seconds"],
                "",
                True,
            ),
            ("ours (history+snapshot) / floor", ours / fl["best"]["seconds"], "<= 3.0", False),
            ("ours load_commits / floor", oc["best"]["seconds"] / fl["best"]["seconds"], "", False),
            (
                "ours (history+snapshot) / (floor + its read+join)",
                ours / (fl["best"]["seconds"] + fl["best"]["read_join_s"]),
                "",
                False,
            ),
        ]
        cpu_ratios = {
            "delta-rs (load+history) / ours (history+snapshot)": dl["best_cpu_s"]
            / oh["best_cpu_s"],
            "delta-rs (load+history) / ours load_commits": dl["best_cpu_s"] / oc["best_cpu_s"],
            "ours (history+snapshot) / floor": oh["best_cpu_s"] / fl["best_cpu_s"],
            "ours load_commits / floor": oc["best_cpu_s"] / fl["best_cpu_s"],
        }
        cpu_ratios["ours (history+snapshot) / (floor + its read+join)"] = float("nan")
        print()
        ratio_rows = []
        for label, value, target, higher_better in ratios:
            if target:
                limit = float(target.split()[1])
                met = value >= limit if higher_better else value <= limit
                verdict = "MET" if met else "MISSED"
            else:
                verdict = ""
            ratio_rows.append(
                [
                    label,
                    f"{value:.2f}x",
                    "" if cpu_ratios[label] != cpu_ratios[label] else f"{cpu_ratios[label]:.2f}x",
                    target,
                    verdict,
                ]
            )
        print(_table(["ratio (best runs)", "wall", "CPU", "target", "verdict (wall)"], ratio_rows))
        results["ratios"] = {label: value for label, value, _, _ in ratios}
        results["cpu_ratios"] = cpu_ratios

        checks = []
        expected = manifest.get("live_files")
        if expected is not None:
            checks.append(("ours live files == manifest", oh["best"]["live_files"] == expected))
            checks.append(("delta-rs live files == manifest", dl["best"]["live_files"] == expected))
        checks.append(("ours commits == files", oc["best"]["commits"] == n))
        checks.append(("delta-rs history rows == files", dl["best"]["commits"] == n))
        checks.append(("CLI history: exit 0, table, no traceback", cli["ok"]))
        print("\nchecks: " + ", ".join(f"{c}: {'ok' if ok else 'FAIL'}" for c, ok in checks))
        print(f"CLI command: {cli['command']}")
        print(
            "load average (1/5/15 min) before: "
            + "/".join(f"{x:.2f}" for x in load_before)
            + ", after: "
            + "/".join(f"{x:.2f}" for x in load_after)
            + " (other processes on the machine skew absolute times; ratios are same-run)"
        )

        if not a.no_breakdown:
            steps = _breakdown_min(path, a.repeat, scratch)
            results["breakdown"] = steps
            counted = [
                k
                for k in steps
                if k != "import" and not k.startswith(INFO) and "load_commits only" not in k
            ]
            body = sum(steps[k] for k in counted)
            print(
                f"\nwhere ours (history + snapshot) spends its time (per step, best of {a.repeat}):"
            )
            print(
                _table(
                    ["step", "s", "share"],
                    [
                        [k, f"{v:.3f}", f"{v / body:.0%}" if k in counted else ""]
                        for k, v in steps.items()
                    ]
                    + [
                        ["history + snapshot: sum of the steps with a share", f"{body:.3f}", "100%"]
                    ],
                )
            )
        if a.json:
            a.json.write_text(json.dumps(results, indent=2, default=str) + "\n")
        return 0 if all(ok for _, ok in checks) else 1
    finally:
        if a.keep and not a.path:
            print(f"\nkept {scratch / 'table'}")
            for f in scratch.iterdir():
                if f.name != "table":
                    f.unlink()
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
