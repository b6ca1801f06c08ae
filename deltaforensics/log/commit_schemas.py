"""The schemas a commit file is parsed with: every action field (``RAW_ACTION_SCHEMA``), or all
but the file actions' statistics and tags (``WITHOUT_STATS_SCHEMA``), and a frame of the one
narrowed to the other."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from deltaforensics.model.schemas import RAW_ACTION_SCHEMA

Schema = Mapping[str, pl.DataType]


def without_version(schema: Schema) -> Schema:
    return {k: v for k, v in schema.items() if k != "_v"}


# The file actions' statistics and tags are most of a log's bytes, and a String column takes
# whatever JSON they hold (the exact path too), so a reader that needs neither (history)
# parses without them and skips no check: 411 MB at 100,000 commits parse ~1 CPU s faster
# and are let go at once (issue #23).
_UNREAD_FILE_FIELDS = ("stats", "tags")


WITHOUT_STATS_SCHEMA: Schema = {
    k: pl.Struct([f for f in v.fields if f.name not in _UNREAD_FILE_FIELDS])
    if k in ("add", "remove") and isinstance(v, pl.Struct)
    else v
    for k, v in RAW_ACTION_SCHEMA.items()
}


def narrowed(frame: pl.DataFrame, schema: Schema) -> pl.DataFrame:
    """An exact-path frame (``RAW_ACTION_SCHEMA``) with only the fields of ``schema``."""
    if schema is RAW_ACTION_SCHEMA:
        return frame
    columns = []
    for name, dtype in schema.items():
        column = pl.col(name)
        if isinstance(dtype, pl.Struct) and dtype != frame.schema[name]:
            fields = [column.struct.field(f.name) for f in dtype.fields]
            column = pl.when(column.is_not_null()).then(pl.struct(fields)).alias(name)
        columns.append(column)
    return frame.select(columns)


def without_file_stats(frame: pl.DataFrame) -> pl.DataFrame:
    """A raw commit frame (``RAW_ACTION_SCHEMA``) as ``read_commits(..., with_stats=False)``
    returns it: the add and remove actions without ``stats`` and ``tags`` (another engine's
    parse, made to match)."""
    return narrowed(frame, WITHOUT_STATS_SCHEMA)
