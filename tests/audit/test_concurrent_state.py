"""Audits run at once over one state directory, one of them killed: the kept state stays whole.

Issue #19: concurrent runs shared ``*.tmp`` names (one run renamed another's half-written part)
and a slower run overwrote a newer run's end version. Each round here starts two real audits
(subprocesses) over the same state and output directories, the second one reading a log one
commit longer and auditing the tables in the opposite order, and kills one of them (SIGKILL)
after a random delay; after every round the state must load, each table's end version must be
one a run read, never older than before, and no temporary may be taken for state.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from deltaforensics.audit import run as audit_run
from deltaforensics.audit.files import STALE_TEMPORARY_SECONDS
from deltaforensics.audit.state import read_state
from deltaforensics.cli import main
from deltaforensics.report.validate import validate
from tests.audit.test_audit import write_config
from tests.support.builder import LogBuilder

REPO = Path(__file__).resolve().parents[2]
TABLES = 8
MAX_ROUNDS = 10
BUDGET_SECONDS = 18.0  # no round starts after this once two runs were killed mid-run

# A real `deltaforensics audit` process, warmed ahead so that the two runs of a round start
# together: it imports the CLI, then runs one audit per line of arguments it is sent (`main`
# keeps no global state) and answers each with its exit code and stdout.
WORKER = """
import contextlib, io, json, sys
from deltaforensics.cli import main
import deltaforensics.audit.core, deltaforensics.audit.run  # what the audit imports lazily
print("ready", flush=True)
for line in sys.stdin:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(json.loads(line))
    print(json.dumps({"code": code, "out": out.getvalue()}), flush=True)
"""


class GrowingTable:
    """A table written by LogBuilder beside the lake; each new commit enters the lake's log in
    one rename, so an audit never lists a half-written commit (the writer is not under test)."""

    def __init__(self, root: Path, name: str, seed: int) -> None:
        self.name = name
        self.path = root / "lake" / name
        self.log = self.path / "_delta_log"
        self.log.mkdir(parents=True)
        self.incoming = root / "incoming"
        self.incoming.mkdir(exist_ok=True)
        self.builder = LogBuilder(root / "staging" / name, partition_by=["date"], seed=seed)
        self._enter(self.builder.create())
        self.latest = 0

    def grow(self) -> int:
        b = self.builder
        self.latest = b.write(add=[b.file(f"date={'AB'[self.latest % 2]}")])
        self._enter(self.latest)
        return self.latest

    def _enter(self, version: int) -> None:
        name = f"{version:020d}.json"
        shutil.copyfile(self.builder.log_dir / name, self.incoming / name)
        (self.incoming / name).replace(self.log / name)


class Worker:
    def __init__(self, stderr: Path) -> None:
        self.stderr = stderr
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr.open("w"),
            text=True,
        )
        self.ready = False

    def wait_ready(self) -> Worker:
        if not self.ready:
            assert self._line() == "ready", self.stderr.read_text()
            self.ready = True
        return self

    def go(self, args: list[str]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(["--quiet", *args]) + "\n")
        self.proc.stdin.flush()

    def result(self) -> dict[str, Any]:
        line = self._line()
        assert line, f"the audit process died: {self.stderr.read_text()[-2000:]}"
        return dict(json.loads(line))

    def kill(self) -> bool:
        """SIGKILL; True when the audit was still running (it had not answered)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        assert self.proc.stdout is not None
        return not self.proc.stdout.read().strip()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()


def check_state(
    state: Path, tables: list[GrowingTable], readable: dict[str, set[int]], before: dict[str, int]
) -> dict[str, int]:
    """The state loads, each end version is one a run read and not older than before, the
    state is the log up to that version, and nothing but named parts can pass for state."""
    ends = {}
    for t in tables:
        kept = read_state(state, t.name, str(t.path))
        assert kept is not None, t.name
        end = kept.end_version
        assert end in readable[t.name], (t.name, end, sorted(readable[t.name]))
        assert end >= before.get(t.name, 0), f"{t.name}: the end version went back to v{end}"
        assert kept.frames.commit_versions == tuple(range(end + 1))
        assert kept.last_commit is not None and kept.last_commit[:2] == (end, f"{end:020d}.json")
        assert kept.frames.files.height == end  # one add per WRITE, none in CREATE
        ends[t.name] = end
    for path in state.rglob("*"):
        if path.is_dir():
            continue
        rel = path.relative_to(state)
        if path.name.endswith(".tmp"):  # a killed run's temporary: hidden from every reader
            assert path.name.startswith("."), rel  # a `*.parquet` glob or Spark skips it
        elif rel.parts[0] == "_tables":
            assert path.suffix in {".json", ".lock"}, rel
        else:
            assert path.name.startswith("part-") and path.suffix == ".parquet", rel
    return ends


