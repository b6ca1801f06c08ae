"""Write a Delta table whose log starts at a huge checkpoint, for snapshot/scale benchmarks.

The table looks like one whose older commits were cleaned up: a checkpoint at version ``C``
holding ``--files`` live files, then ``--commits`` commit files ``C+1 .. C+commits`` in the mix
of ``gen_synthetic_log.py`` (appends of 5 files, DELETE/MERGE/UPDATE/OPTIMIZE removing live
files, Spark- and delta-rs-style commitInfo with ``readVersion``/``isolationLevel``).

* ``--kind multipart``: ``C.checkpoint.000000000k.00000000NN.parquet``, ``--parts`` parts with
  the Delta checkpoint schema (``txn, add, remove, metaData, protocol``; ``partitionValues`` as
  ``map<string,string>``, ``stats`` as JSON text), protocol and metaData in part 1, and
  ``_last_checkpoint`` with ``parts``.
* ``--kind v2``: a V2 checkpoint ``C.checkpoint.<uuid>.parquet`` holding ``checkpointMetadata``,
  ``protocol`` (3/7 with the ``v2Checkpoint`` feature), ``metaData`` and one ``sidecar`` action
  per ``_delta_log/_sidecars/<uuid>.parquet`` file (``--sidecars`` of them) that hold the adds.

Columns are built with numpy/pyarrow, not per file in Python, except the stats strings; a
1,000,000-file checkpoint takes about 15-25 s on a 2-core machine. ``synthetic_manifest.json``
beside ``_delta_log`` records the live file count at the end. ``--verify`` opens the table with
``deltalake`` and checks that it sees the same live files.

    python benchmarks/gen_checkpoint_log.py --files 1000000 --commits 10000 --kind v2 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_synthetic_log import (
    BASE_TS,
    COMMIT_GAP_MS,
    N_DATES,
    OP_P,
    OPS,
    FilePool,
    StatsFactory,
    _add_line,
    _commit_info,
    _dates,
    _remove_line,
    checkpoint_metadata,
)

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def uuid_strings(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` random version-4-looking UUID strings as a numpy ``S36`` array, vectorised."""
    raw = np.frombuffer(rng.bytes(16 * n), dtype=np.uint8).reshape(n, 16)
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = raw >> 4
    nibbles[:, 1::2] = raw & 0x0F
    hexed = _HEX[nibbles]
    out = np.full((n, 36), ord("-"), dtype=np.uint8)
    for dst, src in ((0, 0), (9, 8), (14, 12), (19, 16), (24, 20)):
        width = {0: 8, 9: 4, 14: 4, 19: 4, 24: 12}[dst]
        out[:, dst : dst + width] = hexed[:, src : src + width]
    out[:, 14] = ord("4")
    out[:, 19] = ord("a")
    return out.view("S36").reshape(n)


def _str_map() -> pa.DataType:
    return pa.map_(pa.string(), pa.string())


def _dv_type() -> pa.DataType:
    return pa.struct(
        [
            ("storageType", pa.string()),
            ("pathOrInlineDv", pa.string()),
            ("offset", pa.int32()),
            ("sizeInBytes", pa.int32()),
            ("cardinality", pa.int64()),
        ]
    )


ADD_FIELDS = [
    ("path", pa.string()),
    ("partitionValues", _str_map()),
    ("size", pa.int64()),
    ("modificationTime", pa.int64()),
    ("dataChange", pa.bool_()),
    ("stats", pa.string()),
    ("tags", _str_map()),
    ("deletionVector", _dv_type()),
    ("baseRowId", pa.int64()),
    ("defaultRowCommitVersion", pa.int64()),
    ("clusteringProvider", pa.string()),
]
REMOVE_FIELDS = [
    ("path", pa.string()),
    ("deletionTimestamp", pa.int64()),
    ("dataChange", pa.bool_()),
    ("extendedFileMetadata", pa.bool_()),
    ("partitionValues", _str_map()),
    ("size", pa.int64()),
    ("tags", _str_map()),
    ("deletionVector", _dv_type()),
    ("baseRowId", pa.int64()),
    ("defaultRowCommitVersion", pa.int64()),
]
META_TYPE = pa.struct(
    [
        ("id", pa.string()),
        ("name", pa.string()),
        ("description", pa.string()),
        ("format", pa.struct([("provider", pa.string()), ("options", _str_map())])),
        ("schemaString", pa.string()),
        ("partitionColumns", pa.list_(pa.string())),
        ("configuration", _str_map()),
        ("createdTime", pa.int64()),
    ]
)
PROTO_TYPE = pa.struct(
    [
        ("minReaderVersion", pa.int32()),
        ("minWriterVersion", pa.int32()),
        ("readerFeatures", pa.list_(pa.string())),
        ("writerFeatures", pa.list_(pa.string())),
    ]
)
TXN_TYPE = pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])
SIDECAR_TYPE = pa.struct(
    [
        ("path", pa.string()),
        ("sizeInBytes", pa.int64()),
        ("modificationTime", pa.int64()),
        ("tags", _str_map()),
    ]
)
CP_META_TYPE = pa.struct([("version", pa.int64()), ("tags", _str_map())])


