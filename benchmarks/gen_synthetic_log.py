"""Write a synthetic, realistic Delta ``_delta_log`` for throughput benchmarks.

The mix follows docs/field-notes §6.1 (delta-rs-style commits), with Spark-style commitInfo for a
share of the writers so that ``readVersion``/``isolationLevel``/``isBlindAppend``/``txnId`` are
present and ``--race-fraction`` can make commits that read an older snapshot:

* v0: commitInfo (CREATE/WRITE), protocol, metaData partitioned by ``date``, 5 adds.
* ~80% WRITE Append, 5 adds each with stats for 8 columns, partitionValues over 336 dates.
* ~10% DELETE: readVersion, 1-3 removes, 1-3 adds (rewrites in the removed files' partitions).
* 5% MERGE: 2 removes, 5 adds.   4% UPDATE: 1-2 removes, as many adds.
* 1% OPTIMIZE: up to 10 ``dataChange=false`` removes from one partition and 1 add.
* ``--spark-fraction`` of the commits are written in Spark's style (readVersion on every commit,
  ``isolationLevel``, ``isBlindAppend``, ``txnId``, string metrics, a few carry a ``txn``).
* ``--race-fraction`` of the commits (v >= 2) get ``readVersion`` in ``v-6 .. v-2``.
* ``--checkpoint-every K``: a classic single-file parquet checkpoint at every ``v % K == 0``
  (Spark's convention) with add/remove/metaData/protocol/txn structs, partitionValues as
  ``map<string,string>``, unexpired tombstones, and ``_last_checkpoint``.

Everything random comes from one ``numpy`` generator seeded by ``--seed``; the same arguments
give byte-identical logs. A ``synthetic_manifest.json`` beside ``_delta_log`` records what was
written (commits, actions, live files at the end, bytes) so benchmarks can check results.

    python benchmarks/gen_synthetic_log.py --commits 20000 --out /tmp/synth
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

N_DATES = 336
BASE_TS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
COMMIT_GAP_MS = 60_000
TOMBSTONE_RETENTION_MS = 7 * 86_400_000
OPS = ("WRITE", "DELETE", "MERGE", "UPDATE", "OPTIMIZE")
OP_P = (0.80, 0.10, 0.05, 0.04, 0.01)
COUNTRIES = (
    "AR",
    "AU",
    "BR",
    "CA",
    "CN",
    "DE",
    "ES",
    "FR",
    "GB",
    "IN",
    "IT",
    "JP",
    "MX",
    "NL",
    "PL",
    "SE",
    "US",
    "ZA",
)
CITIES = (
    "Amsterdam",
    "Berlin",
    "Cairo",
    "Delhi",
    "Lagos",
    "Lima",
    "London",
    "Madrid",
    "Milan",
    "Oslo",
    "Paris",
    "Rome",
    "Seoul",
    "Sydney",
    "Tokyo",
    "Warsaw",
    "Zurich",
)
DELTA_RS_ENGINE = '"engineInfo":"delta-rs:py-1.6.6","clientVersion":"delta-rs.py-1.6.6"'
SPARK_ENGINE = '"engineInfo":"Apache-Spark/3.5.1 Delta-Lake/3.2.0"'
SPARK_USERS = (
    ("4811269284101734", "etl@example.com"),
    ("7212906611920051", "analyst@example.com"),
    ("3309917554417720", "svc-ingest"),
)

SCHEMA_STRING = json.dumps(
    {
        "type": "struct",
        "fields": [
            {"name": n, "type": t, "nullable": True, "metadata": {}}
            for n, t in (
                ("id", "long"),
                ("user_id", "integer"),
                ("country", "string"),
                ("city", "string"),
                ("value", "double"),
                ("amount", "double"),
                ("quantity", "integer"),
                ("event_ts", "timestamp"),
                ("date", "string"),
            )
        ],
    },
    separators=(",", ":"),
)


def _dates() -> list[str]:
    days = np.datetime64("2024-01-01") + np.arange(N_DATES)
    return [str(d) for d in days]


def _uuids(rng: np.random.Generator, n: int) -> list[str]:
    h = rng.bytes(16 * n).hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-4{h[i + 13 : i + 16]}-a{h[i + 17 : i + 20]}-{h[i + 20 : i + 32]}"
        for i in range(0, 32 * n, 32)
    ]


def _iso(ms: np.ndarray) -> list[str]:
    """Epoch milliseconds -> ``2024-03-05T10:11:12.345Z`` (vectorised via datetime64)."""
    return [s + "Z" for s in np.datetime_as_string(ms.astype("datetime64[ms]"), unit="ms").tolist()]


@dataclass
class FilePool:
    """Every data file ever added; ``live`` is a swap-remove list with positions per file id."""

    paths: list[str] = field(default_factory=list)
    stats: list[str] = field(default_factory=list)  # unescaped stats JSON
    date_idx: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    mtime: list[int] = field(default_factory=list)
    live: list[int] = field(default_factory=list)
    pos: dict[int, int] = field(default_factory=dict)
    by_date: list[set[int]] = field(default_factory=lambda: [set() for _ in range(N_DATES)])
    removed: list[tuple[int, int, bool]] = field(default_factory=list)  # (file, ts, dataChange)

    def add_live(self, fid: int) -> None:
        self.pos[fid] = len(self.live)
        self.live.append(fid)
        self.by_date[self.date_idx[fid]].add(fid)

    def kill(self, fid: int, ts: int, data_change: bool) -> None:
        i = self.pos.pop(fid)
        last = self.live.pop()
        if last != fid:
            self.live[i] = last
            self.pos[last] = i
        self.by_date[self.date_idx[fid]].discard(fid)
        self.removed.append((fid, ts, data_change))


class StatsFactory:
    """Pre-draws every random number for ``n`` adds, then formats stats strings in one pass."""

    def __init__(self, rng: np.random.Generator, n: int, dates: list[str]) -> None:
        nrec = rng.integers(1_000, 250_000, n)
        id_lo = rng.integers(0, 10_000_000_000, n)
        uid_lo = rng.integers(0, 1_000_000, n)
        c_lo = rng.integers(0, len(COUNTRIES) // 2, n)
        c_hi = c_lo + rng.integers(1, len(COUNTRIES) // 2, n)
        ci_lo = rng.integers(0, len(CITIES) // 2, n)
        ci_hi = ci_lo + rng.integers(1, len(CITIES) // 2, n)
        v_lo = np.round(rng.normal(0, 50, n), 4)
        a_lo = np.round(rng.uniform(0, 10, n), 2)
        q_hi = rng.integers(1, 500, n)
        d_idx = rng.integers(0, N_DATES, n)
        day_ms = (np.datetime64("2024-01-01", "ms") - np.datetime64("1970-01-01", "ms")).astype(
            np.int64
        )
        ts_lo = day_ms + d_idx * 86_400_000 + rng.integers(0, 3_600_000, n)
        ts_hi = ts_lo + rng.integers(3_600_000, 80_000_000, n)
        nulls = rng.poisson(0.3, (n, 3)) * (rng.random((n, 3)) < 0.2)
        self.size = (nrec * rng.uniform(18, 26, n)).astype(np.int64) + 2_048
        self.date_idx = d_idx
        iso_lo, iso_hi = _iso(ts_lo), _iso(ts_hi)
        rows = zip(
            nrec.tolist(),
            id_lo.tolist(),
            (id_lo + nrec * 3).tolist(),
            uid_lo.tolist(),
            (uid_lo + rng.integers(10, 100_000, n)).tolist(),
            [COUNTRIES[i] for i in c_lo.tolist()],
            [COUNTRIES[i] for i in c_hi.tolist()],
            [CITIES[i] for i in ci_lo.tolist()],
            [CITIES[i] for i in ci_hi.tolist()],
            v_lo.tolist(),
            np.round(v_lo + rng.uniform(1, 400, n), 4).tolist(),
            a_lo.tolist(),
            np.round(a_lo + rng.uniform(5, 9_000, n), 2).tolist(),
            q_hi.tolist(),
            iso_lo,
            iso_hi,
            nulls[:, 0].tolist(),
            nulls[:, 1].tolist(),
            nulls[:, 2].tolist(),
            strict=True,
        )
        fmt = (
            '{"numRecords":%d,"minValues":{"id":%d,"user_id":%d,"country":"%s","city":"%s",'
            '"value":%r,"amount":%r,"quantity":0,"event_ts":"%s"},"maxValues":{"id":%d,'
            '"user_id":%d,"country":"%s","city":"%s","value":%r,"amount":%r,"quantity":%d,'
            '"event_ts":"%s"},"nullCount":{"id":0,"user_id":0,"country":%d,"city":%d,"value":0,'
            '"amount":%d,"quantity":0,"event_ts":0}}'
        )
        self.stats = [
            fmt % (r, il, ul, cl, cil, vl, al, tl, ih, uh, ch, cih, vh, ah, q, th, n0, n1, n2)
            for (r, il, ih, ul, uh, cl, ch, cil, cih, vl, vh, al, ah, q, tl, th, n0, n1, n2) in rows
        ]


def _add_line(pool: FilePool, fid: int, dates: list[str], data_change: bool, spark: bool) -> str:
    stats = pool.stats[fid].replace('"', '\\"')
    head = (
        f'{{"add":{{"path":"{pool.paths[fid]}","partitionValues":{{"date":"{dates[pool.date_idx[fid]]}"}},'
        f'"size":{pool.size[fid]},"modificationTime":{pool.mtime[fid]},'
        f'"dataChange":{"true" if data_change else "false"},"stats":"{stats}"'
    )
    if spark:
        return head + "}}"
    return (
        head
        + ',"tags":null,"baseRowId":null,"defaultRowCommitVersion":null,"clusteringProvider":null}}'
    )


def _remove_line(pool: FilePool, fid: int, dates: list[str], ts: int, data_change: bool) -> str:
    return (
        f'{{"remove":{{"path":"{pool.paths[fid]}","dataChange":{"true" if data_change else "false"},'
        f'"deletionTimestamp":{ts},"extendedFileMetadata":true,'
        f'"partitionValues":{{"date":"{dates[pool.date_idx[fid]]}"}},"size":{pool.size[fid]}}}}}'
    )


def _commit_info(
    op: str,
    version: int,
    ts: int,
    read_version: int | None,
    spark: bool,
    txn_id: str,
    n_add: int,
    n_rm: int,
    rows: int,
    bytes_added: int,
    date: str,
) -> str:
    rv = "" if read_version is None else f',"readVersion":{read_version}'
    if op == "WRITE":
        params = '{"mode":"Append","partitionBy":"[\\"date\\"]"}'
    elif op == "DELETE":
        params = f'{{"predicate":"date = \'{date}\' AND user_id > {rows % 997}"}}'
    elif op == "UPDATE":
        params = f"{{\"predicate\":\"date = '{date}' AND country = 'US'\"}}"
    elif op == "MERGE":
        params = (
            '{"mergePredicate":"t.id = s.id AND t.date = s.date","matchedPredicates":"[{\\"actionType\\":\\"update\\"}]",'
            '"notMatchedPredicates":"[{\\"actionType\\":\\"insert\\"}]","notMatchedBySourcePredicates":"[]"}'
        )
    else:
        params = (
            '{"predicate":"[]","zOrderBy":"[]"}'
            if spark
            else '{"predicate":"[]","targetSize":"104857600"}'
        )
    if spark:
        user_id, user_name = SPARK_USERS[version % len(SPARK_USERS)]
        blind = "true" if op == "WRITE" else "false"
        iso = (
            "SnapshotIsolation"
            if op == "OPTIMIZE"
            else ("WriteSerializable" if op != "MERGE" else "Serializable")
        )
        metrics = (
            f'{{"numFiles":"{n_add}","numOutputRows":"{rows}","numOutputBytes":"{bytes_added}"}}'
            if op == "WRITE"
            else f'{{"numAddedFiles":"{n_add}","numRemovedFiles":"{n_rm}","numCopiedRows":"{rows}",'
            f'"executionTimeMs":"{rows % 5000 + 100}"}}'
        )
        return (
            f'{{"commitInfo":{{"timestamp":{ts},"userId":"{user_id}","userName":"{user_name}",'
            f'"operation":"{op}","operationParameters":{params},'
            f'"job":{{"jobId":"{version % 7 + 1}","jobName":"nightly-{version % 7}"}},'
            f'"clusterId":"0101-120000-abcd{version % 7}"{rv},"isolationLevel":"{iso}",'
            f'"isBlindAppend":{blind},"operationMetrics":{metrics},{SPARK_ENGINE},"txnId":"{txn_id}"}}}}'
        )
    if op == "OPTIMIZE":
        metrics = (
            f'{{"numFilesAdded":{n_add},"numFilesRemoved":{n_rm},"partitionsOptimized":1,'
            f'"numBatches":1,"totalConsideredFiles":{n_rm},"totalFilesSkipped":0,'
            '"preserveInsertionOrder":true,"plannerStrategy":"preserveLocality"}'
        )
    else:
        metrics = (
            f'{{"num_added_files":{n_add},"num_removed_files":{n_rm},"num_partitions":0,'
            f'"num_added_rows":{rows},"execution_time_ms":{rows % 97},"num_retries":0}}'
        )
    return (
        f'{{"commitInfo":{{"timestamp":{ts},"operation":"{op}","operationParameters":{params}'
        f'{rv},{DELTA_RS_ENGINE},"operationMetrics":{metrics}}}}}'
    )


def generate(
    commits: int,
    out: Path,
    *,
    seed: int = 42,
    checkpoint_every: int | None = None,
    race_fraction: float = 0.0,
    spark_fraction: float = 0.25,
    quiet: bool = False,
) -> dict[str, Any]:
    """Write ``commits`` commit files (versions 0..commits-1) under ``out/_delta_log``."""
    if commits < 1:
        raise ValueError("--commits must be at least 1")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    log = out / "_delta_log"
    log.mkdir(parents=True, exist_ok=False)
    log_dir = f"{log}{os.sep}"
    dates = _dates()

    ops = rng.choice(len(OPS), size=commits, p=OP_P)
    ops[0] = 0
    n_adds = np.where(ops == 0, 5, 0)
    n_adds = np.where(ops == 1, rng.integers(1, 4, commits), n_adds)
    n_adds = np.where(ops == 2, 5, n_adds)
    upd = rng.integers(1, 3, commits)
    n_adds = np.where(ops == 3, upd, n_adds)
    n_adds = np.where(ops == 4, 1, n_adds)
    n_rms = np.where(ops == 1, rng.integers(1, 4, commits), 0)
    n_rms = np.where(ops == 2, 2, n_rms)
    n_rms = np.where(ops == 3, upd, n_rms)
    n_rms = np.where(ops == 4, 10, n_rms)
    spark = rng.random(commits) < spark_fraction
    spark[0] = False
    race = (rng.random(commits) < race_fraction) & (np.arange(commits) >= 2)
    lag = rng.integers(2, 7, commits)
    ts = (
        BASE_TS
        + np.arange(commits, dtype=np.int64) * COMMIT_GAP_MS
        + rng.integers(0, 30_000, commits)
    )
    txn_mark = spark & (ops == 0) & (rng.random(commits) < 0.05)
    pick = rng.random(int(n_rms.sum()) + 1)
    rows_per_commit = rng.integers(10, 500_000, commits)

    total_adds = int(n_adds.sum())
    factory = StatsFactory(rng, total_adds, dates)
    uuids = _uuids(rng, total_adds + commits)

    pool = FilePool()
    pool.stats = factory.stats
    pool.size = factory.size.tolist()
    pool.date_idx = factory.date_idx.tolist()
    pool.mtime = [0] * total_adds
    pool.paths = [""] * total_adds
    txns: dict[str, tuple[int, int]] = {}

    n_actions = 0
    n_add_actions = 0
    n_rm_actions = 0
    n_bytes = 0
    next_add = 0
    pick_i = 0
    checkpoints: list[int] = []
    last_checkpoint: dict[str, int] | None = None
    race_versions: list[int] = []
    for v in range(commits):
        op_i = int(ops[v])
        op = OPS[op_i]
        t = int(ts[v])
        is_spark = bool(spark[v])
        if v == 0:
            read_version = None
        elif race[v]:
            read_version = max(0, v - int(lag[v]))
            race_versions.append(v)
            if op == "WRITE" and not is_spark:
                is_spark = True  # delta-rs appends carry no readVersion; Spark's do
        elif is_spark or op != "WRITE":
            read_version = v - 1
        else:
            read_version = None
        # --- removes: chosen from the live set ---
        removed: list[int] = []
        want_rm = int(n_rms[v])
        if want_rm and pool.live:
            if op == "OPTIMIZE":
                seed_fid = pool.live[int(pick[pick_i] * len(pool.live))]
                pick_i += 1
                same = sorted(pool.by_date[pool.date_idx[seed_fid]])
                removed = same[:want_rm]
            else:
                for _ in range(want_rm):
                    if not pool.live:
                        break
                    fid = pool.live[int(pick[pick_i] * len(pool.live))]
                    pick_i += 1
                    if fid not in removed:
                        removed.append(fid)
        data_change = op != "OPTIMIZE"
        # --- adds: new files, in the removed files' partitions for rewrites ---
        k = int(n_adds[v])
        added = list(range(next_add, next_add + k))
        next_add += k
        for j, fid in enumerate(added):
            if removed:
                pool.date_idx[fid] = pool.date_idx[removed[j % len(removed)]]
            d = dates[pool.date_idx[fid]]
            u = uuids[fid]
            pool.paths[fid] = (
                f"date={d}/part-00000-{u}.c000.snappy.parquet"
                if is_spark
                else f"date={d}/part-{j:05d}-{u}-c000.snappy.parquet"
            )
            pool.mtime[fid] = t - 5 - j
        for fid in removed:
            pool.kill(fid, t - 3, data_change)
        for fid in added:
            pool.add_live(fid)
        bytes_added = sum(pool.size[f] for f in added)
        date = dates[pool.date_idx[added[0]]] if added else dates[v % N_DATES]
        lines = [
            _commit_info(
                "WRITE" if v == 0 else op,
                v,
                t,
                read_version,
                is_spark,
                uuids[total_adds + v],
                len(added),
                len(removed),
                int(rows_per_commit[v]),
                bytes_added,
                date,
            )
        ]
        if v == 0:
            lines[0] = lines[0].replace('"mode":"Append"', '"mode":"ErrorIfExists"')
            lines.append('{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}')
            lines.append(
                '{"metaData":{"id":"5f9b3c1e-2d4a-4b6e-9c8d-7a1f0e2b3c4d","name":null,"description":null,'
                '"format":{"provider":"parquet","options":{}},"schemaString":'
                + json.dumps(SCHEMA_STRING)
                + f',"partitionColumns":["date"],"createdTime":{t},"configuration":{{}}}}}}'
            )
        lines.extend(_remove_line(pool, f, dates, t - 3, data_change) for f in removed)
        lines.extend(_add_line(pool, f, dates, data_change, is_spark) for f in added)
        if txn_mark[v]:
            app = f"stream-{v % 3}"
            tv = txns.get(app, (-1, 0))[0] + 1
            txns[app] = (tv, t)
            lines.append(f'{{"txn":{{"appId":"{app}","version":{tv},"lastUpdated":{t}}}}}')
        data = ("\n".join(lines) + "\n").encode()
        fd = os.open(f"{log_dir}{v:020d}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        n_actions += len(lines)
        n_add_actions += len(added)
        n_rm_actions += len(removed)
        n_bytes += len(data)
        if checkpoint_every and v > 0 and v % checkpoint_every == 0:
            last_checkpoint = _write_checkpoint(log, v, t, pool, dates, txns, int(ts[0]))
            checkpoints.append(v)
    if last_checkpoint is not None:
        (log / "_last_checkpoint").write_text(json.dumps(last_checkpoint, separators=(",", ":")))
    manifest = {
        "commits": commits,
        "seed": seed,
        "race_fraction": race_fraction,
        "spark_fraction": spark_fraction,
        "checkpoint_every": checkpoint_every,
        "checkpoints": checkpoints,
        "actions": n_actions,
        "add_actions": n_add_actions,
        "remove_actions": n_rm_actions,
        "live_files": len(pool.live),
        "json_bytes": n_bytes,
        "race_versions": len(race_versions),
        "generate_seconds": round(time.perf_counter() - started, 3),
    }
    (out / "synthetic_manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if not quiet:
        print(json.dumps(manifest), file=sys.stderr)
    return manifest


TABLE_ID = "5f9b3c1e-2d4a-4b6e-9c8d-7a1f0e2b3c4d"


def checkpoint_metadata(created: int) -> dict[str, Any]:
    """The table's metaData as a checkpoint parquet row (maps as empty pair lists)."""
    return {
        "id": TABLE_ID,
        "name": None,
        "description": None,
        "format": {"provider": "parquet", "options": []},
        "schemaString": SCHEMA_STRING,
        "partitionColumns": ["date"],
        "configuration": [],
        "createdTime": created,
    }


