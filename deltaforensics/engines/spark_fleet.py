"""A fleet of tables in one Spark job: every table's log files fetched at once, each table's
work run on the executor its files land on.

The driver lists each table and names the files its work will read (a run of commits, the
parts of a checkpoint, sidecars, ``_last_checkpoint``). One job reads them all with
``binaryFile`` — every ``_delta_log`` folder listed once with ``pathGlobFilter`` for 20-digit
commits, pruned per table to its commit range by a broadcast join; the other files by path —
tags each file with its table and groups by table (``applyInArrow``). The work function then
gets the table's files as a :class:`FetchedStore`: a :class:`LogStore` over the fetched bytes
that replays the driver's listing. The core readers run on those bytes exactly as they run on
the table's own store, so :func:`fleet_frames` returns what ``PolarsEngine(store).scan(segment)``
returns, frame for frame, and an audit runs unchanged (:mod:`deltaforensics.audit.on_spark`).

A work function that reads a file the job did not fetch (a checkpoint fallback, a file that
vanished) is reported in :attr:`FleetResult.missed`; the caller redoes that table on the driver.
Exceptions travel back as their type and text (:func:`portable_error`), since not every
exception of the core survives pickling.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.engines.spark_engine import (
    COMMIT_GLOB,
    LOCAL_FS_OPTIONS,
    READ_CONF,
    _dir_key,
    _escape_glob,
    _runtime_conf,
    _spark_dir_key,
    spark_log_uri,
)
from deltaforensics.errors import DeltaForensicsError, StorageError
from deltaforensics.log.listing import LogListing
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LOG_DIR, LogStore, StoredFile
from deltaforensics.model.schemas import ActionFrames

LOGGER = logging.getLogger(__name__)

Work = Callable[["FetchedStore", Any], Any]  # (the table's files, its context) -> a result
# A table's result is pickled, LZ4-compressed and cut into chunks: one huge binary value would
# have to fit a JVM buffer whole (a 100,000-commit table's frames did not, in a 1 GiB heap).
RESULT_SCHEMA = "table string, part int, size long, payload binary"
CHUNK_BYTES = 16 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetTable:
    """One table of a fleet job: where Spark reads its log and which files its work needs."""

    key: str  # unique in the job; the name results come back under
    log_uri: str  # where Spark reads the table's _delta_log (see spark_log_uri)
    store_uri: str  # what the FetchedStore reports as its uri
    stored: tuple[StoredFile, ...]  # the driver's listing, replayed by FetchedStore.list_log
    commits: tuple[tuple[int, str], ...] = ()  # consecutive commits (a segment's)
    files: tuple[str, ...] = ()  # other files under _delta_log, by name
    given: tuple[tuple[str, bytes], ...] = ()  # files the driver read (Spark skips _-names)
    context: Any = None  # handed to the work function; pickled with cloudpickle

    @classmethod
    def for_segment(
        cls,
        key: str,
        listing: LogListing,
        segment: LogSegment | None,
        *,
        log_uri: str,
        store: LogStore | None = None,
        context: Any = None,
    ) -> FleetTable:
        """The files a scan of ``segment`` reads, and ``_last_checkpoint`` (``list_log`` reads
        it), which the driver reads from ``store``: Spark's file listing skips names starting
        with ``_``."""
        files: list[str] = []
        given: list[tuple[str, bytes]] = []
        if store is not None and "_last_checkpoint" in listing.sizes:
            # unreadable: the work's list_log misses it, and the table is redone on the driver
            with contextlib.suppress(DeltaForensicsError):
                given.append(("_last_checkpoint", store.read("_last_checkpoint")))
        if segment is not None and segment.checkpoint is not None:
            files += segment.checkpoint.names
            # the sidecars it needs are named inside it; a V2 checkpoint may be classic-named
            files += sorted(listing.sidecars)
        return cls(
            key=key,
            log_uri=log_uri,
            store_uri=listing.uri,
            stored=stored_files(listing),
            commits=segment.commits if segment is not None else (),
            files=tuple(files),
            given=tuple(given),
            context=context,
        )


def stored_files(listing: LogListing) -> tuple[StoredFile, ...]:
    """The store's listing that ``listing`` was made from (``sizes`` keeps it, in order)."""
    return tuple(StoredFile(name, size) for name, size in listing.sizes.items())


@dataclass(slots=True)
class FetchedStore:
    """A :class:`LogStore` over the files a fleet job fetched for one table.

    Lists what the driver listed; reads what the job fetched. An empty file reads as empty
    (Spark plans no split for one, so it never comes back as a row). Any other file is recorded
    in ``missed`` and fails with :class:`StorageError`: its table is redone on the driver.
    """

    uri: str
    stored: tuple[StoredFile, ...]
    files: dict[str, bytes]
    missed: list[str] = field(default_factory=list)

    def list_log(self) -> list[StoredFile]:
        return list(self.stored)

    def read(self, name: str) -> bytes:
        data = self.files.get(name)
        if data is not None:
            return data
        if any(f.name == name and f.size == 0 for f in self.stored):
            return b""
        self.missed.append(name)
        raise StorageError(self.uri, f"{LOG_DIR}/{name} was not fetched by the Spark job")

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        return {n: self.read(n) for n in names}


