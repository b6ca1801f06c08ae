"""A fleet of tables in one Spark job: every table's log files fetched at once, each table's
work run on the executor its files land on.

The driver describes each table as a :class:`~deltaforensics.engines.fleet_store.FleetTable`.
One job reads every file with ``binaryFile`` — every ``_delta_log`` folder listed once with
``pathGlobFilter`` for 20-digit commits, pruned per table to its commit range by a broadcast
join; the other files by path — tags each file with its table and groups by table
(``applyInArrow``) over :func:`work_slots` tasks, a few per core, so the tables' work runs on
every executor core at once. The work function then gets the table's files as a
:class:`~deltaforensics.engines.fleet_store.FetchedStore`. The core readers run on those bytes
exactly as they run on the table's own store, so :func:`fleet_frames` returns what
``PolarsEngine(store).scan(segment)`` returns, frame for frame, and an audit runs unchanged
(:mod:`deltaforensics.audit.on_spark`).

A work function that reads a file the job did not fetch (a checkpoint fallback, a file that
vanished) is reported in :attr:`FleetResult.missed`; the caller redoes that table on the driver.
Results come back as :mod:`~deltaforensics.engines.fleet_results` packs them.
"""

from __future__ import annotations

import functools
import logging
import pickle
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from deltaforensics.engines.fleet_results import (
    RESULT_SCHEMA,
    FleetResult,
    pack_outcome,
    portable_error,
    rebuild_error,
    unpack_results,
)
from deltaforensics.engines.fleet_store import FetchedStore, FleetTable, stored_files
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.engines.spark_paths import (
    COMMIT_GLOB,
    escape_glob,
    log_dir_key,
    spark_dir_key,
    spark_log_uri,
    spark_reader,
)
from deltaforensics.engines.spark_session import READ_CONF, runtime_conf
from deltaforensics.log.file_stats import LogFileStats
from deltaforensics.log.listing import LogListing
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore, StoredFile
from deltaforensics.model.schemas import ActionFrames

LOGGER = logging.getLogger(__name__)

TASKS_PER_CORE = 4
Work = Callable[[FetchedStore, Any], Any]  # (the table's files, its context) -> a result


def run_fleet(spark: Any, tables: Sequence[FleetTable], work: Work) -> dict[str, FleetResult]:
    """Fetch every table's files in one Spark job and run ``work`` once per table on them.

    ``work`` and each context are pickled with cloudpickle and run on the executors, which need
    deltaforensics installed; its value must pickle. Results are keyed by :attr:`FleetTable.key`.
    """

    if not tables:
        return {}
    keys = [t.key for t in tables]
    if len(set(keys)) != len(keys):
        raise ValueError("fleet table keys must be unique")
    parts = [_contexts(spark, tables)]
    with_commits = [t for t in tables if t.commits]
    if with_commits:
        parts.append(_commit_files(spark, with_commits))
    named = [(t, n) for t in tables for n in t.files]
    if named:
        parts.append(_named_files(spark, named))
    rows = functools.reduce(lambda a, b: a.unionByName(b), parts)
    # Spread the tables over every core: left to itself, adaptive execution packs the small
    # shuffle into one partition, and one Python worker would analyse every table in turn. A
    # repartition with a fixed count is never coalesced, and it already clusters the rows by
    # table, so the groupBy below adds no second shuffle.
    rows = rows.repartition(work_slots(spark, len(tables)), "table")
    # A lambda: pyspark reads a function's type hints to pick the API, and a partial's confuse it.
    grouped = rows.groupBy("table").applyInArrow(
        lambda table: _run_group(work, table), RESULT_SCHEMA
    )
    with runtime_conf(spark, READ_CONF):
        result = grouped.select("table", "part", "size", "payload").toArrow()
    return unpack_results(result)


def work_slots(spark: Any, tables: int) -> int:
    """How many tasks the per-table work is cut into: a few per core, so that a core done with
    its cheap tables takes another task while a costly table still runs; never more than one
    task per table."""
    cores = max(1, int(spark.sparkContext.defaultParallelism))
    return max(1, min(tables, TASKS_PER_CORE * cores))


def _contexts(spark: Any, tables: Sequence[FleetTable]) -> Any:
    """One row per table (``name`` null) carrying what its group needs: it also makes sure a
    table with no file to read still gets its group."""
    from pyspark import cloudpickle  # noqa: PLC0415
    from pyspark.sql import types as T  # noqa: N812, PLC0415

    schema = T.StructType(
        [
            T.StructField("table", T.StringType()),
            T.StructField("name", T.StringType()),
            T.StructField("content", T.BinaryType()),
        ]
    )
    dumps: Callable[[Any], bytes] = cloudpickle.dumps
    data = [(t.key, None, dumps((t.store_uri, t.stored, t.given, t.context))) for t in tables]
    return spark.createDataFrame(data, schema)


