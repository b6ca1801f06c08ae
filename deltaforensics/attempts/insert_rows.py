"""Where the literal rows of an INSERT land: the partitions written and each file's stats."""

from __future__ import annotations

from typing import Any

from deltaforensics.attempts.context import AttemptContext
from deltaforensics.attempts.files import canonical_column, check_partition_columns, partition_text
from deltaforensics.profiles.statement_writers import compact_json
from deltaforensics.statements import UNKNOWN, Value


def written_partitions(
    ctx: AttemptContext,
) -> tuple[list[dict[str, str | None]] | None, list[str | None]]:
    """Partitions (logical values) an INSERT writes and a stats JSON per file, or None."""
    stmt = ctx.stmt
    cols = ctx.cols
    static = {canonical_column(ctx, c): v for c, v in stmt.partition_spec if v is not UNKNOWN}
    schema = list(ctx.md.column_types)
    if stmt.by_name and stmt.row_names is not None:
        positions: list[str] = [canonical_column(ctx, n or "") for n in stmt.row_names]
    elif stmt.insert_columns is not None:
        positions = [canonical_column(ctx, c) for c in stmt.insert_columns]
    else:
        positions = [c for c in schema if c not in static]
    groups: dict[tuple[tuple[str, str | None], ...], list[dict[str, Value]]] = {}
    known = True
    for row in stmt.rows or ():
        named: dict[str, Value] = dict(static)
        named.update(dict(zip(positions, row, strict=False)))
        values: dict[str, str | None] = {}
        for c in cols:
            v = named.get(c, UNKNOWN)
            if v is UNKNOWN:
                known = False
            values[c] = partition_text(v)
        groups.setdefault(tuple(values.items()), []).append(named)
    if ctx.writes is not None:
        check_partition_columns(ctx, list(ctx.writes), "writes")
        given: dict[str, str | None] = {
            canonical_column(ctx, k): str(v) for k, v in ctx.writes.items()
        }
        missing = [c for c in cols if c not in given and c not in static]
        if missing:
            raise ValueError(
                f"writes must give every partition column; missing {', '.join(missing)}"
            )
        merged = {c: given.get(c, partition_text(static.get(c))) for c in cols}
        rows = [r for g in groups.values() for r in g] if known else []
        return [merged], [_stats(ctx, rows)]
    if not cols:
        rows = [r for g in groups.values() for r in g]
        return [{}], [_stats(ctx, rows) if stmt.rows is not None else None]
    if stmt.rows is None:
        if all(c in static for c in cols):
            return [{c: partition_text(static[c]) for c in cols}], [None]
        return None, []
    if not known:
        return None, []
    return [dict(k) for k in groups], [_stats(ctx, g) for g in groups.values()]


def _stats(ctx: AttemptContext, rows: list[dict[str, Value]]) -> str | None:
    """numRecords and min/max of the literal rows an INSERT writes (data columns only)."""
    if not rows:
        return None
    mins: dict[str, Any] = {}
    maxs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    for c in ctx.md.column_types:
        if c in ctx.cols:
            continue
        values = [r.get(c, UNKNOWN) for r in rows]
        if any(v is UNKNOWN for v in values) or len(values) != len(rows):
            continue
        present = [v for v in values if v is not None and not isinstance(v, bool)]
        nulls[ctx.md.physical_name(c)] = sum(v is None for v in values)
        texts = [v for v in present if isinstance(v, str)]
        numbers = [v for v in present if isinstance(v, int | float)]
        name = ctx.md.physical_name(c)
        if texts and len(texts) == len(present):
            mins[name], maxs[name] = min(texts), max(texts)
        elif numbers and len(numbers) == len(present):
            mins[name], maxs[name] = min(numbers), max(numbers)
    return compact_json(
        {"numRecords": len(rows), "minValues": mins, "maxValues": maxs, "nullCount": nulls}
    )
