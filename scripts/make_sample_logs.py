"""Regenerate ``sample_logs/``: realistic conflict scenarios as real ``_delta_log`` folders.

    python scripts/make_sample_logs.py              # every sample but the real-Spark ones
    python scripts/make_sample_logs.py NAME [NAME]  # only these (README.md is rewritten anyway)
    python scripts/make_sample_logs.py --real-spark [NAME]  # the real Delta-Spark ones too

Each sample folder is deleted and rebuilt. Builder-made samples (``LogBuilder``) are byte-for-byte
deterministic; the delta-rs sample is written by the real ``deltalake`` engine, so its versions and
findings are fixed but its timestamps, uuids and file names change on every run. The real
Delta-Spark samples (scripts/real_spark_samples.py) take minutes: the pinned engine is installed
and every race run on it, so they are written only when asked for.
Every sample gets an ``expected.json`` (the findings as data) and a section in ``README.md``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the builder is test support in tests/support, not in the wheel

from real_spark_samples import REAL_SPARK_SAMPLES  # noqa: E402

from tests.support import LogBuilder  # noqa: E402

ROOT = REPO / "sample_logs"
MINUTE = 60
T0 = 1_709_532_000_000  # 2024-03-04T06:00:00Z


@dataclass
class Sample:
    name: str
    title: str
    engine: str
    story: str
    what_you_see: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    data_files: str = "not kept (log only; `DeltaTable(path)` still loads it)"

    def race(self, b: LogBuilder, version: int, text: str, **facts: Any) -> None:
        """A commit whose readVersion is behind: it was checked against (and rebased over) these."""
        info = json.loads((b.log_dir / f"{version:020d}.json").read_text().splitlines()[0])
        rv = info["commitInfo"]["readVersion"]
        self.findings.append(
            {
                "kind": "survived-race",
                "version": version,
                "read_version": rv,
                "rebased_over": list(range(rv + 1, version)),
                "text": text,
                **facts,
            }
        )

    def note(self, kind: str, text: str, **facts: Any) -> None:
        self.findings.append({"kind": kind, "text": text, **facts})


def _stats(lo: int, hi: int) -> dict[str, Any]:
    return {
        "minValues": {"order_id": lo},
        "maxValues": {"order_id": hi},
        "nullCount": {"order_id": 0},
    }


# ---------------------------------------------------------------------------------------------
# 1. MERGE whose ON clause has no literal partition filter


def merge_without_partition_literal(path: Path) -> Sample:
    s = Sample(
        name="merge_without_partition_literal",
        title="MERGE without a literal partition filter, racing an append job",
        engine="Databricks Runtime 14.3 (WriteSerializable default), partitioned by `date`",
        story=(
            "Table `sales.orders`. Job 811 `orders_ingest` appends today's partition "
            "(`date=2024-03-04`) every few minutes. Job 812 `orders_status_merge` runs "
            "`MERGE INTO orders t USING updates s ON t.order_id = s.order_id AND t.date = s.date` "
            "every hour; it takes several minutes, so appends land while it runs. An analyst "
            "fixes single orders with `UPDATE ... WHERE date = ... AND order_id = ...` and job 813 "
            "`orders_retention` purges old partitions with `DELETE ... WHERE date < ...`."
        ),
        what_you_see=(
            "`DESCRIBE HISTORY` shows MERGE commits whose `readVersion` is 2–4 versions behind, "
            'all successful; the MERGE `predicate` is `["((order_id#… = order_id#…) AND '
            '(date#… = date#…))"]` with no literal. Nothing ever failed in this log, yet two of '
            "the overlaps were only safe because of the order in which the jobs finished."
        ),
    )
    cols = {
        "order_id": "long",
        "customer_id": "long",
        "status": "string",
        "amount": "double",
        "date": "string",
    }
    b = LogBuilder(path, writer="databricks-14.3", partition_by=["date"], columns=cols,
                   start_ms=T0, step_seconds=4 * MINUTE, seed=11, checkpoint_interval=10)  # fmt: skip
    ingest_run = iter(range(40_001, 40_100))
    merge_run = iter(range(50_001, 50_100))
    order = iter(range(100_000, 10_000_000, 1_000))

    def ingest(**kw: Any) -> int:
        lo = next(order)
        f = b.file("date=2024-03-04", rows=400, stats=_stats(lo, lo + 399))
        ctx = LogBuilder.job_context(811, next(ingest_run), job_name="orders_ingest")
        return b.write(add=[f], commit_info_extra=ctx, **kw)

    def merge(read_version: int, touched: list[str]) -> int:
        removes = [b.live_files(p, version=read_version)[0]["path"] for p in touched]
        adds = [b.file(p, rows=900) for p in touched] + [b.file("date=2024-03-04", rows=120)]
        ctx = LogBuilder.job_context(812, next(merge_run), job_name="orders_status_merge")
        return b.merge("t.order_id = s.order_id AND t.date = s.date", remove=removes, add=adds,
                       read_version=read_version, commit_info_extra=ctx)  # fmt: skip

    b.create()
    backfill = [b.file(f"date={d}", rows=5000) for d in ("2024-02-01", "2024-02-01", "2024-03-01",
                "2024-03-01", "2024-03-02", "2024-03-02", "2024-03-03", "2024-03-03")]  # fmt: skip
    b.write(
        add=backfill,
        commit_info_extra=LogBuilder.job_context(810, 39_999, job_name="orders_backfill"),
    )
    for _ in range(3):
        ingest()
    m1 = merge(1, ["date=2024-03-02", "date=2024-03-03"])
    s.race(b, m1, "MERGE rebased over three blind appends into `date=2024-03-04`. OK only "
           "because of WriteSerializable: the MERGE reads the whole table (no literal in ON), so "
           "under Serializable it would have failed with ConcurrentAppendException "
           "[date=2024-03-04] (semantics doc scenarios 2/3).",
           isolation="WriteSerializable", would_raise_under_serializable="ConcurrentAppendException")  # fmt: skip
    ingest()
    fix = b.update("date = '2024-03-01' AND order_id = 100234", read_version=m1 - 1,
                   remove=[b.live_files("date=2024-03-01")[0]["path"]], add=[b.file("date=2024-03-01", rows=5000)],
                   commit_info_extra={"userName": "analyst@example.com"})  # fmt: skip
    s.race(b, fix, f"UPDATE on `date=2024-03-01` rebased over the MERGE v{m1} and an append: OK, "
           "the MERGE added and removed files only in other partitions. Order-dependent: the MERGE "
           f"(read v1, running until v{m1}) overlapped this UPDATE; had the UPDATE committed first, "
           "the MERGE would have failed with ConcurrentAppendException [date=2024-03-01] "
           "(scenario 9) because its read predicate is TRUE.",
           order_flip={"winner": fix, "loser": m1, "would_raise": "ConcurrentAppendException",
                       "partition": "date=2024-03-01"})  # fmt: skip
    for _ in range(2):
        ingest()
    m2 = merge(b.version - 1, ["date=2024-03-03"])
    s.race(b, m2, "MERGE rebased over one blind append (OK under WriteSerializable).")
    purge = b.delete("date < '2024-02-02'", read_version=m2 - 1,
                     commit_info_extra=LogBuilder.job_context(813, 60_001, job_name="orders_retention"))  # fmt: skip
    s.race(b, purge, f"Metadata-only DELETE of `date=2024-02-01` rebased over the MERGE v{m2}: OK, "
           "its read set is the 2024-02-01 files only. Order-dependent: had the MERGE committed "
           "after this DELETE it would have failed with ConcurrentDeleteReadException "
           "[date=2024-02-01] (scenario 11): a MERGE without a partition literal registers every "
           "file as read.",
           order_flip={"winner": purge, "loser": m2, "would_raise": "ConcurrentDeleteReadException",
                       "partition": "date=2024-02-01"})  # fmt: skip
    for hour in range(3):
        for _ in range(6):
            ingest()
        behind = 3 + hour
        m = merge(
            b.version - behind + 1,
            ["date=2024-03-03", "date=2024-03-04"] if hour else ["date=2024-03-04"],
        )
        s.race(
            b,
            m,
            f"MERGE rebased over {behind - 1} blind appends (OK under WriteSerializable only).",
        )
        if hour == 1:
            a1 = ingest(read_version=m - 1)
            a2 = ingest(read_version=m - 1)
            for a in (a1, a2):
                s.race(b, a, "Two ingest runs read the same version and both landed after the MERGE: "
                       "always OK, a blind append checks nothing it did not read (scenario 1).")  # fmt: skip
    for _ in range(3):
        ingest()
    s.note("fix", "Add the literal the MERGE actually needs (`... AND t.date = '2024-03-04'` or "
           "`t.date >= '2024-03-03'`) so its read predicate prunes the other partitions "
           "(scenario 10); keep WriteSerializable.")  # fmt: skip
    return s


# ---------------------------------------------------------------------------------------------
# 2. OPTIMIZE ZORDER racing DELETE / UPDATE


def optimize_vs_delete(path: Path) -> Sample:
    s = Sample(
        name="optimize_vs_delete",
        title="Nightly OPTIMIZE ZORDER BY racing GDPR deletes and fixes",
        engine="Databricks Runtime 13.3 LTS (Photon), partitioned by `event_date`, no deletion vectors",
        story=(
            "Table `web.events`. A streaming-style job appends small files to today's partition. "
            "A nightly job runs `OPTIMIZE events WHERE event_date = <day> ZORDER BY (user_id)` "
            "one partition at a time. A GDPR job runs `DELETE ... WHERE event_date = ... AND "
            "user_id = ...` per partition, and once `DELETE FROM events WHERE user_id = 4711` over "
            "the whole table; a data engineer runs an `UPDATE`."
        ),
        what_you_see=(
            "OPTIMIZE commits with `isolationLevel: SnapshotIsolation`, `isBlindAppend: false` and "
            "`dataChange: false` on every add/remove, several of them with `readVersion` 1–2 "
            "behind; DELETE/UPDATE commits whose `readVersion` is *before* an OPTIMIZE."
        ),
    )
    cols = {
        "event_id": "long",
        "user_id": "long",
        "event_type": "string",
        "payload": "string",
        "event_date": "string",
    }
    b = LogBuilder(path, writer="databricks-13.3-photon", partition_by=["event_date"], columns=cols,
                   start_ms=T0 - 5 * 3_600_000, step_seconds=3 * MINUTE, seed=22, checkpoint_interval=10)  # fmt: skip
    runs = iter(range(70_001, 70_200))

    def job(job_id: int, name: str) -> dict[str, Any]:
        return LogBuilder.job_context(job_id, next(runs), job_name=name)

    def ingest(day: str, **kw: Any) -> int:
        return b.write(add=[b.file(f"event_date={day}", rows=300) for _ in range(2)],
                       commit_info_extra=job(901, "events_ingest"), **kw)  # fmt: skip

    def optimize(day: str, read_version: int) -> int:
        return b.optimize(f"event_date = '{day}'", zorder=["user_id"], read_version=read_version,
                          commit_info_extra=job(902, "events_nightly_optimize"))  # fmt: skip

    b.create()
    b.write(add=[b.file(f"event_date={d}", rows=300) for d in ("2024-03-01", "2024-03-02", "2024-03-03") for _ in range(4)],
            commit_info_extra=job(900, "events_backfill"))  # fmt: skip
    for _ in range(4):
        ingest("2024-03-04")
    o1 = optimize("2024-03-01", b.version - 1)
    s.race(b, o1, "OPTIMIZE of 2024-03-01 rebased over a blind append into 2024-03-04: OK "
           "(OPTIMIZE runs as SnapshotIsolation; scenario 13).")  # fmt: skip
    gdpr = b.delete("event_date = '2024-03-02' AND user_id = 4711", read_version=o1 - 1,
                    remove=[b.live_files("event_date=2024-03-02")[0]["path"]],
                    add=[b.file("event_date=2024-03-02", rows=297)], commit_info_extra=job(903, "gdpr_delete"))  # fmt: skip
    s.race(b, gdpr, f"GDPR DELETE in 2024-03-02 rebased over OPTIMIZE v{o1} of 2024-03-01: OK, "
           "disjoint partitions. Had it targeted 2024-03-01 it would have failed with "
           "ConcurrentAppendException [event_date=2024-03-01]: OPTIMIZE's re-added files count "
           "as changed data at every isolation level (scenario 12).",
           near_miss={"winner": o1, "would_raise_if_same_partition": "ConcurrentAppendException"})  # fmt: skip
    ingest("2024-03-04")
    o2 = optimize("2024-03-02", b.version - 1)
    s.race(b, o2, f"OPTIMIZE of 2024-03-02 (inputs include the file rewritten by v{gdpr}) "
           "rebased over an append: OK.")  # fmt: skip
    ingest("2024-03-04")
    fix = b.update("event_date = '2024-03-04' AND event_type = 'test'", read_version=o2 - 1,
                   remove=[b.live_files("event_date=2024-03-04", version=o2 - 1)[0]["path"]],
                   add=[b.file("event_date=2024-03-04", rows=300)],
                   commit_info_extra={"userName": "data.engineer@example.com"})  # fmt: skip
    s.race(b, fix, f"UPDATE in 2024-03-04 rebased over OPTIMIZE v{o2} (2024-03-02) and an append "
           "into its own partition. OK only under WriteSerializable (the append was blind); under "
           "Serializable: ConcurrentAppendException [event_date=2024-03-04] (scenario 5).",
           isolation="WriteSerializable", would_raise_under_serializable="ConcurrentAppendException")  # fmt: skip
    o3 = optimize("2024-03-03", b.version)
    b.delete("user_id = 4711", remove=[b.live_files("event_date=2024-03-03")[0]["path"]],
             add=[b.file("event_date=2024-03-03", rows=1190)], commit_info_extra=job(903, "gdpr_delete"))  # fmt: skip
    s.note("hazard", "`DELETE ... WHERE user_id = 4711` has no partition predicate, so it reads "
           f"every file. It started right after OPTIMIZE v{o3}; had any OPTIMIZE batch committed "
           "while it ran, it would have failed with ConcurrentAppendException [event_date=<that "
           "batch's partition>] (scenario 12 with a TRUE read predicate).",
           version=b.version, would_raise="ConcurrentAppendException")  # fmt: skip
    b.advance(6 * 3600)
    for _ in range(6):
        ingest("2024-03-05")
    o4 = optimize("2024-03-04", b.version - 2)
    s.race(b, o4, "Nightly OPTIMIZE of the now-cold 2024-03-04 rebased over two appends into "
           "2024-03-05: OK. This is the schedule the Databricks docs recommend.")  # fmt: skip
    for _ in range(4):
        ingest("2024-03-05")
    gdpr2 = b.delete("event_date = '2024-03-05' AND user_id = 4711", read_version=b.version - 1,
                     remove=[b.live_files("event_date=2024-03-05", version=b.version - 1)[0]["path"]],
                     add=[b.file("event_date=2024-03-05", rows=299)], commit_info_extra=job(903, "gdpr_delete"))  # fmt: skip
    s.race(b, gdpr2, "GDPR DELETE in today's partition rebased over a blind append into the same "
           "partition: OK under WriteSerializable only.", isolation="WriteSerializable")  # fmt: skip
    s.note("fix", "Keep OPTIMIZE on cold partitions (`WHERE event_date < current_date()`), give "
           "DELETE/UPDATE a literal partition predicate; on DBR, deletion vectors without ZORDER BY "
           "avoid OPTIMIZE-vs-DML conflicts entirely.")  # fmt: skip
    return s


# ---------------------------------------------------------------------------------------------
# 3. Two instances of the same streaming query


def duplicate_streaming_query(path: Path) -> Sample:
    s = Sample(
        name="duplicate_streaming_query",
        title="Two running instances of one streaming query (same checkpoint)",
        engine="Databricks Runtime 14.3, partitioned by `date`, streaming sinks",
        story=(
            "Table `iot.readings` is written by the streaming query `readings_sink` (job 951 on a "
            "job cluster). A developer starts the same notebook with the production checkpoint on "
            "an interactive cluster; for about 20 minutes both instances run. A second, unrelated "
            "query `late_arrivals` also writes to the table."
        ),
        what_you_see=(
            "`STREAMING UPDATE` commits with the same `queryId` and `txn.appId` but two different "
            "`clusterId`s (and job vs notebook context) interleaved; each instance's `epochId`s "
            "advance by 2 while both run."
        ),
    )
    cols = {"device_id": "long", "reading_ts": "timestamp", "value": "double", "date": "string"}
    b = LogBuilder(path, writer="databricks-14.3", partition_by=["date"], columns=cols, start_ms=T0,
                   step_seconds=MINUTE, seed=44)  # fmt: skip
    query, late = b.uuid(), b.uuid()
    prod = LogBuilder.job_context(
        951, 81_001, job_name="readings_sink", cluster_id="0304-060000-prodjob1"
    )
    dev = {"userId": "4000000000000777", "userName": "dev@example.com", "job": None,
           "notebook": {"notebookId": "3355799113355779"}, "clusterId": "0215-101010-devint42"}  # fmt: skip
    late_ctx = LogBuilder.job_context(
        952, 82_001, job_name="late_arrivals", cluster_id="0304-060000-latejob"
    )

    def batch(q: str, epoch: int, ctx: dict[str, Any], **kw: Any) -> int:
        return b.streaming_update(
            q, epoch, add=[b.file("date=2024-03-04", rows=800)], commit_info_extra=ctx, **kw
        )

    b.create(commit_info_extra=prod)
    for epoch in range(120, 128):
        batch(query, epoch, prod)
    batch(late, 33, late_ctx)
    first_dup = b.version + 1
    epoch = 128
    for i in range(10):
        if i == 5:
            batch(late, 34, late_ctx)
            batch(query, epoch, prod, read_version=b.version - 1)
            s.race(b, b.version, "A `readings_sink` batch rebased over `late_arrivals` (different "
                   "appId): OK (scenario 25). Rebased over its twin it would have failed with "
                   "ConcurrentTransactionException (scenario 24).")  # fmt: skip
        else:
            batch(query, epoch, dev if i % 2 == 0 else prod)
        epoch += 1
    last_dup = b.version
    s.note("duplicate-streaming-query", f"v{first_dup}–v{last_dup}: appId {query} is committed from "
           "clusters 0304-060000-prodjob1 (job 951) and 0215-101010-devint42 (notebook) in "
           "alternation: two instances of one query share a checkpoint. Their batches that lost "
           "races failed with ConcurrentTransactionException and left no commit; rows may be "
           "duplicated or missing.", app_id=query, versions=[first_dup, last_dup],
           cluster_ids=["0304-060000-prodjob1", "0215-101010-devint42"],
           would_raise="ConcurrentTransactionException")  # fmt: skip
    for _ in range(6):
        batch(query, epoch, prod)
        epoch += 1
    batch(late, 35, late_ctx)
    return s


# ---------------------------------------------------------------------------------------------
# 4. Real delta-rs: concurrent compaction duplicates data, a stale overwrite misses a file


def deltars_concurrent_optimize(path: Path) -> Sample:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    s = Sample(
        name="deltars_concurrent_optimize",
        title="delta-rs: two compactions of one snapshot, and a stale overwrite",
        engine="deltalake (delta-rs) 1.6.6, real engine, partitioned by `date`",
        story=(
            "A Python service appends with `write_deltalake`. Two maintenance workers each hold a "
            "`DeltaTable` loaded at the same version and both call `optimize.compact()` "
            "(field notes §3.1/§3.3 row O5). Later a worker holding a stale `DeltaTable` runs "
            '`write_deltalake(dt, df, mode="overwrite")` just after another process appended '
            "(row 8b)."
        ),
        what_you_see=(
            "Two consecutive OPTIMIZE commits with the same `readVersion` that remove the *same* "
            "paths (`dataChange: false`) and each add their own compacted files; later an "
            "Overwrite WRITE (no `readVersion`: delta-rs never writes one for WRITE) that removes "
            "every file except the one appended just before it. Nothing failed."
        ),
        data_files="kept (33 tiny parquet files, about 40 KB), so `DeltaTable(path).to_pyarrow_table()` shows the damage",
    )
    target = str(path)

    def rows(date: str, start: int, n: int) -> pa.Table:
        return pa.table({"user_id": pa.array(range(start, start + n), pa.int32()),
                         "country": ["US", "DE", "FR"][start % 3:][:1] * n,
                         "value": [float(i) / 2 for i in range(n)], "date": [date] * n})  # fmt: skip

    write_deltalake(target, rows("2024-01-01", 0, 5), partition_by=["date"])
    for i in range(1, 9):
        write_deltalake(target, rows(f"2024-01-0{1 + i % 3}", 100 * i, 5), mode="append")
    DeltaTable(target).delete("date = '2024-01-02' AND user_id = 102")
    a, b = DeltaTable(target), DeltaTable(target)
    read = a.version()
    a.optimize.compact()
    b.optimize.compact()
    dup = b.version()
    s.findings.append({
        "kind": "duplicate-remove", "version": dup, "read_version": read, "other_version": dup - 1,
        "text": f"v{dup - 1} and v{dup} both have readVersion {read} and remove the same files "
        "(dataChange=false); each adds its own compacted copy, so every row of those partitions is "
        "now live twice (silent duplication, delta-rs 1.6.6 does not reject OPTIMIZE vs OPTIMIZE).",
    })  # fmt: skip
    for i in range(9, 15):
        write_deltalake(target, rows(f"2024-01-0{1 + i % 3}", 100 * i, 5), mode="append")
    DeltaTable(target).update(
        updates={"value": "value * 2"}, predicate="date = '2024-01-03' AND user_id < 1000"
    )
    stale = DeltaTable(target)
    seen = stale.version()
    write_deltalake(target, rows("2024-01-02", 5000, 3), mode="append")
    survivor = DeltaTable(target).version()
    write_deltalake(stale, rows("2024-01-05", 9000, 4), mode="overwrite")
    over = DeltaTable(target).version()
    s.findings.append({
        "kind": "stale-overwrite", "version": over, "read_version": seen, "survivor_version": survivor,
        "text": f"v{over} is a full Overwrite made from a snapshot at v{seen} (no readVersion is "
        f"logged; the removes tell): the file appended at v{survivor} stays live, so the table "
        "holds 3 rows the overwrite meant to discard (field notes row 8b).",
    })  # fmt: skip
    for i in range(15, 21):
        write_deltalake(target, rows("2024-01-05", 100 * i, 5), mode="append")
    DeltaTable(target).create_checkpoint()
    for i in range(21, 23):
        write_deltalake(target, rows("2024-01-06", 100 * i, 5), mode="append")
    s.note(
        "checkpoint",
        f"`create_checkpoint()` at v{over + 6}: replay from the checkpoint must "
        f"still show the duplicated rows of v{dup} and the survivor of v{survivor}.",
        version=over + 6,
    )
    return s


# ---------------------------------------------------------------------------------------------
# 5. delta-rs appends into a Databricks table


def mixed_writer_appends(path: Path) -> Sample:
    s = Sample(
        name="mixed_writer_appends",
        title="delta-rs appends into a Databricks table under WriteSerializable",
        engine="Databricks Runtime 15.4 appends and UPDATEs + deltalake (delta-rs) 1.6.6 appends, unpartitioned",
        story=(
            "Table `crm.contacts` (unpartitioned). A Databricks job appends hourly; a Python "
            "service appends with `write_deltalake`; a Databricks job runs "
            "`UPDATE contacts SET ... WHERE id = ...` corrections."
        ),
        what_you_see=(
            "Appends with and without `isBlindAppend`/`isolationLevel`/`readVersion` (the delta-rs "
            "ones have `engineInfo: delta-rs:py-1.6.6` and none of those fields). Every UPDATE that "
            "raced was rebased only over Databricks appends."
        ),
    )
    cols = {"id": "long", "email": "string", "updated_at": "timestamp"}
    b = LogBuilder(
        path, writer="databricks-15.4", columns=cols, start_ms=T0, step_seconds=5 * MINUTE, seed=66
    )
    rs = "delta-rs-1.6.6"
    fix_ctx = LogBuilder.job_context(1201, 91_001, job_name="contacts_fix")

    def dbr_append() -> int:
        return b.write(
            add=[b.file(rows=200)],
            commit_info_extra=LogBuilder.job_context(1200, 90_001, job_name="contacts_ingest"),
        )

    b.create()
    for _ in range(3):
        dbr_append()
        b.write(add=[b.file(rows=50)], writer=rs)
    dbr_append()
    upd = b.update("id = 42", read_version=b.version - 1, remove=[b.live_files()[0]["path"]],
                   add=[b.file(rows=200)], commit_info_extra=fix_ctx)  # fmt: skip
    s.race(b, upd, "UPDATE rebased over a Databricks blind append: OK under WriteSerializable "
           "(scenario 3).")  # fmt: skip
    rs_append = b.write(add=[b.file(rows=50)], writer=rs)
    b.update(
        "id = 43",
        remove=[b.live_files()[1]["path"]],
        add=[b.file(rows=200)],
        commit_info_extra=fix_ctx,
    )
    s.note("hazard", "A delta-rs append: no `isBlindAppend`, so the conflict "
           "checker treats its file as changed data even under WriteSerializable. An UPDATE that "
           "had read before it and committed after would have failed with "
           "ConcurrentAppendException (scenario 32); the next UPDATE only survived because it "
           "started afterwards.", version=rs_append, would_raise="ConcurrentAppendException")  # fmt: skip
    for _ in range(4):
        b.write(add=[b.file(rows=50)], writer=rs)
        dbr_append()
    s.note("fix", "Have the delta-rs writer mark true blind appends (`CommitProperties(custom_metadata="
           "{\"isBlindAppend\": True})`) or route its appends through Databricks.")  # fmt: skip
    return s


SAMPLES: dict[str, Callable[[Path], Sample]] = {
    f.__name__: f
    for f in (
        merge_without_partition_literal,
        optimize_vs_delete,
        duplicate_streaming_query,
        deltars_concurrent_optimize,
        mixed_writer_appends,
    )
}


def _summary(path: Path) -> dict[str, Any]:
    log = path / "_delta_log"
    commits = sorted(int(p.name[:20]) for p in log.glob("*.json"))
    checkpoints = sorted(int(p.name[:20]) for p in log.glob("*.checkpoint.parquet"))
    return {"latest_version": commits[-1], "commits": len(commits), "checkpoints": checkpoints}


# The README's order: the real Delta-Spark sample sits among the Spark/Databricks ones.
ORDER = (
    "merge_without_partition_literal",
    "optimize_vs_delete",
    "schema_change_during_writes",
    "duplicate_streaming_query",
    "deltars_concurrent_optimize",
    "mixed_writer_appends",
)


def build(name: str) -> dict[str, Any]:
    path = ROOT / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    if name in REAL_SPARK_SAMPLES:
        told = REAL_SPARK_SAMPLES[name](path)
    else:
        sample = SAMPLES[name](path)
        told = {"title": sample.title, "engine": sample.engine, "data_files": sample.data_files,
                "story": sample.story, "what_you_see": sample.what_you_see,
                "findings": sample.findings}  # fmt: skip
    told.setdefault("data_files", "not kept (log only; `DeltaTable(path)` still loads it)")
    facts = {"name": name, "title": told["title"], "engine": told["engine"], **_summary(path),
             **{k: v for k, v in told.items() if k not in ("name", "title", "engine")}}  # fmt: skip
    (path / "expected.json").write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n")
    return facts


README_HEAD = """\
# Sample logs