def test_two_audits_at_once_one_killed_keep_a_whole_state_that_never_goes_back(
    tmp_path: Path,
) -> None:
    rng = random.Random(19)
    tables = [GrowingTable(tmp_path, f"t{i}", seed=i) for i in range(TABLES)]
    specs = [{"name": t.name, "uri": str(t.path)} for t in tables]
    state = tmp_path / "state"
    common = {"output": str(tmp_path / "out"), "recommendations": False}
    args = [
        [
            "audit",
            str(write_config(tmp_path / f"{name}.toml", order, **common)),
            "--state",
            str(state),
            "--format",
            "json",
        ]
        for name, order in (("forward", specs), ("backward", specs[::-1]))
    ]
    spawned = 0

    def spawn() -> Worker:
        nonlocal spawned
        spawned += 1
        return Worker(tmp_path / f"worker-{spawned}.err")

    pool = [spawn() for _ in range(3)]  # two for the first round, one spare warming up
    readable: dict[str, set[int]] = {t.name: set() for t in tables}
    ends: dict[str, int] = {}
    newest: dict[str, int] = {}  # the newest end version a finished run says it kept
    kills = mid_write = 0
    work_seconds = 2.0  # one run's time, measured in the first round, which kills no one
    started = time.monotonic()
    try:
        for round_no in range(MAX_ROUNDS):
            if time.monotonic() - started > BUDGET_SECONDS and kills >= 2:
                break
            for t in tables:
                readable[t.name].add(t.grow())
            runs = [pool.pop(0).wait_ready(), pool.pop(0).wait_ready()]
            runs[0].go(args[0])
            starts = [time.monotonic()]
            time.sleep(rng.uniform(0.3, 0.6))  # the first run has listed every table
            if rng.random() < 0.5:  # the second run reads one commit more of every table
                for t in tables:
                    readable[t.name].add(t.grow())
            runs[1].go(args[1])
            starts.append(time.monotonic())
            victim = rng.choice(runs) if round_no % 3 else None
            if victim is not None:
                # odd rounds: at a random moment; even rounds: as soon as the victim has a
                # temporary in the state directory (its pid is in the name): mid-write, unless
                # the rename wins the race with the signal (the count is printed)
                pid = victim.proc.pid
                wait = 2 * work_seconds if round_no % 2 == 0 else rng.uniform(0, work_seconds)
                # from the victim's own start: a run takes about work_seconds from there
                deadline = starts[runs.index(victim)] + wait
                while time.monotonic() < deadline:
                    if round_no % 2 == 0 and any(state.glob(f"*/*/.*.{pid}-*.tmp")):
                        break
                    time.sleep(0.001 if round_no % 2 == 0 else 0.02)
                if victim.kill():
                    kills += 1
                    mid_write += any(state.glob(f"*/*/.*.{pid}-*.tmp"))
                pool.append(spawn())
            for run in runs:
                if run is victim:
                    continue
                result = run.result()
                assert result["code"] == 0, run.stderr.read_text()[-2000:]
                summary = json.loads(result["out"])
                validate(summary, "audit")
                for entry in summary["tables"]:
                    assert entry["status"] == "ok", entry
                    published = entry["state"]["version"]  # by this run, or a newer one kept
                    newest[entry["name"]] = max(newest.get(entry["name"], 0), published)
                    if not entry["state"]["written"]:  # a run at least as new kept its own
                        assert entry["state"]["version"] >= entry["read"]["to_version"], entry
                pool.append(run)
            if round_no == 0:  # how long one run takes: the second, from its start to its end
                work_seconds = max(0.1, time.monotonic() - starts[1])
            ends = check_state(state, tables, readable, ends)
            for name, version in newest.items():  # a slower run never put an older one back
                assert ends[name] >= version, (
                    f"{name}: v{version} was published, v{ends[name]} is kept"
                )
    finally:
        for worker in pool:
            worker.close()
    assert kills >= 2, f"only {kills} run(s) were killed mid-run; the rounds proved little"
    print(f"{round_no + 1} rounds, {kills} killed mid-run, {mid_write} of them mid-write")

    # one more audit alone: it publishes, and a dashboard's glob reads each table's facts once
    code = main(["--quiet", *args[0][:-2]])
    assert code == 0
    facts = pl.read_parquet(state / "commits" / "**" / "*.parquet", hive_partitioning=True)
    for t in tables:
        assert facts.filter(pl.col("table") == t.name)["version"].sort().to_list() == list(
            range(t.latest + 1)
        )


