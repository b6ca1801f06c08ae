"""How ``--attempt`` scales with the size of its WHERE: an OR of N equalities.

    python benchmarks/bench_attempt_or.py [--terms 10 100 1000 5000] [--repeat 1]

For each N, ``deltaforensics explain sample_logs/merge_without_partition_literal --attempt
"DELETE FROM t WHERE c = v1 OR … OR c = vN" --read-version 6 --format json`` runs end to end in
a fresh process (interpreter start-up and imports included), once with ``c`` a data column
(``id``: min/max statistics decide which files the DELETE rewrites) and once with ``c`` the
partition column (``date``: partition values decide, and the attempt's read predicate is checked
against the winners' files). Prints wall and CPU seconds of the child (best of ``--repeat``;
CPU is all threads, less sensitive to other load than wall) and the verdict, which must not
depend on N beyond the files the predicate names. Issue #19 measured 33 s for 5,000 terms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "sample_logs" / "merge_without_partition_literal"


def statement(column: str, terms: int) -> str:
    if column == "id":
        values = [str(i) for i in range(1, terms + 1)]
    else:
        day = dt.date(2024, 1, 1)
        values = [f"'{day + dt.timedelta(days=i)}'" for i in range(terms)]
    return "DELETE FROM t WHERE " + " OR ".join(f"{column} = {v}" for v in values)


def run(column: str, terms: int) -> tuple[float, str]:
    """(wall s, verdict) of one explain in a fresh process."""
    cmd = [
        sys.executable,
        "-m",
        "deltaforensics",
        "--quiet",
        "explain",
        str(TABLE),
        "--attempt",
        statement(column, terms),
        "--read-version",
        "6",
        "--format",
        "json",
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"exit {proc.returncode}: {err.decode()[-2000:]}")
    a = json.loads(out)["attempts"][0]
    return wall, (
        f"{a['outcome']} v{a['winner_version']}, read {a['read_predicate'][:40]}, "
        f"files removed {a['files_removed']} added {a['files_added']}"
    )


def measure(column: str, terms: int, repeat: int) -> tuple[float, float, str]:
    best_wall = best_cpu = float("inf")
    verdict = ""
    for _ in range(repeat):
        before = os.times()
        wall, verdict = run(column, terms)
        after = os.times()  # the child is reaped: its usage is in the children's totals
        cpu = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--terms", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"{'column':<8}{'terms':>7}{'wall s':>9}{'CPU s':>8}  verdict")
    for column in ("id", "date"):
        for terms in args.terms:
            wall, cpu, verdict = measure(column, terms, args.repeat)
            print(f"{column:<8}{terms:>7}{wall:>9.2f}{cpu:>8.2f}  {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