Real `_delta_log` folders for demos, docs and golden tests, regenerated by
`python scripts/make_sample_logs.py` (do not edit by hand). Three kinds:

- **Written by real Delta-Spark**: `schema_change_during_writes`, by Delta Lake 3.3.2 on Apache
  Spark 3.5.3, with `python scripts/make_sample_logs.py --real-spark schema_change_during_writes`
  (about ten minutes: it installs the pinned engine into `.cache/realspark/` like the tests of
  `tests/realspark/`, and runs every race on it; its section says when and on what it was
  written). Its uuids, timestamps and file names change on each run; its versions, outcomes and
  findings do not. Every finding is the engine's own record (`records.json` beside it holds the
  statements run and what the engine did with each), and a regeneration in which the engine
  does not tell the same story stops instead of writing.
- **Written by the real `deltalake` 1.6.6 engine**: `deltars_concurrent_optimize`; its uuids
  and timestamps change on each run while its versions and findings do not.
- **Built** with `tests.support.LogBuilder`: the Databricks ones (Databricks cannot run here;
  their commitInfo shapes follow `delta-conflict-semantics.md` §B/§C), byte-for-byte
  reproducible.

Each folder has `_delta_log/` and `expected.json` (the findings below as data: `kind`, `version`,
`read_version`, `rebased_over`, …). Unless said otherwise the parquet data files do not exist;
`DeltaTable(path)` still loads the log. Remember what a log can show: losing transactions leave no
trace, so a finding is either a race that *survived* (a `readVersion` behind `version - 1`), damage
left by a race that should have failed, or a hazard visible only from timing. A real run can say
more: its `failed-race` findings are statements the engine really failed, with the exception text
a driver log shows (`error_text`, for `explain --error`), though the log keeps nothing of them.

