"""What the Spark engine asks Spark to read: commits, checkpoint parts, sidecars, whole files.

Commits are found with one listing of ``_delta_log`` (``pathGlobFilter`` for 20-digit names,
then a ``_metadata.file_name`` range that Spark uses to prune files); checkpoints and sidecars
are read with ``spark.read.parquet``. Rows cross to the driver once, as Arrow. A checkpoint's
parts are assembled by :mod:`deltaforensics.log.assembly`, as the polars engine's are.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl

from deltaforensics.engines.spark_json import (
    JSON_OPTIONS,
    JsonParser,
    json_columns,
    spark_json_rows,
    spark_raw_schema,
)
from deltaforensics.engines.spark_paths import (
    COMMIT_GLOB,
    escape_glob,
    spark_dir_key,
    spark_reader,
)
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.assembly import (
    CHECKPOINT_ACTIONS,
    CheckpointPart,
    RawCheckpoint,
    assemble_checkpoint,
    sidecar_paths,
)
from deltaforensics.log.commit_reader import read_commits
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.storage import LOG_DIR, LogStore
from deltaforensics.model.schemas import RAW_ACTION_SCHEMA

Commits = tuple[tuple[int, str], ...]

_FILE_FIELDS = {
    kind: {f.name for f in dtype.fields}
    for kind, dtype in RAW_ACTION_SCHEMA.items()
    if kind in ("add", "remove") and isinstance(dtype, pl.Struct)
}


def to_polars(table: Any) -> pl.DataFrame:
    """An Arrow table Spark returned, as a polars frame."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _listed(
    spark: Any, log_uri: str, fmt: str, commits: Commits, schema: Any = None, **options: str
) -> Any:
    """The folder read as ``fmt``, pruned to the named commits (one listing, no other file)."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    names = [n for _, n in commits]
    reader = spark_reader(spark, log_uri).format(fmt).options(pathGlobFilter=COMMIT_GLOB, **options)
    df = (reader.schema(schema) if schema is not None else reader).load(log_uri)
    listed = {f.rsplit("/", 1)[-1] for f in df.inputFiles()}
    missing = [n for n in names if n not in listed]
    if missing:
        raise FileNotFoundError(f"{LOG_DIR}/{missing[0]} is not visible to Spark")
    return df.where(F.col("_metadata.file_name").between(min(names), max(names)))


def commit_bytes(spark: Any, log_uri: str, commits: Commits) -> Any:
    """A Spark DataFrame of the named commits' bytes (``_file``, ``content``)."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    df = _listed(spark, log_uri, "binaryFile", commits)
    return df.select(F.col("_metadata.file_name").alias("_file"), "content")


def json_actions(spark: Any, log_uri: str, commits: Commits, *, files: bool = False) -> Any:
    """A Spark DataFrame of the named files' action rows, with what orders them.

    ``files=False`` reads commits through the folder listing; ``files=True`` reads the names as
    files (a JSON checkpoint), all at the first version.
    """
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    schema = spark_raw_schema()
    if files:
        reader = spark_reader(spark, log_uri).schema(schema).options(**JSON_OPTIONS)
        df = reader.json([f"{log_uri}/{escape_glob(n)}" for _, n in commits])
        version = F.lit(commits[0][0]).cast("long")
    else:
        df = _listed(spark, log_uri, "json", commits, schema, **JSON_OPTIONS)
        version = F.regexp_extract("_metadata.file_name", r"^([0-9]{20})\.json$", 1).cast("long")
    return df.select(*json_columns(version))


def many_commits(
    spark: Any, log_uris: list[str], tables: list[tuple[str, Commits]], parser: JsonParser
) -> Any:
    """One scan over many ``_delta_log`` folders, pruned to each table's commits.

    Rows carry ``_dir`` (:func:`~deltaforensics.engines.spark_paths.log_dir_key` of their
    folder) so they can be handed back.
    """
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    reader = spark_reader(spark, *log_uris).option("pathGlobFilter", COMMIT_GLOB)
    if parser == "spark":
        df = reader.schema(spark_raw_schema()).options(**JSON_OPTIONS).json(log_uris)
    else:
        df = reader.format("binaryFile").load(log_uris)
    folder = spark_dir_key(F.col("_metadata.file_path"))
    name = F.col("_metadata.file_name")
    wanted = functools.reduce(
        lambda a, b: a | b,
        [
            (folder == key) & name.between(min(n for _, n in c), max(n for _, n in c))
            for key, c in tables
        ],
    )
    df = df.where(wanted)
    if parser == "spark":
        columns = json_columns(F.regexp_extract(name, r"^([0-9]{20})\.json$", 1).cast("long"))
    else:
        columns = [name.alias("_file"), F.col("content")]
    return df.select(*columns, folder.alias("_dir"))


