"""Raw action frames (from JSON or parquet) -> the normalised frames of ``model.schemas``.

Columnar only: no per-action Python. Missing struct fields (older writers, older checkpoint
schemas) become typed nulls, so every source yields exactly the same columns.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from deltaforensics.model.schemas import (
    CDC_SCHEMA,
    COMMIT_INFO_SCHEMA,
    DOMAIN_SCHEMA,
    FILE_COLUMNS,
    METADATA_SCHEMA,
    PARTITION_VALUES,
    PROTOCOL_SCHEMA,
    TXN_SCHEMA,
    files_schema,
)


def _field(frame: pl.DataFrame, struct: str, name: str, dtype: pl.DataType) -> pl.Expr:
    schema = frame.schema.get(struct)
    if isinstance(schema, pl.Struct) and name in {f.name for f in schema.fields}:
        return pl.col(struct).struct.field(name).cast(dtype, strict=False)
    return pl.lit(None, dtype=dtype)


def _has(frame: pl.DataFrame, column: str) -> bool:
    return column in frame.columns and frame.schema[column] != pl.Null


def rows_with(frame: pl.DataFrame, column: str, *keep: pl.Expr) -> pl.DataFrame:
    """The rows where ``column`` is set, with only that column and those ``keep`` reads.

    Narrowed before filtering: a filter copies every column it keeps, and a raw commit frame
    carries the large ``add``/``commitInfo``/``metaData`` columns on every row (for 600k
    actions, six full-frame filters cost more than the rest of normalising).
    """
    wanted = dict.fromkeys(name for e in keep for name in e.meta.root_names())
    wanted[column] = None
    return frame.select(list(wanted)).filter(pl.col(column).is_not_null())


def _dv_id(frame: pl.DataFrame, struct: str) -> pl.Expr:
    schema = frame.schema.get(struct)
    fields = {f.name: f.dtype for f in schema.fields} if isinstance(schema, pl.Struct) else {}
    dv_type = fields.get("deletionVector")
    if not isinstance(dv_type, pl.Struct):
        return pl.lit("", dtype=pl.String)
    dv = pl.col(struct).struct.field("deletionVector")
    names = {f.name for f in dv_type.fields}
    storage = dv.struct.field("storageType") if "storageType" in names else pl.lit(None, pl.String)
    where = (
        dv.struct.field("pathOrInlineDv") if "pathOrInlineDv" in names else pl.lit(None, pl.String)
    )
    offset = (
        dv.struct.field("offset").cast(pl.String) if "offset" in names else pl.lit(None, pl.String)
    )
    base = pl.concat_str([storage.fill_null(""), where.fill_null("")])
    with_offset = (
        pl.when(offset.is_null()).then(base).otherwise(pl.concat_str([base, pl.lit("@"), offset]))
    )
    return pl.when(storage.is_null() & where.is_null()).then(pl.lit("")).otherwise(with_offset)


def partition_struct_from_json(column: pl.Expr, partition_columns: tuple[str, ...]) -> pl.Expr:
    # anything that is not a JSON object (e.g. "partitionValues": 5) decodes as null instead of
    # failing the whole batch; such a file reads as having no partition values
    as_object = pl.when(column.str.starts_with("{")).then(column).otherwise(pl.lit("{}"))
    return as_object.str.json_decode(pl.Struct(dict.fromkeys(partition_columns, pl.String)))


def _no_partitions() -> pl.Expr:
    return pl.lit(None, dtype=pl.Struct({}))


def partition_struct_from_map(column: pl.Expr, partition_columns: tuple[str, ...]) -> pl.Expr:
    """Parquet ``map<string,string>`` (a list of key/value structs in polars) -> struct."""
    if not partition_columns:
        return _no_partitions()
    return pl.struct(
        [
            column.list.eval(
                pl.element().struct.field("value").filter(pl.element().struct.field("key") == c)
            )
            .list.first()
            .cast(pl.String)
            .alias(c)
            for c in partition_columns
        ]
    )


# How a source holds partition values: JSON text (commits, JSON checkpoints), parquet maps or
# structs; "text" keeps the JSON text undecoded for :func:`decode_partition_values`.
PartitionValuesAs = Literal["json", "map", "text"]
_TEXT_FILES_SCHEMA: dict[str, pl.DataType] = {**FILE_COLUMNS, PARTITION_VALUES: pl.String()}


def file_actions(
    raw: pl.DataFrame,
    *,
    source: str,
    version: pl.Expr,
    partition_columns: tuple[str, ...] = (),
    partition_values: PartitionValuesAs = "json",
    kinds: tuple[str, ...] = ("add", "remove"),
) -> pl.DataFrame:
    """The ``kinds`` of file actions of ``raw`` as rows of ``files_schema(partition_columns)``
    (``partition_values="text"``: with the partition values as their JSON text)."""
    schema = _TEXT_FILES_SCHEMA if partition_values == "text" else files_schema(partition_columns)
    frames: list[pl.DataFrame] = []
    # a checkpoint read in part carries each row's index in the whole file (assembly.SEQ)
    indexed = raw if "_seq" in raw.columns else raw.with_row_index("_seq")
    for kind in kinds:
        if not _has(indexed, kind):
            continue
        rows = rows_with(indexed, kind, version, pl.col("_seq"))
        if rows.is_empty():
            continue
        if partition_values == "map":
            pv = _map_partition_values(rows, kind, partition_columns)
        else:
            pv = _field(rows, kind, "partitionValues", pl.String())
            if partition_values == "json":
                pv = partition_struct_from_json(pv, partition_columns)
        frames.append(
            rows.select(
                version.alias("version"),
                pl.col("_seq").cast(pl.Int64).alias("seq"),
                pl.lit(kind).alias("action"),
                pl.lit(source).alias("source"),
                _field(rows, kind, "path", pl.String()).alias("path"),
                _dv_id(rows, kind).alias("dv_id"),
                _field(rows, kind, "size", pl.Int64()).alias("size"),
                _field(rows, kind, "modificationTime", pl.Int64()).alias("modification_time"),
                _field(rows, kind, "deletionTimestamp", pl.Int64()).alias("deletion_timestamp"),
                _field(rows, kind, "dataChange", pl.Boolean()).alias("data_change"),
                _field(rows, kind, "stats", pl.String()).alias("stats"),
                _tags(rows, kind).alias("tags"),
                _dv_field(rows, kind, "cardinality").alias("dv_cardinality"),
                _field(rows, kind, "baseRowId", pl.Int64()).alias("base_row_id"),
                _field(rows, kind, "defaultRowCommitVersion", pl.Int64()).alias(
                    "default_row_commit_version"
                ),
                _field(rows, kind, "clusteringProvider", pl.String()).alias("clustering_provider"),
                pv.alias(PARTITION_VALUES),
            ).cast(dict(schema))  # type: ignore[arg-type]
        )
    if not frames:
        return pl.DataFrame(schema=schema)
    return pl.concat(frames, how="vertical").select(list(schema))


def decode_partition_values(
    files: pl.DataFrame, partition_columns: tuple[str, ...]
) -> pl.DataFrame:
    """File actions read with ``partition_values="text"`` as ``files_schema(partition_columns)``
    rows: decoded as :func:`file_actions` decodes them, so the two ways give the same frame."""
    dtype = files_schema(partition_columns)[PARTITION_VALUES]
    text = pl.col(PARTITION_VALUES)
    return files.with_columns(partition_struct_from_json(text, partition_columns).cast(dtype))


def _tags(frame: pl.DataFrame, struct: str) -> pl.Expr:
    schema = frame.schema.get(struct)
    fields = {f.name: f.dtype for f in schema.fields} if isinstance(schema, pl.Struct) else {}
    if fields.get("tags") == pl.String:
        return pl.col(struct).struct.field("tags")
    return pl.lit(None, dtype=pl.String)  # parquet maps: tags are not needed by the model


def _dv_field(frame: pl.DataFrame, struct: str, name: str) -> pl.Expr:
    schema = frame.schema.get(struct)
    fields = {f.name: f.dtype for f in schema.fields} if isinstance(schema, pl.Struct) else {}
    dv = fields.get("deletionVector")
    if isinstance(dv, pl.Struct) and name in {f.name for f in dv.fields}:
        return (
            pl.col(struct)
            .struct.field("deletionVector")
            .struct.field(name)
            .cast(pl.Int64, strict=False)
        )
    return pl.lit(None, dtype=pl.Int64)


def _map_partition_values(
    rows: pl.DataFrame, kind: str, partition_columns: tuple[str, ...]
) -> pl.Expr:
    schema = rows.schema.get(kind)
    fields = {f.name: f.dtype for f in schema.fields} if isinstance(schema, pl.Struct) else {}
    pv_type = fields.get("partitionValues")
    if not partition_columns:
        return _no_partitions()
    col = pl.col(kind).struct.field("partitionValues")
    map_type = getattr(pl, "Map", None)
    if map_type is not None and isinstance(
        pv_type, map_type
    ):  # polars >= 2 reads parquet maps natively
        entries = pl.List(pl.Struct({"key": pl.String, "value": pl.String}))
        return partition_struct_from_map(col.cast(entries), partition_columns)
    if isinstance(pv_type, pl.List):
        return partition_struct_from_map(col, partition_columns)
    if isinstance(pv_type, pl.Struct):
        names = {f.name for f in pv_type.fields}
        return pl.struct(
            [
                (
                    col.struct.field(c).cast(pl.String) if c in names else pl.lit(None, pl.String)
                ).alias(c)
                for c in partition_columns
            ]
        )
    if pv_type == pl.String:
        return partition_struct_from_json(col, partition_columns)
    return pl.struct([pl.lit(None, pl.String).alias(c) for c in partition_columns])


def side_actions(
    raw: pl.DataFrame, version: pl.Expr, *, text: bool = True
) -> dict[str, pl.DataFrame]:
    """commitInfo, metaData, protocol, txn, domainMetadata and cdc rows of a parsed frame.

    ``text=False`` for parquet checkpoints, whose metaData/protocol are structs (decoded by
    :mod:`deltaforensics.log.checkpoints`) and which hold no commitInfo.
    """
    out: dict[str, pl.DataFrame] = {}
    if not text:
        raw = raw.drop([c for c in ("commitInfo", "metaData", "protocol") if c in raw.columns])
    out["commit_infos"] = _select_text(
        raw, "commitInfo", "commit_info", version, COMMIT_INFO_SCHEMA
    )
    out["metadata"] = _select_text(raw, "metaData", "metadata", version, METADATA_SCHEMA)
    out["protocols"] = _select_text(raw, "protocol", "protocol", version, PROTOCOL_SCHEMA)
    out["txns"] = _select_struct(
        raw,
        "txn",
        version,
        {
            "app_id": ("appId", pl.String()),
            "txn_version": ("version", pl.Int64()),
            "last_updated": ("lastUpdated", pl.Int64()),
        },
        TXN_SCHEMA,
    )
    out["domains"] = _select_struct(
        raw,
        "domainMetadata",
        version,
        {
            "domain": ("domain", pl.String()),
            "configuration": ("configuration", pl.String()),
            "removed": ("removed", pl.Boolean()),
        },
        DOMAIN_SCHEMA,
    )
    out["cdc"] = _select_struct(
        raw,
        "cdc",
        version,
        {"path": ("path", pl.String()), "size": ("size", pl.Int64())},
        CDC_SCHEMA,
    )
    return out


def _select_text(
    raw: pl.DataFrame, column: str, alias: str, version: pl.Expr, schema: dict[str, pl.DataType]
) -> pl.DataFrame:
    if not _has(raw, column):
        return pl.DataFrame(schema=schema)
    return (
        rows_with(raw, column, version)
        .select(version.alias("version"), pl.col(column).cast(pl.String).alias(alias))
        .cast(dict(schema))  # type: ignore[arg-type]
    )


def _select_struct(
    raw: pl.DataFrame,
    column: str,
    version: pl.Expr,
    fields: dict[str, tuple[str, pl.DataType]],
    schema: dict[str, pl.DataType],
) -> pl.DataFrame:
    if not _has(raw, column):
        return pl.DataFrame(schema=schema)
    rows = rows_with(raw, column, version)
    return rows.select(
        version.alias("version"),
        *[_field(rows, column, src, dtype).alias(dst) for dst, (src, dtype) in fields.items()],
    ).cast(dict(schema))  # type: ignore[arg-type]


__all__ = [
    "FILE_COLUMNS",
    "PartitionValuesAs",
    "decode_partition_values",
    "file_actions",
    "side_actions",
]