| sample | engine | commits | checkpoints |
|---|---|---|---|
"""


def _where(finding: dict[str, Any]) -> str:
    if finding["kind"] == "survived-race":
        return f" v{finding['version']} (readVersion {finding['read_version']})"
    if finding["kind"] == "failed-race":
        return f" (readVersion {finding['read_version']}, against v{finding['winner_version']})"
    return f" v{finding['version']}" if "version" in finding else ""


def write_readme(samples: list[dict[str, Any]]) -> None:
    lines = [README_HEAD]
    for f in samples:
        cps = ", ".join(f"v{v}" for v in f["checkpoints"]) or "—"
        lines.append(
            f"| [`{f['name']}`](#{f['name']}) | {f['engine']} | v0–v{f['latest_version']} | {cps} |\n"
        )
    for f in samples:
        lines.append(f"\n## {f['name']}\n\n**{f['title']}.** {f['engine']}; {f['commits']} commits; "
                     f"data files {f['data_files']}.\n\n")  # fmt: skip
        if "provenance" in f:
            made = f["provenance"]
            lines.append(f"*Provenance.* Written {made['written']} in {made['run_seconds']} s "
                         f"with `{made['command']}`, by {made['engine']}.\n\n")  # fmt: skip
        lines.append(f"*Story.* {f['story']}\n\n*What a user sees.* {f['what_you_see']}\n\n")
        lines.append("*Expected findings.*\n\n")
        for finding in f["findings"]:
            lines.append(f"- **{finding['kind']}**{_where(finding)}: {finding['text']}\n")
    (ROOT / "README.md").write_text("".join(lines))


def main(argv: list[str]) -> int:
    real_spark = "--real-spark" in argv
    names = [a for a in argv if a != "--real-spark"]
    known = [*SAMPLES, *REAL_SPARK_SAMPLES] if real_spark else list(SAMPLES)
    names = names or known
    unknown = [n for n in names if n not in known]
    if unknown:
        hint = " (the real Delta-Spark ones need --real-spark)" if not real_spark else ""
        print(f"unknown sample(s): {', '.join(unknown)}; known: {', '.join(known)}{hint}",
              file=sys.stderr)  # fmt: skip
        return 2
    for name in names:
        build(name)
        print(f"wrote {ROOT / name}")
    expected = [ROOT / name / "expected.json" for name in ORDER]
    write_readme([json.loads(p.read_text()) for p in expected if p.exists()])
    print(f"wrote {ROOT / 'README.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