def read_spark_checkpoint(
    spark: Any,
    log_uri: str,
    cp: CheckpointFiles,
    *,
    with_stats: bool = True,
    json_parser: JsonParser = "polars",
) -> RawCheckpoint:
    """:func:`~deltaforensics.log.checkpoints.read_checkpoint` with Spark doing the reading;
    the same frames, row for row."""
    parts = [
        CheckpointPart.from_json(_json_checkpoint(spark, log_uri, cp.version, name, json_parser))
        for name in cp.names
        if name.endswith(".json")
    ]
    parquet_names = [n for n in cp.names if not n.endswith(".json")]
    parquet_frames = read_parquet_frames(spark, log_uri, parquet_names, with_stats=with_stats)
    parts += [
        CheckpointPart.from_parquet(name, frame, cp.version)
        for name, frame in zip(parquet_names, parquet_frames, strict=True)
    ]
    sidecars = read_parquet_frames(spark, log_uri, sidecar_paths(parts), with_stats=with_stats)
    return assemble_checkpoint(cp, parts, sidecars)


def _json_checkpoint(
    spark: Any, log_uri: str, version: int, name: str, json_parser: JsonParser
) -> pl.DataFrame:
    """A V2 JSON checkpoint's rows, parsed like a commit at the checkpoint's version."""
    if json_parser == "spark":
        query = json_actions(spark, log_uri, ((version, name),), files=True)
        parsed = spark_json_rows(to_polars(query.toArrow()), [name])
        if parsed is not None and not parsed[1]:
            return parsed[0]
    data = spark_bytes(spark, log_uri, [name])[name]
    return read_commits([(version, name, data)])


def read_parquet_frames(
    spark: Any, log_uri: str, names: list[str], *, with_stats: bool = True
) -> list[pl.DataFrame]:
    """One frame per parquet file, in ``names`` order, rows in file order, in one Spark job.

    add/remove keep only the fields the contract reads, so Spark never decodes
    ``stats_parsed`` (nor ``stats`` when ``with_stats`` is off).
    """
    from pyspark.sql import functions as F  # noqa: N812, PLC0415
    from pyspark.sql import types as T  # noqa: N812, PLC0415

    if not names:
        return []
    paths = [f"{log_uri}/{escape_glob(n)}" for n in names]
    reader = spark_reader(spark, log_uri).option("mergeSchema", str(len(paths) > 1).lower())
    df = reader.parquet(*paths)
    columns: list[Any] = []
    for column in (c for c in CHECKPOINT_ACTIONS if c in df.columns):
        dtype = df.schema[column].dataType
        keep = _FILE_FIELDS.get(column, set()) - (set() if with_stats else {"stats"})
        if isinstance(dtype, T.StructType) and keep:
            drop = [f.name for f in dtype.fields if f.name not in keep]
        else:
            drop = []
        if drop:
            columns.append(F.col(column).dropFields(*drop).alias(column))
        else:
            columns.append(column)
    table = df.select(
        *columns,
        F.col("_metadata.file_name").alias("_file"),
        F.col("_metadata.row_index").alias("_row"),
    ).toArrow()
    frame = to_polars(table)
    by_file = {
        key[0]: part.sort("_row").drop("_file", "_row")
        for key, part in frame.partition_by("_file", as_dict=True).items()
    }
    empty = frame.clear().drop("_file", "_row")
    return [by_file.get(n.rsplit("/", 1)[-1], empty) for n in names]


def read_bytes(store: LogStore, spark: Any, log_uri: str, names: list[str]) -> dict[str, bytes]:
    """Files' bytes from the store, or through Spark when only Spark can reach them."""
    if not names:
        return {}
    try:
        return store.read_many(names)
    except DeltaForensicsError:
        return spark_bytes(spark, log_uri, names)


def spark_bytes(spark: Any, log_uri: str, names: list[str]) -> dict[str, bytes]:
    """Named files under ``_delta_log`` read whole by Spark (``binaryFile``)."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    paths = [f"{log_uri}/{escape_glob(n)}" for n in names]
    df = spark_reader(spark, log_uri).format("binaryFile").load(paths)
    table = df.select(F.col("_metadata.file_name").alias("_file"), "content").toArrow()
    got = dict(
        zip(table.column("_file").to_pylist(), table.column("content").to_pylist(), strict=True)
    )
    return {n: got.get(n.rsplit("/", 1)[-1], b"") for n in names}


__all__ = [
    "Commits",
    "commit_bytes",
    "json_actions",
    "many_commits",
    "read_bytes",
    "read_parquet_frames",
    "read_spark_checkpoint",
    "spark_bytes",
    "to_polars",
]
