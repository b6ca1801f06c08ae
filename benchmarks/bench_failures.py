"""Harvesting failures from zstd event logs against its floor, measured in the same run.

The floor: one process decompresses every event log under DIR (zstd, streamed) and scans the
bytes for one substring (``SQLExecutionEnd``) — the least any reader must do. The harvest:
``deltaforensics.sources.read_failures(DIR)`` then the pure matching (no tables: every
conflict unmatched), in a process of its own so its peak memory is its own. Each side runs
``--rounds`` times, alternating; the best time of each is compared.

    python benchmarks/gen_event_logs.py --out /tmp/evlogs --mb 50
    python benchmarks/bench_failures.py /tmp/evlogs
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

FLOOR = """
import sys, time, resource, json
from pathlib import Path
import zstandard
t = time.perf_counter(); hits = raw = 0
for p in sorted(Path(sys.argv[1]).rglob("*.zstd")):
    with p.open("rb") as f:
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        while piece := reader.read(1 << 20):
            raw += len(piece)
            hits += piece.count(b"SQLExecutionEnd")
print(json.dumps({"seconds": time.perf_counter() - t, "hits": hits, "bytes": raw,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
HARVEST = """
import sys, time, resource, json
from deltaforensics.failures import harvest_conflicts
from deltaforensics.sources import read_failures
t = time.perf_counter()
reading = read_failures(sys.argv[1])
found = harvest_conflicts(reading.failures, [])
print(json.dumps({"seconds": time.perf_counter() - t, "failures": len(reading.failures),
                  "conflicts": len(found.unmatched), "other": found.other_failures,
                  "files": reading.files_read, "diagnostics": len(reading.diagnostics),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _run(code: str, folder: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    compressed = sum(p.stat().st_size for p in args.folder.rglob("*.zstd"))
    floors, harvests = [], []
    started = time.time()
    for _ in range(args.rounds):
        floors.append(_run(FLOOR, args.folder))
        harvests.append(_run(HARVEST, args.folder))
    floor = min(floors, key=lambda r: r["seconds"])
    best = min(harvests, key=lambda r: r["seconds"])
    peak = max(r["peak_mb"] for r in harvests)
    print(f"{compressed / 1e6:.1f} MB zstd, {floor['bytes'] / 1e6:.0f} MB decoded")
    print(
        f"floor   {floor['seconds']:.2f} s  (decompress + substring scan; peak {floor['peak_mb']:.0f} MB)"
    )
    print(
        f"harvest {best['seconds']:.2f} s  ({best['failures']:.0f} failures, "
        f"{best['conflicts']:.0f} conflicts, {best['other']:.0f} other; peak {peak:.0f} MB)"
    )
    print(
        f"ratio   {best['seconds'] / floor['seconds']:.2f}x the floor  ({time.time() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
