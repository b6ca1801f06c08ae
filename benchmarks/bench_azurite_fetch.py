"""Concurrent vs sequential fetch of a 5,000-commit log from Azurite.

    python benchmarks/bench_azurite_fetch.py [--commits 5000] [--max-concurrency 32]
                                             [--latency-ms 10] [--sequential-sample 0]

Starts a private in-memory Azurite (see benchmarks/_azurite.py; install it with
.ci/install_azurite.sh), uploads a synthetic delta-rs-style log, then times
``FsspecLogStore.read_many`` (bounded concurrent fetch) against one ``read`` per file, and
adlfs' own ``cat`` of a file list on a sample. It does so twice: straight to Azurite over
loopback, and through a local proxy that delays every packet by ``--latency-ms`` each way.

Over loopback a request costs CPU only (Azurite is one Node process, and Python spends a few ms
in the SDK per request), so concurrency can at best overlap the two processes. What concurrency
buys against real ADLS is hiding the network round trip, which the proxy stands in for. Prints
figures only; no assertions on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from _azurite import KEY, ensure_azurite, start_azurite
from adlfs import AzureBlobFileSystem

from deltaforensics.log.fsspec_store import FsspecLogStore

CONTAINER = "bench"
PREFIX = "tables/synthetic"


def synthetic_log(commits: int, seed: int = 42) -> dict[str, bytes]:
    """Small delta-rs-style commits: v0 protocol + metaData, then appends of 5 files each."""
    rng = random.Random(seed)
    schema = {
        "type": "struct",
        "fields": [
            {"name": "date", "type": "string", "nullable": True, "metadata": {}},
            {"name": "user_id", "type": "long", "nullable": True, "metadata": {}},
            {"name": "amount", "type": "double", "nullable": True, "metadata": {}},
        ],
    }
    files: dict[str, bytes] = {}
    for version in range(commits):
        ts = 1_700_000_000_000 + version * 1000
        actions: list[dict[str, object]] = []
        if version == 0:
            actions.append({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}})
            actions.append(
                {
                    "metaData": {
                        "id": "5f6c0d4e-0000-4000-8000-000000000000",
                        "format": {"provider": "parquet", "options": {}},
                        "schemaString": json.dumps(schema),
                        "partitionColumns": ["date"],
                        "configuration": {},
                        "createdTime": ts,
                    }
                }
            )
        for _ in range(5):
            date = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            lo = rng.randint(0, 10**6)
            stats = {
                "numRecords": 1000,
                "minValues": {"user_id": lo, "amount": 0.5},
                "maxValues": {"user_id": lo + 999, "amount": 999.5},
                "nullCount": {"user_id": 0, "amount": 0},
            }
            actions.append(
                {
                    "add": {
                        "path": f"date={date}/part-{version:05d}-{rng.getrandbits(64):016x}-c000.snappy.parquet",
                        "partitionValues": {"date": date},
                        "size": rng.randint(10_000, 90_000),
                        "modificationTime": ts,
                        "dataChange": True,
                        "stats": json.dumps(stats),
                    }
                }
            )
        actions.append(
            {
                "commitInfo": {
                    "timestamp": ts,
                    "operation": "WRITE",
                    "operationParameters": {"mode": "Append"},
                    "clientVersion": "delta-rs.0.30.0",
                    "readVersion": version - 1 if version else None,
                }
            }
        )
        files[f"{version:020d}.json"] = "\n".join(json.dumps(a) for a in actions).encode() + b"\n"
    return files


class LatencyProxy:
    """A loopback TCP proxy that holds every chunk ``delay`` seconds before passing it on."""

    def __init__(self, upstream_port: int, delay: float) -> None:
        self.upstream_port = upstream_port
        self.delay = delay
        self.loop = asyncio.new_event_loop()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(
            lambda _loop, _context: None
        )  # cut connections are expected
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._client, "127.0.0.1", self.port)
        )
        ready.set()
        self.loop.run_forever()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                await asyncio.sleep(self.delay)
                writer.write(chunk)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _shutdown(self) -> None:
        self.server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def timed(label: str, fn: Callable[[], object], count: int, scale: float = 1.0) -> float:
    """Run ``fn`` once; print and return its time, multiplied by ``scale`` for a sample."""
    start = time.perf_counter()
    fn()
    seconds = (time.perf_counter() - start) * scale
    note = f"  (sample of {round(count / scale)}, scaled)" if scale != 1.0 else ""
    print(f"  {label:<42} {seconds:8.2f} s  {count / seconds:7.0f} files/s{note}")
    return seconds


def measure(endpoint: str, log: dict[str, bytes], args: argparse.Namespace) -> None:
    options = {
        "account_name": "devstoreaccount1",
        "account_key": KEY,
        "allow_http": "true",
        "endpoint": endpoint,
        "max_concurrency": str(args.max_concurrency),
    }
    store = FsspecLogStore.from_uri(f"az://{CONTAINER}/{PREFIX}", options)
    names: list[str] = []
    timed("list_log", lambda: names.extend(f.name for f in store.list_log()), len(log))
    assert sorted(names) == sorted(log), "listing differs from what was uploaded"

    got: dict[str, bytes] = {}
    concurrent = timed(
        f"read_many (max_concurrency={args.max_concurrency})",
        lambda: got.update(store.read_many(names)),
        len(names),
    )
    assert got == log, "read_many returned different bytes"
    sample = names[: args.sequential_sample or len(names)]
    sequential = timed(
        "read, one file at a time",
        lambda: [store.read(n) for n in sample],
        len(names),
        scale=len(names) / len(sample),
    )
    if args.adlfs_sample:
        plain = AzureBlobFileSystem(
            connection_string=(
                f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={KEY};"
                f"BlobEndpoint={endpoint};"
            ),
            skip_instance_cache=True,
        )
        paths = [f"{CONTAINER}/{PREFIX}/_delta_log/{n}" for n in names[: args.adlfs_sample]]
        timed(
            "adlfs stock cat(list)",
            lambda: plain.cat(paths),
            len(names),
            scale=len(names) / len(paths),
        )
    print(f"  read_many speed-up over sequential reads: {sequential / concurrent:.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--max-concurrency", type=int, default=32)
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=10.0,
        help="one-way delay of the second round's proxy (0 skips that round)",
    )
    parser.add_argument(
        "--sequential-sample",
        type=int,
        default=0,
        help="time sequential reads on this many files and scale (0 = all)",
    )
    parser.add_argument(
        "--adlfs-sample",
        type=int,
        default=300,
        help="files for the adlfs stock cat() comparison (0 skips it)",
    )
    args = parser.parse_args()

    exe, output = ensure_azurite()
    if exe is None:
        print(f"Azurite is not installed and installing it failed:\n{output}", file=sys.stderr)
        return 2
    log = synthetic_log(args.commits)
    size = sum(len(b) for b in log.values())
    print(f"synthetic log: {len(log)} commits, {size / 1e6:.1f} MB ({size // len(log)} bytes each)")

    with tempfile.TemporaryDirectory(prefix="azurite-bench-") as work:
        server = start_azurite(exe, Path(work))
        try:
            plain = AzureBlobFileSystem(
                connection_string=server.connection_string, skip_instance_cache=True
            )
            plain.mkdir(CONTAINER)
            root = f"{CONTAINER}/{PREFIX}/_delta_log"
            print("setup")
            timed(
                "upload (adlfs pipe)",
                lambda: plain.pipe({f"{root}/{n}": b for n, b in log.items()}),
                len(log),
            )
            print("loopback, straight to Azurite")
            measure(server.blob_endpoint, log, args)
            if args.latency_ms:
                proxy = LatencyProxy(server.port, args.latency_ms / 1000)
                try:
                    print(f"through a proxy adding {args.latency_ms:g} ms each way")
                    measure(
                        server.blob_endpoint.replace(str(server.port), str(proxy.port)), log, args
                    )
                finally:
                    proxy.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