def _write_checkpoint(
    log: Path,
    version: int,
    ts: int,
    pool: FilePool,
    dates: list[str],
    txns: dict[str, tuple[int, int]],
    created_time: int,
) -> dict[str, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    str_map = pa.map_(pa.string(), pa.string())
    dv = pa.struct(
        [
            ("storageType", pa.string()),
            ("pathOrInlineDv", pa.string()),
            ("offset", pa.int32()),
            ("sizeInBytes", pa.int32()),
            ("cardinality", pa.int64()),
        ]
    )

    def pv_map(fids: list[int]) -> pa.MapArray:
        n = len(fids)
        return pa.MapArray.from_arrays(
            pa.array(np.arange(n + 1, dtype=np.int32)),
            pa.array(["date"] * n),
            pa.array([dates[pool.date_idx[f]] for f in fids]),
        )

    live = sorted(pool.live)
    n = len(live)
    add = pa.StructArray.from_arrays(
        [
            pa.array([pool.paths[f] for f in live]),
            pv_map(live),
            pa.array([pool.size[f] for f in live], pa.int64()),
            pa.array([pool.mtime[f] for f in live], pa.int64()),
            pa.array(np.zeros(n, dtype=bool)),
            pa.array([pool.stats[f] for f in live]),
            pa.nulls(n, str_map),
            pa.nulls(n, dv),
            pa.nulls(n, pa.int64()),
            pa.nulls(n, pa.int64()),
            pa.nulls(n, pa.string()),
        ],
        names=[
            "path",
            "partitionValues",
            "size",
            "modificationTime",
            "dataChange",
            "stats",
            "tags",
            "deletionVector",
            "baseRowId",
            "defaultRowCommitVersion",
            "clusteringProvider",
        ],
    )
    horizon = ts - TOMBSTONE_RETENTION_MS
    tomb = [(f, t, dc) for f, t, dc in pool.removed if t >= horizon]
    tf = [f for f, _, _ in tomb]
    m = len(tomb)
    remove = pa.StructArray.from_arrays(
        [
            pa.array([pool.paths[f] for f in tf], pa.string()),
            pa.array([t for _, t, _ in tomb], pa.int64()),
            pa.array([dc for _, _, dc in tomb], pa.bool_()),
            pa.array(np.ones(m, dtype=bool)),
            pv_map(tf),
            pa.array([pool.size[f] for f in tf], pa.int64()),
            pa.nulls(m, str_map),
            pa.nulls(m, dv),
            pa.nulls(m, pa.int64()),
            pa.nulls(m, pa.int64()),
        ],
        names=[
            "path",
            "deletionTimestamp",
            "dataChange",
            "extendedFileMetadata",
            "partitionValues",
            "size",
            "tags",
            "deletionVector",
            "baseRowId",
            "defaultRowCommitVersion",
        ],
    )
    meta_type = pa.struct(
        [
            ("id", pa.string()),
            ("name", pa.string()),
            ("description", pa.string()),
            ("format", pa.struct([("provider", pa.string()), ("options", str_map)])),
            ("schemaString", pa.string()),
            ("partitionColumns", pa.list_(pa.string())),
            ("configuration", str_map),
            ("createdTime", pa.int64()),
        ]
    )
    meta = pa.array([checkpoint_metadata(created_time)], meta_type)
    proto_type = pa.struct(
        [
            ("minReaderVersion", pa.int32()),
            ("minWriterVersion", pa.int32()),
            ("readerFeatures", pa.list_(pa.string())),
            ("writerFeatures", pa.list_(pa.string())),
        ]
    )
    proto = pa.array([{"minReaderVersion": 1, "minWriterVersion": 2}], proto_type)
    txn_type = pa.struct(
        [("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())]
    )
    txn = pa.array(
        [{"appId": a, "version": tv, "lastUpdated": lu} for a, (tv, lu) in sorted(txns.items())],
        txn_type,
    )

    def block(name: str, arr: pa.Array) -> pa.Table:
        return pa.table({name: arr})

    table = pa.concat_tables(
        [
            block("protocol", proto),
            block("metaData", meta),
            block("txn", txn),
            block("add", add),
            block("remove", remove),
        ],
        promote_options="default",
    ).select(["txn", "add", "remove", "metaData", "protocol"])
    path = log / f"{version:020d}.checkpoint.parquet"
    pq.write_table(table, path)
    return {
        "version": version,
        "size": table.num_rows,
        "sizeInBytes": path.stat().st_size,
        "numOfAddFiles": n,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commits", type=int, required=True)
    p.add_argument(
        "--out", type=Path, required=True, help="table root; DIR/_delta_log must not exist"
    )
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--checkpoint-every", type=int, default=None, metavar="K")
    p.add_argument("--race-fraction", type=float, default=0.0, metavar="F")
    p.add_argument("--spark-fraction", type=float, default=0.25, metavar="F")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    if not 0.0 <= a.race_fraction <= 1.0 or not 0.0 <= a.spark_fraction <= 1.0:
        p.error("fractions must be within 0..1")
    if a.checkpoint_every is not None and a.checkpoint_every < 1:
        p.error("--checkpoint-every must be >= 1")
    if (a.out / "_delta_log").exists():
        p.error(f"{a.out}/_delta_log already exists")
    generate(
        a.commits,
        a.out,
        seed=a.seed,
        checkpoint_every=a.checkpoint_every,
        race_fraction=a.race_fraction,
        spark_fraction=a.spark_fraction,
        quiet=a.quiet,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
