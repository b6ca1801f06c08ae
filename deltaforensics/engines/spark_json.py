"""Spark's JSON reader as the core's commit parser: its rows made the core's raw frame.

``spark.read.json`` gets an explicit schema derived from :data:`RAW_ACTION_SCHEMA`. Spark
returns a free-form object typed as a string (``commitInfo``, ``partitionValues``, ...) as its
*source text* while polars re-renders it, so each such text is parsed once more by polars
(:func:`_polars_rendering`). A file the core reads line by line (escapes polars would mangle,
see :mod:`deltaforensics.log.commit_fallback`) and anything Spark cannot read cleanly (a
corrupt line, a wrong type, a non-object where an object belongs) is left to the core reader:
the rows say which (:func:`spark_json_rows`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, Literal

import polars as pl
from polars.datatypes import DataTypeClass

from deltaforensics.log.commit_fallback import ESCAPES_POLARS_MANGLES
from deltaforensics.model.schemas import KNOWN_ACTIONS, RAW_ACTION_SCHEMA

JsonParser = Literal["polars", "spark"]
PolarsDataType = pl.DataType | DataTypeClass

# Free-form JSON objects that RAW_ACTION_SCHEMA types as String; every other String field holds
# a JSON string in the protocol. tests/engines checks that each String field is one or the other.
FREE_FORM: tuple[tuple[str, ...], ...] = (
    ("commitInfo",),
    ("metaData",),
    ("protocol",),
    ("checkpointMetadata",),
    ("add", "partitionValues"),
    ("add", "tags"),
    ("remove", "partitionValues"),
    ("remove", "tags"),
    ("cdc", "partitionValues"),
    ("sidecar", "tags"),
)
CORRUPT = "_corrupt_record"
JSON_OPTIONS = {
    "mode": "PERMISSIVE",
    "columnNameOfCorruptRecord": CORRUPT,
    "allowNonNumericNumbers": "false",  # NaN is not JSON; polars rejects it too
}
# In the source text: an escape the core's fast path would mangle (log.commit_fallback); in a decoded
# JSON string: a character that only an escape can have written (a backslash, a control
# character other than a newline).
_MANGLED_ESCAPE = ESCAPES_POLARS_MANGLES.pattern.decode()  # the core's own rule
_ESCAPED_CHARACTER = r"[\\\x00-\x09\x0b-\x1f]"


def spark_raw_schema() -> Any:
    """RAW_ACTION_SCHEMA (less ``_v``) as a Spark schema, plus the corrupt-record column."""
    from pyspark.sql import types as T  # noqa: N812, PLC0415

    def convert(dtype: PolarsDataType) -> Any:
        if isinstance(dtype, pl.Struct):
            return T.StructType([T.StructField(f.name, convert(f.dtype)) for f in dtype.fields])
        if dtype == pl.String:
            return T.StringType()
        if dtype == pl.Int64:
            return T.LongType()
        if dtype == pl.Boolean:
            return T.BooleanType()
        raise TypeError(f"no Spark type for {dtype}")  # a new dtype in the contract

    fields = [T.StructField(k, convert(v)) for k, v in RAW_ACTION_SCHEMA.items() if k != "_v"]
    return T.StructType([*fields, T.StructField(CORRUPT, T.StringType())])


def json_columns(version: Any) -> list[Any]:
    """The columns of a Spark JSON read that the core's frame and its row order need."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    return [
        version.alias("_v"),
        F.col("_metadata.file_name").alias("_file"),
        F.col("_metadata.file_block_start").alias("_block"),
        F.monotonically_increasing_id().alias("_row"),  # rises with the line inside a split
        *KNOWN_ACTIONS,
        CORRUPT,
    ]