def _found(reader: Any, paths: Sequence[str], name: str) -> Any:
    """Every file a ``binaryFile`` load returns: its folder (as ``log_dir_key`` renders it),
    its file name (as ``name``) and its bytes."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    return (
        reader.format("binaryFile")
        .load(list(paths))
        .select(
            spark_dir_key(F.col("_metadata.file_path")).alias("dir"),
            F.col("_metadata.file_name").alias(name),
            F.col("content"),
        )
    )


def _commit_files(spark: Any, tables: Sequence[FleetTable]) -> Any:
    """Every listed folder scanned once for commits, joined to each table's commit range."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    uris = sorted({t.log_uri for t in tables})
    ranges = spark.createDataFrame(
        [(t.key, log_dir_key(t.log_uri), t.commits[0][1], t.commits[-1][1]) for t in tables],
        "table string, dir string, lo string, hi string",
    )
    reader = spark_reader(spark, *uris).option("pathGlobFilter", COMMIT_GLOB)
    found = _found(reader, uris, "name")
    picked = found.join(
        F.broadcast(ranges),
        (found["dir"] == ranges["dir"]) & found["name"].between(ranges["lo"], ranges["hi"]),
    )
    return picked.select(ranges["table"], found["name"], found["content"])


def _named_files(spark: Any, named: Sequence[tuple[FleetTable, str]]) -> Any:
    """Checkpoint parts, sidecars and ``_last_checkpoint``, read by path."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    uris = sorted({t.log_uri for t, _ in named})
    paths = sorted({f"{t.log_uri}/{escape_glob(n)}" for t, n in named})
    wanted = spark.createDataFrame(
        [
            (t.key, log_dir_key(f"{t.log_uri}/{n}".rsplit("/", 1)[0]), n.rsplit("/", 1)[-1], n)
            for t, n in named
        ],
        "table string, dir string, base string, name string",
    )
    found = _found(spark_reader(spark, *uris), paths, "base")
    picked = found.join(
        F.broadcast(wanted),
        (found["dir"] == wanted["dir"]) & (found["base"] == wanted["base"]),
    )
    return picked.select(wanted["table"], wanted["name"], found["content"])


def _run_group(work: Work, table: Any) -> Any:
    """On an executor: one table's rows -> its FetchedStore -> ``work`` -> its result rows."""
    key = table.column("table")[0].as_py()
    files: dict[str, bytes] = {}
    context: tuple[str, tuple[StoredFile, ...], tuple[tuple[str, bytes], ...], Any] | None = None
    for name, content in zip(
        table.column("name").to_pylist(), table.column("content").to_pylist(), strict=True
    ):
        if name is None:
            context = pickle.loads(content)  # noqa: S301 - written by run_fleet
        else:
            files[name] = content
    assert context is not None, "every table has a context row"
    uri, stored, given, extra = context
    store = FetchedStore(uri=uri, stored=stored, files={**dict(given), **files})
    try:
        outcome: tuple[str, Any, list[str]] = ("ok", work(store, extra), store.missed)
    except Exception as exc:  # handed back to the driver, which reports it per table
        outcome = ("error", portable_error(exc), store.missed)
    return pack_outcome(key, outcome)


# -- the fleet as frames: what PolarsEngine(store).scan(segment) gives, for many tables ---------


def _scan(with_stats: bool, store: FetchedStore, segment: LogSegment) -> ActionFrames:
    # without the reader of statistics: it holds the fetched bytes, which stay on the executor
    # (the driver gives the frames one over the table's own store)
    return replace(PolarsEngine(store, with_stats=with_stats).scan(segment), file_stats=None)


def fleet_frames(
    spark: Any,
    tables: Sequence[tuple[str, LogStore, LogListing, LogSegment]],
    *,
    with_stats: bool = True,
) -> dict[str, ActionFrames | BaseException]:
    """Scan many segments in one Spark job: per key, the frames or the exception of a scan.

    Each value is what ``PolarsEngine(store, with_stats=with_stats).scan(segment)`` returns or
    raises. A table Spark cannot reach (``memory://``, no Hadoop scheme) or whose scan missed a
    file is scanned on the driver through its store.
    """
    by_key = {key: (store, segment) for key, store, _, segment in tables}
    fleet: list[FleetTable] = []
    for key, store, listing, segment in tables:
        log_uri = spark_log_uri(store)
        if log_uri is not None:
            fleet.append(
                FleetTable.for_segment(
                    key, listing, segment, log_uri=log_uri, store=store, context=segment
                )
            )
    results = run_fleet(spark, fleet, functools.partial(_scan, with_stats))
    out: dict[str, ActionFrames | BaseException] = {}
    for key, (store, segment) in by_key.items():
        result = results.get(key)
        if result is not None and not result.missed:
            value = result.error if result.error is not None else result.value
            if isinstance(value, ActionFrames) and not with_stats:
                value = replace(value, file_stats=LogFileStats(store, segment))
            out[key] = value
            continue
        if result is not None:
            LOGGER.warning("%s: %s not fetched by Spark; scanned on the driver", key, result.missed)
        try:
            out[key] = PolarsEngine(store, with_stats=with_stats).scan(segment)
        except Exception as exc:  # as on Spark: whatever the scan raises is the table's result
            out[key] = exc
    return out


__all__ = [
    "FetchedStore",
    "FleetResult",
    "FleetTable",
    "fleet_frames",
    "portable_error",
    "rebuild_error",
    "run_fleet",
    "stored_files",
    "work_slots",
]