@dataclass(frozen=True, slots=True)
class FleetResult:
    """A table's result: the work's value, or the exception it raised, and what it missed."""

    value: Any = None
    error: BaseException | None = None
    missed: tuple[str, ...] = ()


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
    # A lambda: pyspark reads a function's type hints to pick the API, and a partial's confuse it.
    grouped = rows.groupBy("table").applyInArrow(
        lambda table: _run_group(work, table), RESULT_SCHEMA
    )
    with _runtime_conf(spark, READ_CONF):
        result = grouped.select("table", "part", "size", "payload").toArrow()
    chunks: dict[str, list[tuple[int, int, bytes]]] = {}
    for key, part, size, payload in zip(
        *(result.column(c).to_pylist() for c in ("table", "part", "size", "payload")), strict=True
    ):
        chunks.setdefault(key, []).append((part, size, payload))
    out: dict[str, FleetResult] = {}
    for key, parts in chunks.items():
        parts.sort()
        status, value, missed = pickle.loads(  # noqa: S301 - our own job's output
            _decompress(b"".join(p for _, _, p in parts), parts[0][1])
        )
        error = rebuild_error(*value) if status == "error" else None
        out[key] = FleetResult(
            value=None if error is not None else value, error=error, missed=tuple(missed)
        )
    return out


def _decompress(data: bytes, size: int) -> bytes:
    import pyarrow as pa  # noqa: PLC0415

    out: bytes = pa.decompress(data, decompressed_size=size, codec="lz4", asbytes=True)
    return out


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


def _reader(spark: Any, log_uris: Sequence[str]) -> Any:
    reader = spark.read.format("binaryFile")
    if any(u.startswith("file:") for u in log_uris):
        reader = reader.options(**LOCAL_FS_OPTIONS)  # stale .crc files break Hadoop's local fs
    return reader


def _commit_files(spark: Any, tables: Sequence[FleetTable]) -> Any:
    """Every listed folder scanned once for commits, joined to each table's commit range."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    uris = sorted({t.log_uri for t in tables})
    ranges = spark.createDataFrame(
        [(t.key, _dir_key(t.log_uri), t.commits[0][1], t.commits[-1][1]) for t in tables],
        "table string, dir string, lo string, hi string",
    )
    found = (
        _reader(spark, uris)
        .option("pathGlobFilter", COMMIT_GLOB)
        .load(uris)
        .select(
            _spark_dir_key(F.col("_metadata.file_path")).alias("dir"),
            F.col("_metadata.file_name").alias("name"),
            F.col("content"),
        )
    )
    picked = found.join(
        F.broadcast(ranges),
        (found["dir"] == ranges["dir"]) & found["name"].between(ranges["lo"], ranges["hi"]),
    )
    return picked.select(ranges["table"], found["name"], found["content"])


def _named_files(spark: Any, named: Sequence[tuple[FleetTable, str]]) -> Any:
    """Checkpoint parts, sidecars and ``_last_checkpoint``, read by path."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    uris = sorted({t.log_uri for t, _ in named})
    paths = sorted({f"{t.log_uri}/{_escape_glob(n)}" for t, n in named})
    wanted = spark.createDataFrame(
        [
            (t.key, _dir_key(f"{t.log_uri}/{n}".rsplit("/", 1)[0]), n.rsplit("/", 1)[-1], n)
            for t, n in named
        ],
        "table string, dir string, base string, name string",
    )
    found = (
        _reader(spark, uris)
        .load(paths)
        .select(
            _spark_dir_key(F.col("_metadata.file_path")).alias("dir"),
            F.col("_metadata.file_name").alias("base"),
            F.col("content"),
        )
    )
    picked = found.join(
        F.broadcast(wanted),
        (found["dir"] == wanted["dir"]) & (found["base"] == wanted["base"]),
    )
    return picked.select(wanted["table"], wanted["name"], found["content"])


def _run_group(work: Work, table: Any) -> Any:
    """On an executor: one table's rows -> its FetchedStore -> ``work`` -> one result row."""
    import pyarrow as pa  # noqa: PLC0415

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
    raw = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    packed: bytes = pa.compress(raw, codec="lz4", asbytes=True)
    pieces = [packed[i : i + CHUNK_BYTES] for i in range(0, len(packed), CHUNK_BYTES)] or [b""]
    return pa.table(
        {
            "table": [key] * len(pieces),
            "part": list(range(len(pieces))),
            "size": [len(raw)] * len(pieces),
            "payload": pieces,
        },
        schema=pa.schema(
            [
                ("table", pa.string()),
                ("part", pa.int32()),
                ("size", pa.int64()),
                ("payload", pa.binary()),
            ]
        ),
    )


def portable_error(exc: BaseException) -> tuple[str, str, str, list[str]]:
    """An exception as (module, class name, text, notes): every exception survives that."""
    notes = [str(n) for n in getattr(exc, "__notes__", [])]
    return (type(exc).__module__, type(exc).__qualname__, str(exc), notes)


def rebuild_error(module: str, name: str, text: str, notes: list[str]) -> BaseException:
    """The exception :func:`portable_error` described: its class, its text, its notes."""
    try:
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            raise TypeError(name)
        exc: BaseException = cls.__new__(cls)
        Exception.__init__(exc, text)
    except Exception:  # a class that cannot be rebuilt keeps its name in the text
        exc = RuntimeError(f"{name}: {text}")
    for note in notes:
        exc.add_note(note)
    return exc


# -- the fleet as frames: what PolarsEngine(store).scan(segment) gives, for many tables ---------


def _scan(with_stats: bool, store: FetchedStore, segment: LogSegment) -> ActionFrames:
    return PolarsEngine(store, with_stats=with_stats).scan(segment)


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
            out[key] = result.error if result.error is not None else result.value
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
]