def _protocol(v2: bool) -> dict[str, Any]:
    if v2:
        return {
            "minReaderVersion": 3,
            "minWriterVersion": 7,
            "readerFeatures": ["v2Checkpoint"],
            "writerFeatures": ["v2Checkpoint"],
        }
    return {"minReaderVersion": 1, "minWriterVersion": 2}


def _add_struct(paths: pa.Array, dates: pa.Array, size: np.ndarray, mtime: np.ndarray,
                stats: pa.Array) -> pa.StructArray:  # fmt: skip
    n = len(paths)
    pv = pa.MapArray.from_arrays(
        pa.array(np.arange(n + 1, dtype=np.int32)), pa.array(np.full(n, "date")), dates
    )
    arrays = [
        paths,
        pv,
        pa.array(size, pa.int64()),
        pa.array(mtime, pa.int64()),
        pa.array(np.zeros(n, dtype=bool)),
        stats,
        pa.nulls(n, _str_map()),
        pa.nulls(n, _dv_type()),
        pa.nulls(n, pa.int64()),
        pa.nulls(n, pa.int64()),
        pa.nulls(n, pa.string()),
    ]
    return pa.StructArray.from_arrays(arrays, fields=[pa.field(k, t) for k, t in ADD_FIELDS])


def _file_table(add: pa.StructArray) -> pa.Table:
    """Rows holding only ``add`` (the other action columns null), checkpoint column order."""
    n = len(add)
    return pa.table(
        {
            "txn": pa.nulls(n, TXN_TYPE),
            "add": add,
            "remove": pa.nulls(n, pa.struct([pa.field(k, t) for k, t in REMOVE_FIELDS])),
            "metaData": pa.nulls(n, META_TYPE),
            "protocol": pa.nulls(n, PROTO_TYPE),
        }
    )


def _side_table(v2: bool, created: int) -> pa.Table:
    """Two rows: protocol, then metaData (the other columns null)."""
    remove_type = pa.struct([pa.field(k, t) for k, t in REMOVE_FIELDS])
    add_type = pa.struct([pa.field(k, t) for k, t in ADD_FIELDS])
    return pa.table(
        {
            "txn": pa.nulls(2, TXN_TYPE),
            "add": pa.nulls(2, add_type),
            "remove": pa.nulls(2, remove_type),
            "metaData": pa.array([None, checkpoint_metadata(created)], META_TYPE),
            "protocol": pa.array([_protocol(v2), None], PROTO_TYPE),
        }
    )


def build_checkpoint_files(
    rng: np.random.Generator, n: int, dates: list[str], ts: int
) -> tuple[pa.StructArray, StatsFactory, list[str]]:
    """The ``add`` structs of ``n`` live files, their stats and their paths (for later removes)."""
    factory = StatsFactory(rng, n, dates)
    date_arr = np.array(dates, dtype=object)[factory.date_idx]
    uuids = uuid_strings(rng, n).astype(str)
    prefix = np.char.add(np.char.add("date=", date_arr.astype(str)), "/part-00000-")
    paths = np.char.add(np.char.add(prefix, uuids), ".c000.snappy.parquet")
    path_list = paths.tolist()
    mtime = ts - 3_600_000 + rng.integers(0, 3_000_000, n)
    add = _add_struct(
        pa.array(path_list, pa.string()),
        pa.array(date_arr.tolist(), pa.string()),
        factory.size,
        mtime,
        pa.array(factory.stats, pa.string()),
    )
    return add, factory, path_list


