"""INSERT INTO, INSERT OVERWRITE and REPLACE WHERE: Delta's ``WRITE`` operation.

An append, a static or dynamic partition overwrite, a replaceWhere, a whole-table overwrite;
and, for Delta-Spark, what an ``INSERT … SELECT`` over its own target reads (A.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import (
    check_partition_columns,
    matching_files,
    partition_rows,
    partition_text,
    removed_frame,
)
from deltaforensics.attempts.insert_rows import written_partitions
from deltaforensics.predicates.ir import TRUE
from deltaforensics.predicates.parse import parse_predicate
from deltaforensics.predicates.partition import partition_read_predicate
from deltaforensics.profiles.statement_writers import compact_json
from deltaforensics.statements import UNKNOWN, normalise_condition
from deltaforensics.transactions import Reads, reads_matching


def _partition_by(ctx: AttemptContext) -> str:
    return compact_json(list(ctx.cols))


def _equalities(values: Mapping[str, str | None]) -> str:
    return " AND ".join(
        f"{c} IS NULL" if v is None else f"{c} = '{_escape(v)}'" for c, v in values.items()
    )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


def plan_insert(ctx: AttemptContext, replace_where: str | None, mode: str | None) -> WritePlan:
    stmt = ctx.stmt
    if replace_where is not None and stmt.replace_where is not None:
        raise ValueError("the statement has REPLACE WHERE already; drop --replace-where")
    rw = replace_where if replace_where is not None else stmt.replace_where
    static = {c: v for c, v in stmt.partition_spec if v is not UNKNOWN}
    dynamic_cols = [c for c, v in stmt.partition_spec if v is UNKNOWN]
    check_partition_columns(ctx, [c for c, _ in stmt.partition_spec], "PARTITION")
    partitions, stats = written_partitions(ctx)
    params: dict[str, Any] = {"mode": "Append", "partitionBy": _partition_by(ctx)}
    plan = WritePlan("WRITE", params)
    if rw is not None:
        condition = _requalified(ctx, rw)
        params.update({"mode": "Overwrite", "predicate": condition})
        plan.removed = removed_frame(ctx, matching_files(ctx, condition), True)
        plan.recorded_blind = False
    elif stmt.overwrite and static and not (mode == "dynamic" and dynamic_cols):
        condition = _equalities({c: partition_text(v) for c, v in static.items()})
        params.update({"mode": "Overwrite", "predicate": condition})
        plan.removed = removed_frame(ctx, matching_files(ctx, condition), True)
        plan.recorded_blind = False
        ctx.notes.append(
            f"static PARTITION clause overwrites {condition} (written as replaceWhere)"
        )
    elif stmt.overwrite and mode == "dynamic" and ctx.cols:
        _dynamic_overwrite(ctx, plan, partitions)
    elif stmt.overwrite:
        params["mode"] = "Overwrite"
        plan.removed = removed_frame(ctx, ctx.live, True)
        plan.recorded_blind = False
    else:
        plan.recorded_blind = not stmt.reads_target
        if stmt.reads_target and not ctx.profile.appends_read_all_files:
            plan.self_read = stmt.self_read_condition or ""
    if partitions is None:
        # where an append or a static overwrite writes cannot change whether it commits (it reads
        # nothing, everything, or its predicate); only a dynamic overwrite reads what it writes
        ctx.lower(
            "medium",
            "the partitions this INSERT writes are not visible in the statement "
            "(pass writes={...}); one file of unknown partition assumed",
        )
        partitions = [dict.fromkeys(ctx.cols)]
        stats = [None]
    plan.added = list(zip(partitions, stats, strict=True))
    generated = _generated_identity_columns(ctx)
    if generated:
        # Delta writes the new high-water mark into the schema: the INSERT changes metadata, so
        # any concurrent metadata change fails it (real Delta 3.3.2 and 4.4.0, docs/fidelity.md)
        plan.changes_metadata = True
        plan.change_other = True
        ctx.notes.append(
            f"generates values for identity column(s) {', '.join(generated)}: a metadata update"
        )
    if stmt.dataframe:
        _dataframe_notes(ctx, plan, rw, mode)
    plan.params = ctx.writer.operation_parameters(params)
    plan.recorded_blind = ctx.writer.recorded_blind(plan.recorded_blind is True)
    return plan


def _dataframe_notes(
    ctx: AttemptContext, plan: WritePlan, replace_where: str | None, mode: str | None
) -> None:
    """How a DataFrame write was read: the INSERT it is to Delta, and what it cannot show."""
    stmt = ctx.stmt
    kind = (
        f"INSERT INTO … REPLACE WHERE {replace_where}"
        if replace_where is not None
        else "INSERT OVERWRITE (dynamic partition overwrite)"
        if plan.dynamic or (stmt.overwrite and mode == "dynamic")
        else "INSERT OVERWRITE (the whole table)"
        if stmt.overwrite
        else "INSERT INTO (an append)"
    )
    ctx.notes.append(f"DataFrame write read as {kind}: Delta's WRITE operation")
    for option in stmt.schema_options:
        ctx.lower(
            "medium",
            f"{option}: modelled as a write in the table's own schema; a DataFrame that "
            "brings other columns also commits a metaData action, which this does not show",
        )


def _dynamic_overwrite(
    ctx: AttemptContext, plan: WritePlan, partitions: list[dict[str, str | None]] | None
) -> None:
    params = plan.params
    params["mode"] = "Overwrite"
    plan.recorded_blind = False
    if partitions is None:
        ctx.lower(
            "low",
            "dynamic partition overwrite of partitions the statement does not show: "
            "assumed to overwrite the whole table",
        )
        plan.removed = removed_frame(ctx, ctx.live, True)
        return
    condition = " OR ".join(f"({_equalities(p)})" for p in partitions)
    if not ctx.writer.dynamic_partition_overwrite:
        ctx.notes.append(
            "delta-rs has no dynamic partition overwrite; modelled as write_deltalake("
            f"mode='overwrite', predicate=\"{condition}\")"
        )
        params["predicate"] = condition
    else:
        params["isDynamicPartitionOverwrite"] = True
        plan.dynamic = True
    written = {tuple(sorted(p.items())) for p in partitions}
    hits = [
        i
        for i, p in enumerate(partition_rows(ctx, ctx.live))
        if tuple(sorted(p.items())) in written
    ]
    plan.removed = removed_frame(ctx, ctx.live[hits] if hits else ctx.live.clear(), True)


def _requalified(ctx: AttemptContext, condition: str) -> str:
    """A user condition (``--replace-where``) with the target table qualifier removed."""
    return normalise_condition(condition, ctx.stmt.table)


def insert_self_read(ctx: AttemptContext, plan: WritePlan) -> Reads:
    """Delta-Spark INSERT … SELECT over the target: the self-read's scan predicate (A.2)."""
    cond = plan.self_read or ctx.stmt.self_read_condition
    if not cond:
        return reads_matching(
            TRUE,
            TRUE,
            "INSERT … SELECT reads the target table without a plain WHERE: every file counts as read",
            "medium",
        )
    pred = parse_predicate(cond)
    part = partition_read_predicate(pred, ctx.cols)
    why = "; ".join(part.reasons) or f"partition predicate {part.predicate.to_sql()}"
    return reads_matching(
        part.predicate,
        pred,
        f"INSERT … SELECT reads the target table (WHERE {cond}): {why}",
        "medium",
    )


def _generated_identity_columns(ctx: AttemptContext) -> list[str]:
    """The identity columns (``delta.identity.start`` in the field's metadata) this INSERT
    leaves to Delta to generate: those its column list does not name."""
    fields = ctx.schema_fields
    identity = [
        str(f.get("name")) for f in fields if "delta.identity.start" in (f.get("metadata") or {})
    ]
    named = ctx.stmt.insert_columns
    if named is None:
        width = len(ctx.stmt.rows[0]) if ctx.stmt.rows else len(fields)
        return identity if width < len(fields) else []
    lowered = {c.lower() for c in named}
    return [c for c in identity if c.lower() not in lowered]