def spark_json_rows(frame: pl.DataFrame, names: list[str]) -> tuple[pl.DataFrame, set[int]] | None:
    """Rows of :func:`json_actions` as the core's raw frame, in file and line order.

    Returns the rows of the files the core parses fast, rendered as polars renders them, and
    the versions the core parses line by line (their rows left out). None when a line is
    malformed or a free-form value is not an object: the whole segment is then the core's.
    """
    order = {n: i for i, n in enumerate(names)}
    frame = (
        frame.filter(pl.col("_file").is_in(list(order)))
        .sort(pl.col("_file").replace_strict(order, return_dtype=pl.Int64), "_block", "_row")
        .drop("_file", "_block", "_row")
    )
    if frame[CORRUPT].null_count() != frame.height:
        return None
    raw = frame.drop(CORRUPT).cast(RAW_ACTION_SCHEMA)  # type: ignore[arg-type]
    escaped = set(raw.filter(_escape_evidence())["_v"].unique().to_list())
    rendered = _polars_rendering(raw.filter(~pl.col("_v").is_in(list(escaped))))
    return None if rendered is None else (rendered, escaped)


def _string_leaves(prefix: tuple[str, ...], dtype: PolarsDataType) -> Iterator[tuple[str, ...]]:
    if isinstance(dtype, pl.Struct):
        for f in dtype.fields:
            yield from _string_leaves((*prefix, f.name), f.dtype)
    elif dtype == pl.String:
        yield prefix


def _escape_evidence() -> pl.Expr:
    """Rows whose file the core reads line by line (``log.commit_fallback``: escapes it would mangle).

    Exact for free-form objects (Spark keeps their source text); for JSON strings, which Spark
    decodes, only characters no writer can put in a string unescaped are evidence.
    """
    strings = [p for k, v in RAW_ACTION_SCHEMA.items() for p in _string_leaves((k,), v)]
    checks = [
        _free_form_expr(p).str.contains(_MANGLED_ESCAPE if p in FREE_FORM else _ESCAPED_CHARACTER)
        for p in strings
    ]
    return pl.any_horizontal(checks).fill_null(value=False)


def _free_form_expr(path: tuple[str, ...]) -> pl.Expr:
    expr = pl.col(path[0])
    for name in path[1:]:
        expr = expr.struct.field(name)
    return expr


def _polars_rendering(raw: pl.DataFrame) -> pl.DataFrame | None:
    """Replace Spark's source text of every free-form object with polars' rendering of it.

    None when a value is not a JSON object (a string or a number where Delta puts an object):
    only the core reader knows what the polars engine makes of that.
    """
    paths = [p for p in FREE_FORM if p[0] in raw.columns]
    if raw.is_empty() or not paths:
        return raw
    texts = raw.select(_free_form_expr(p).alias(f"c{i}") for i, p in enumerate(paths))
    not_object = pl.any_horizontal(
        pl.col(c).is_not_null() & ~pl.col(c).str.starts_with("{") for c in texts.columns
    )
    if texts.select(not_object.any()).item():
        return None
    parts: list[pl.Expr] = []
    for i, c in enumerate(texts.columns):
        parts += [pl.lit(("{" if i == 0 else ",") + f'"{c}":'), pl.col(c).fill_null("null")]
    lines = texts.select(pl.concat_str([*parts, pl.lit("}")]).str.join("\n")).item()
    try:
        rendered = pl.read_ndjson(
            io.BytesIO(lines.encode()), schema=dict.fromkeys(texts.columns, pl.String)
        )
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if rendered.height != raw.height:
        return None
    columns: dict[str, pl.Expr] = {}
    for i, path in enumerate(paths):
        top = path[0]
        if len(path) == 1:
            columns[top] = pl.col(f"c{i}")
            continue
        base = columns.get(top, pl.col(top))
        columns[top] = (
            pl.when(pl.col(top).is_not_null())
            .then(base.struct.with_fields(pl.col(f"c{i}").alias(path[1])))
            .otherwise(None)
        )
    return raw.with_columns(rendered).with_columns(**columns).select(raw.columns)


__all__ = [
    "CORRUPT",
    "FREE_FORM",
    "JSON_OPTIONS",
    "JsonParser",
    "json_columns",
    "spark_json_rows",
    "spark_raw_schema",
]