def test_a_run_that_read_an_older_state_keeps_the_newer_one_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run A reads v2; while it analyses, run B reads v3 and publishes it; A must not put v2
    back, and its summary says why its state was not written."""
    table = GrowingTable(tmp_path, "events", seed=3)
    table.grow()
    state = tmp_path / "state"
    config = write_config(tmp_path / "a.toml", [{"name": "events", "uri": str(table.path)}])
    other = write_config(
        tmp_path / "b.toml", [{"name": "events", "uri": str(table.path)}], output="b-out"
    )
    assert main(["--quiet", "audit", str(config), "--state", str(state)]) == 0  # v1 kept
    table.grow()  # v2: what run A reads
    original = audit_run.read_table
    concurrent: list[int] = []

    def read_then_let_another_run_publish(*args: Any) -> Any:
        read = original(*args)
        if not concurrent:  # run A, not run B inside it
            concurrent.append(-1)
            table.grow()  # v3
            concurrent[0] = main(["--quiet", "audit", str(other), "--state", str(state)])
        return read

    monkeypatch.setattr(audit_run, "read_table", read_then_let_another_run_publish)
    code = main(["audit", str(config), "--state", str(state)])
    out = capsys.readouterr().out
    assert concurrent == [0] and code == 0
    summary = json.loads((tmp_path / "audit-out" / "summary.json").read_text())
    validate(summary, "audit")
    (entry,) = summary["tables"]
    assert entry["read"]["to_version"] == 2
    assert entry["state"]["written"] is False and entry["state"]["version"] == 3
    assert "v3" in entry["state"]["reason"] and "v2" in entry["state"]["reason"]
    assert "state of events not written" in out
    kept = read_state(state, "events", str(table.path))
    assert kept is not None and kept.end_version == 3 and kept.runs == 2
    # B's mark is what the next run reads: it continues from v3 and publishes v4
    table.grow()
    assert main(["--quiet", "audit", str(config), "--state", str(state)]) == 0
    summary = json.loads((tmp_path / "audit-out" / "summary.json").read_text())
    assert summary["tables"][0]["read"]["mode"] == "incremental"
    assert summary["tables"][0]["state"] == {"written": True, "version": 4, "reason": None}


def test_temporaries_of_runs_that_died_are_removed_and_never_read(tmp_path: Path) -> None:
    table = GrowingTable(tmp_path, "events", seed=5)
    table.grow()
    state = tmp_path / "state"
    config = write_config(tmp_path / "a.toml", [{"name": "events", "uri": str(table.path)}])
    assert main(["--quiet", "audit", str(config), "--state", str(state)]) == 0
    folder = state / "files" / "table=events"
    (current,) = folder.glob("part-*.parquet")
    dead = folder / f".{current.name}.999999-0123456789ab.tmp"
    live = folder / f".{current.name}.999998-0123456789ab.tmp"
    for litter in (dead, live):
        litter.write_bytes(b"half a parquet file")
    old = time.time() - STALE_TEMPORARY_SECONDS - 60
    os.utime(dead, (old, old))
    # an orphan part a run renamed before it was killed, never named by the _tables JSON
    orphan = folder / "part-00000000000000000099-999999-0123456789ab.parquet"
    orphan.write_bytes(b"not the state")
    assert read_state(state, "events", str(table.path)) is not None  # litter is never read
    table.grow()
    assert main(["--quiet", "audit", str(config), "--state", str(state)]) == 0
    assert not dead.exists() and live.exists() and not orphan.exists()
    kept = read_state(state, "events", str(table.path))
    assert kept is not None and kept.end_version == 2
    (part,) = folder.glob("part-*.parquet")
    assert part.name.startswith(f"part-{2:020d}-")
