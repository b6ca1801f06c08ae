"""The file rows an attempt would remove and add, shaped like the replayed files frame.

Removals are live files at the read version that a condition may match (partition values and
min/max stats); additions are synthetic files, one per partition written, with the stats of the
literal rows when the statement shows them. Both carry ``source`` :data:`ATTEMPT_SOURCE`.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

import polars as pl

from deltaforensics.attempts.context import AttemptContext
from deltaforensics.model.schemas import FILE_COLUMNS, PARTITION_VALUES, files_schema
from deltaforensics.predicates.ir import column_refs
from deltaforensics.predicates.parse import parse_predicate
from deltaforensics.predicates.stats import may_match_stats
from deltaforensics.statements import UNKNOWN, Value

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


ATTEMPT_SOURCE = "attempt"  # ``source`` of the synthetic file rows


def matching_files(
    ctx: AttemptContext, condition: str | None, files: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Live files at the read version the condition may match (partition values, min/max stats)."""
    live = ctx.live if files is None else files
    if not condition or live.is_empty():
        return live
    expr = may_match_stats(
        parse_predicate(condition),
        ctx.cols,
        types=ctx.md.column_types,
        name_map={c: ctx.md.physical_name(c) for c in ctx.md.column_types},
        fields=list(ctx.fields),
    )
    return live.filter(expr)


def removed_frame(ctx: AttemptContext, files: pl.DataFrame, data_change: bool) -> pl.DataFrame:
    schema = files_schema(ctx.fields)
    exprs = []
    for name, dtype in schema.items():
        if name == "action":
            exprs.append(pl.lit("remove", pl.String).alias(name))
        elif name == "source":
            exprs.append(pl.lit(ATTEMPT_SOURCE, pl.String).alias(name))
        elif name == "data_change":
            exprs.append(pl.lit(data_change, pl.Boolean).alias(name))
        elif name in files.columns and name not in ("version", "deletion_timestamp"):
            exprs.append(pl.col(name).cast(dtype))
        else:
            exprs.append(pl.lit(None, dtype).alias(name))
    return files.select(exprs)


def partition_text(value: Value) -> str | None:
    if value is None or value is UNKNOWN:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def added_frame(
    ctx: AttemptContext, files: list[tuple[dict[str, str | None], str | None]], data_change: bool
) -> pl.DataFrame:
    schema = files_schema(ctx.fields)
    rows = []
    for i, (values, stats) in enumerate(files):
        dirs = "/".join(
            f"{c}={quote(v, safe='') if v is not None else HIVE_NULL}" for c, v in values.items()
        )
        physical = {ctx.md.physical_name(c): v for c, v in values.items()}
        rows.append(
            {
                **dict.fromkeys(FILE_COLUMNS),
                "seq": i,
                "action": "add",
                "source": ATTEMPT_SOURCE,
                "path": f"{dirs + '/' if dirs else ''}part-{i:05d}-attempt.parquet",
                "dv_id": "",
                "data_change": data_change,
                "stats": stats,
                PARTITION_VALUES: {f: physical.get(f) for f in ctx.fields},
            }
        )
    return pl.DataFrame(rows, schema=schema)


def partitions_of(ctx: AttemptContext, files: pl.DataFrame) -> list[dict[str, str | None]]:
    """Distinct logical partition values of some live files (one ``{}`` if unpartitioned)."""
    if files.is_empty():
        return []
    if not ctx.cols:
        return [{}]
    return _logical_partition_values(ctx, files).unique(maintain_order=True).to_dicts()


def partition_rows(ctx: AttemptContext, files: pl.DataFrame) -> list[dict[str, str | None]]:
    """The logical partition values of each file, in row order."""
    if not ctx.cols:
        return [{} for _ in range(files.height)]
    return _logical_partition_values(ctx, files).to_dicts()


def _logical_partition_values(ctx: AttemptContext, files: pl.DataFrame) -> pl.DataFrame:
    """One column per partition column, by its logical name (null where the log has no field)."""
    names = set(ctx.fields)
    return files.select(
        (
            pl.col(PARTITION_VALUES).struct.field(ctx.md.physical_name(c))
            if ctx.md.physical_name(c) in names
            else pl.lit(None, pl.String)
        ).alias(c)
        for c in ctx.cols
    )


def rewritten_partitions(
    ctx: AttemptContext, removed: pl.DataFrame
) -> list[tuple[dict[str, str | None], str | None]]:
    return [(p, None) for p in partitions_of(ctx, removed)]


def partition_only(ctx: AttemptContext, condition: str | None) -> bool:
    if not condition or not ctx.cols:
        return condition is None
    keys = {c.lower() for c in ctx.cols}
    refs = column_refs(parse_predicate(condition))
    return bool(refs) and all(r.key in keys for r in refs)


def check_partition_columns(ctx: AttemptContext, names: Sequence[str], where: str) -> None:
    known = {c.lower() for c in ctx.cols}
    bad = [n for n in names if n.lower() not in known]
    if bad:
        raise ValueError(
            f"{where} names {', '.join(bad)}, which is not a partition column "
            f"(partition columns: {', '.join(ctx.cols) or 'none'})"
        )


def canonical_column(ctx: AttemptContext, name: str) -> str:
    return next((c for c in ctx.md.column_types if c.lower() == name.lower()), name)
