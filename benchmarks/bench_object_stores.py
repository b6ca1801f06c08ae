"""Listing time and read throughput of a log on each object-store EMULATOR beside local disk.

    python benchmarks/bench_object_stores.py [--commits 2000] [--checkpoint-mb 16]
                                             [--stores local,s3,gcs,adls] [--repeat 3]

Starts private in-memory emulators on loopback (moto's S3 server and gcp-storage-emulator,
benchmarks/_cloud_emulators.py; Azurite, benchmarks/_azurite.py, when it is installed), uploads
one synthetic log to each (``--commits`` small commit files and one ``--checkpoint-mb`` parquet-
sized file), and times through ``FsspecLogStore``, as the tool reads:

- ``list``: ``list_log()`` of ``_delta_log`` (one prefix listing, pages of 1,000 names);
- ``commits``: ``read_many`` of every commit file (concurrent whole-file reads);
- ``ranged``: 64 KiB ranges of the large file, fetched concurrently with fsspec's
  ``cat_ranges`` (what a parquet reader asks of a remote checkpoint), as MB/s.

Reported, no target: emulators are single processes on this machine, not clouds (the GCS one
serves one connection at a time), so the figures compare layers, not services. The median of
``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _azurite import ensure_azurite, start_azurite
from _cloud_emulators import S3_KEY_ID, S3_REGION, S3_SECRET, start_emulator

from deltaforensics.log.fsspec_store import FsspecLogStore

BUCKET = "bench"
PREFIX = "tables/synthetic"
RANGE = 64 * 1024


def _synthetic_log(root: Path, commits: int, checkpoint_mb: int) -> Path:
    log = root / "_delta_log"
    log.mkdir(parents=True)
    line = b'{"add":{"path":"part-%05d.parquet","size":1024,"dataChange":true}}\n'
    for v in range(commits):
        (log / f"{v:020d}.json").write_bytes(b'{"commitInfo":{"operation":"WRITE"}}\n' + line % v)
    (log / f"{commits - 1:020d}.checkpoint.parquet").write_bytes(
        os.urandom(checkpoint_mb * 1024 * 1024)
    )
    return root


def _median(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _measure(store: FsspecLogStore, fs: Any, path: str, repeat: int) -> dict[str, float]:
    files = store.list_log()
    commits = [f.name for f in files if f.name.endswith(".json")]
    big = next(f for f in files if f.name.endswith(".parquet"))
    size = big.size or 0
    starts = list(range(0, size - RANGE, RANGE))
    full = f"{path}/_delta_log/{big.name}"

    def ranged() -> None:
        fs.cat_ranges([full] * len(starts), starts, [s + RANGE for s in starts])

    return {
        "list_s": _median(store.list_log, repeat),
        "commits_s": _median(lambda: store.read_many(commits), repeat),
        "ranged_mb_s": (len(starts) * RANGE / 1e6) / _median(ranged, repeat),
    }


def _upload(fs: Any, local: Path, root: str) -> None:
    fs.pipe(
        {
            f"{root}/{p.relative_to(local).as_posix()}": p.read_bytes()
            for p in sorted(local.rglob("*"))
            if p.is_file()
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--checkpoint-mb", type=int, default=16)
    parser.add_argument("--stores", default="local,s3,gcs,adls")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    wanted = args.stores.split(",")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        local = _synthetic_log(work / "table", args.commits, args.checkpoint_mb)
        if "local" in wanted:
            store = FsspecLogStore.from_uri(str(local))
            results["local disk"] = _measure(store, store.fs, str(local), args.repeat)
        stops: list[Callable[[], None]] = []
        try:
            if "s3" in wanted:
                import s3fs

                server = start_emulator("s3", work / "s3")
                stops.append(server.stop)
                plain = s3fs.S3FileSystem(
                    key=S3_KEY_ID, secret=S3_SECRET, endpoint_url=server.endpoint
                )
                plain.call_s3("create_bucket", Bucket=BUCKET)
                _upload(plain, local, f"{BUCKET}/{PREFIX}")
                options = {
                    "AWS_ACCESS_KEY_ID": S3_KEY_ID,
                    "AWS_SECRET_ACCESS_KEY": S3_SECRET,
                    "AWS_REGION": S3_REGION,
                    "AWS_ENDPOINT_URL": server.endpoint,
                    "AWS_ALLOW_HTTP": "true",
                }
                store = FsspecLogStore.from_uri(f"s3://{BUCKET}/{PREFIX}", options)
                results["S3 (moto server)"] = _measure(
                    store, store.fs, f"{BUCKET}/{PREFIX}", args.repeat
                )
            if "gcs" in wanted:
                from gcsfs.core import GCSFileSystem

                server = start_emulator("gcs", work / "gcs")
                stops.append(server.stop)
                plain = GCSFileSystem(endpoint_url=server.endpoint, token="anon", project="b")
                plain.mkdir(BUCKET)
                _upload(plain, local, f"{BUCKET}/{PREFIX}")
                store = FsspecLogStore.from_uri(
                    f"gs://{BUCKET}/{PREFIX}", {"google_endpoint": server.endpoint}
                )
                results["GCS (gcp-storage-emulator)"] = _measure(
                    store, store.fs, f"{BUCKET}/{PREFIX}", args.repeat
                )
            if "adls" in wanted:
                exe, _ = ensure_azurite()
                if exe is None:
                    print("Azurite is not installed: ADLS skipped", file=sys.stderr)
                else:
                    from adlfs import AzureBlobFileSystem

                    azurite = start_azurite(exe, work / "azurite")
                    stops.append(azurite.stop)
                    plain = AzureBlobFileSystem(connection_string=azurite.connection_string)
                    plain.mkdir(BUCKET)
                    _upload(plain, local, f"{BUCKET}/{PREFIX}")
                    options = {"use_emulator": "true", "endpoint": azurite.blob_endpoint}
                    store = FsspecLogStore.from_uri(f"az://{BUCKET}/{PREFIX}", options)
                    results["ADLS (Azurite)"] = _measure(
                        store, store.fs, f"{BUCKET}/{PREFIX}", args.repeat
                    )
        finally:
            for stop in stops:
                stop()
    print(f"{args.commits} commits + one {args.checkpoint_mb} MB file, median of {args.repeat}")
    print(f"{'store':28} {'list (s)':>9} {'commits (s)':>12} {'ranged MB/s':>12}")
    for name, r in results.items():
        print(f"{name:28} {r['list_s']:9.3f} {r['commits_s']:12.2f} {r['ranged_mb_s']:12.1f}")


if __name__ == "__main__":
    main()