def write_checkpoint(
    log: Path, version: int, add: pa.StructArray, *, kind: str, parts: int, sidecars: int,
    created: int, rng: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """Write the checkpoint files; returns the ``_last_checkpoint`` document."""
    n = len(add)
    if kind == "multipart":
        bounds = np.linspace(0, n, parts + 1).astype(int)
        total = 0
        for k in range(parts):
            chunk = _file_table(add.slice(bounds[k], bounds[k + 1] - bounds[k]))
            if k == 0:
                chunk = pa.concat_tables([_side_table(False, created), chunk])
            name = f"{version:020d}.checkpoint.{k + 1:010d}.{parts:010d}.parquet"
            pq.write_table(chunk, log / name)
            total += chunk.num_rows
        return {"version": version, "size": total, "parts": parts, "numOfAddFiles": n}
    side_dir = log / "_sidecars"
    side_dir.mkdir()
    bounds = np.linspace(0, n, sidecars + 1).astype(int)
    names = [f"{u}.parquet" for u in uuid_strings(rng, sidecars).astype(str)]
    side_rows = []
    for k, name in enumerate(names):
        chunk = pa.table({"add": add.slice(bounds[k], bounds[k + 1] - bounds[k])})
        pq.write_table(chunk, side_dir / name)
        st = (side_dir / name).stat()
        side_rows.append(
            {
                "path": name,
                "sizeInBytes": st.st_size,
                "modificationTime": int(st.st_mtime * 1000),
                "tags": None,
            }
        )
    rows = 3 + len(side_rows)
    top = pa.table(
        {
            "checkpointMetadata": pa.array(
                [{"version": version, "tags": None}] + [None] * (rows - 1), CP_META_TYPE
            ),
            "protocol": pa.array([None, _protocol(True)] + [None] * (rows - 2), PROTO_TYPE),
            "metaData": pa.array(
                [None, None, checkpoint_metadata(created)] + [None] * (rows - 3), META_TYPE
            ),
            "sidecar": pa.array([None, None, None, *side_rows], SIDECAR_TYPE),
        }
    )
    cp_name = f"{version:020d}.checkpoint.{uuid_strings(rng, 1).astype(str)[0]}.parquet"
    pq.write_table(top, log / cp_name)
    return {"version": version, "size": rows + n, "numOfAddFiles": n}


def generate(
    files: int,
    commits: int,
    out: Path,
    *,
    kind: str = "multipart",
    parts: int = 10,
    sidecars: int = 4,
    checkpoint_version: int = 999,
    seed: int = 7,
    race_fraction: float = 0.0,
    spark_fraction: float = 0.25,
    quiet: bool = False,
) -> dict[str, Any]:
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    log = out / "_delta_log"
    log.mkdir(parents=True, exist_ok=False)
    dates = _dates()
    c = checkpoint_version
    cp_ts = BASE_TS + c * COMMIT_GAP_MS
    add, factory, path_list = build_checkpoint_files(rng, files, dates, cp_ts)
    t_files = time.perf_counter() - started
    last = write_checkpoint(
        log, c, add, kind=kind, parts=parts, sidecars=sidecars, created=BASE_TS, rng=rng
    )
    (log / "_last_checkpoint").write_text(json.dumps(last, separators=(",", ":")))
    t_checkpoint = time.perf_counter() - started
    add_mtime = add.field("modificationTime").to_numpy()
    del add

    # --- the commits after the checkpoint: the pool starts with the checkpoint's files ---
    ops = rng.choice(len(OPS), size=commits, p=OP_P)
    n_adds = np.select([ops == 0, ops == 1, ops == 2, ops == 3, ops == 4],
                       [5, rng.integers(1, 4, commits), 5, rng.integers(1, 3, commits), 1])  # fmt: skip
    n_rms = np.select([ops == 1, ops == 2, ops == 3, ops == 4],
                      [rng.integers(1, 4, commits), 2, n_adds, 10], 0)  # fmt: skip
    spark = rng.random(commits) < spark_fraction
    race = rng.random(commits) < race_fraction
    lag = rng.integers(2, 7, commits)
    total_new = int(n_adds.sum())
    new = StatsFactory(rng, total_new, dates)
    new_uuids = uuid_strings(rng, total_new + commits).astype(str).tolist()
    pool = FilePool()
    pool.paths = path_list + [""] * total_new
    pool.stats = factory.stats + new.stats
    pool.size = factory.size.tolist() + new.size.tolist()
    pool.date_idx = factory.date_idx.tolist() + new.date_idx.tolist()
    pool.mtime = add_mtime.tolist() + [0] * total_new
    pool.live = list(range(files))
    pool.pos = dict(zip(range(files), range(files), strict=True))
    for fid, d in enumerate(pool.date_idx[:files]):
        pool.by_date[d].add(fid)
    pick = rng.random(int(n_rms.sum()) + 1)
    rows_per_commit = rng.integers(10, 500_000, commits)
    next_add, pick_i, n_bytes, races = files, 0, 0, 0
    for i in range(commits):
        v = c + 1 + i
        op = OPS[int(ops[i])]
        t = cp_ts + (i + 1) * COMMIT_GAP_MS + int(rng.integers(0, 30_000))
        is_spark = bool(spark[i])
        if race[i] and i >= 2:
            read_version: int | None = max(c, v - int(lag[i]))
            races += 1
            is_spark = is_spark or op == "WRITE"
        elif is_spark or op != "WRITE":
            read_version = v - 1
        else:
            read_version = None
        removed: list[int] = []
        if op == "OPTIMIZE":
            seed_fid = pool.live[int(pick[pick_i] * len(pool.live))]
            pick_i += 1
            removed = sorted(pool.by_date[pool.date_idx[seed_fid]])[: int(n_rms[i])]
        else:
            for _ in range(int(n_rms[i])):
                fid = pool.live[int(pick[pick_i] * len(pool.live))]
                pick_i += 1
                if fid not in removed:
                    removed.append(fid)
        data_change = op != "OPTIMIZE"
        added = list(range(next_add, next_add + int(n_adds[i])))
        next_add += len(added)
        for j, fid in enumerate(added):
            if removed:
                pool.date_idx[fid] = pool.date_idx[removed[j % len(removed)]]
            d = dates[pool.date_idx[fid]]
            pool.paths[fid] = f"date={d}/part-{j:05d}-{new_uuids[fid - files]}-c000.snappy.parquet"
            pool.mtime[fid] = t - 5 - j
        for fid in removed:
            pool.kill(fid, t - 3, data_change)
        for fid in added:
            pool.add_live(fid)
        date = dates[pool.date_idx[added[0]]] if added else dates[v % N_DATES]
        lines = [
            _commit_info(
                op,
                v,
                t,
                read_version,
                is_spark,
                new_uuids[total_new + i],
                len(added),
                len(removed),
                int(rows_per_commit[i]),
                sum(pool.size[f] for f in added),
                date,
            )
        ]
        lines.extend(_remove_line(pool, f, dates, t - 3, data_change) for f in removed)
        lines.extend(_add_line(pool, f, dates, data_change, is_spark) for f in added)
        data = ("\n".join(lines) + "\n").encode()
        fd = os.open(log / f"{v:020d}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        n_bytes += len(data)
    manifest = {
        "kind": kind,
        "checkpoint_version": c,
        "checkpoint_files": files,
        "parts": parts if kind == "multipart" else None,
        "sidecars": sidecars if kind == "v2" else None,
        "commits": commits,
        "last_version": c + commits,
        "seed": seed,
        "race_versions": races,
        "live_files": len(pool.live),
        "json_bytes": n_bytes,
        "checkpoint_bytes": sum(p.stat().st_size for p in log.rglob("*.parquet")),
        "build_files_seconds": round(t_files, 3),
        "checkpoint_seconds": round(t_checkpoint, 3),
        "generate_seconds": round(time.perf_counter() - started, 3),
    }
    (out / "synthetic_manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if not quiet:
        print(json.dumps(manifest), file=sys.stderr)
    return manifest


def verify_with_deltalake(out: Path, manifest: dict[str, Any]) -> int:
    """deltalake's live-file count (it must open the table and agree with the manifest)."""
    from deltalake import DeltaTable

    dt = DeltaTable(str(out))
    n = len(dt.file_uris())
    if n != manifest["live_files"] or dt.version() != manifest["last_version"]:
        raise SystemExit(
            f"deltalake disagrees: {n} files at v{dt.version()}, manifest says "
            f"{manifest['live_files']} at v{manifest['last_version']}"
        )
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=1_000_000, help="live files in the checkpoint")
    p.add_argument("--commits", type=int, default=10_000, help="commits after the checkpoint")
    p.add_argument("--kind", choices=("multipart", "v2"), default="multipart")
    p.add_argument("--parts", type=int, default=10, help="multi-part: number of parts")
    p.add_argument("--sidecars", type=int, default=4, help="v2: number of sidecar files")
    p.add_argument("--checkpoint-version", type=int, default=999)
    p.add_argument("--out", type=Path, required=True, help="table root; must not have a log")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--race-fraction", type=float, default=0.0, metavar="F")
    p.add_argument("--verify", action="store_true", help="check the live files with deltalake")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    if a.files < a.parts or a.files < a.sidecars or a.files < 100:
        p.error("--files must be at least 100 and at least --parts/--sidecars")
    if (a.out / "_delta_log").exists():
        p.error(f"{a.out}/_delta_log already exists")
    manifest = generate(
        a.files, a.commits, a.out, kind=a.kind, parts=a.parts, sidecars=a.sidecars,
        checkpoint_version=a.checkpoint_version, seed=a.seed, race_fraction=a.race_fraction,
        quiet=a.quiet,
    )  # fmt: skip
    if a.verify:
        n = verify_with_deltalake(a.out, manifest)
        print(f"deltalake agrees: {n} live files at v{manifest['last_version']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
