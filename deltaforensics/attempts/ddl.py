"""ALTER TABLE, TRUNCATE and REPLACE TABLE: metadata and protocol changes, whole-table removals."""

from __future__ import annotations

from typing import Any

import polars as pl

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.files import removed_frame
from deltaforensics.profiles.statement_writers import compact_json
from deltaforensics.statements import AlterAction

_FEATURE_PROPERTIES: dict[str, tuple[str, str]] = {
    "delta.enabledeletionvectors": ("deletionVectors", "true"),
    "delta.enablechangedatafeed": ("changeDataFeed", "true"),
    "delta.appendonly": ("appendOnly", "true"),
    "delta.enablerowtracking": ("rowTracking", "true"),
    "delta.enableincommittimestamps": ("inCommitTimestamp", "true"),
    "delta.enabletypewidening": ("typeWidening", "true"),
    "delta.checkpointpolicy": ("v2Checkpoint", "v2"),
}


def plan_alter(ctx: AttemptContext) -> WritePlan:
    actions = ctx.stmt.alter
    plan = WritePlan("", {}, changes_metadata=True)
    keys: list[str] = []
    config = ctx.md.configuration
    features = set(ctx.protocol.features)
    for a in actions:
        op, params = _alter_operation(ctx, a)
        if not plan.operation or op == "ADD CONSTRAINT":
            plan.operation, plan.params = op, params
        if a.kind == "set_properties":
            keys += [k for k, v in a.properties if config.get(k) != v]
            plan.changes_protocol |= any(_enables_feature(k, v, features) for k, v in a.properties)
            plan.changes_protocol |= any(_raises_version(ctx, k, v) for k, v in a.properties)
        elif a.kind == "add_constraint":
            keys.append(f"delta.constraints.{a.name}")
            plan.changes_protocol |= "checkConstraints" not in features
        elif a.kind == "unset_properties":
            plan.change_other |= any(k in config for k, _ in a.properties)
        elif a.kind == "drop_constraint":
            plan.change_other |= f"delta.constraints.{a.name}" in config
        else:
            plan.change_other = True
        if a.kind == "other":
            ctx.lower("medium", f"ALTER TABLE action {a.text[:60]!r} modelled as a metadata change")
    plan.change_keys = tuple(sorted(set(keys)))
    # ADD CONSTRAINT checks every row; SYNC IDENTITY reads the whole table for the high-water mark
    reads = any(a.kind in ("add_constraint", "sync_identity") for a in actions)
    plan.recorded_blind = ctx.writer.recorded_blind(not reads)  # DDL is a blind append (A.3)
    return plan


def _raises_version(ctx: AttemptContext, key: str, value: str) -> bool:
    """``delta.minReaderVersion``/``delta.minWriterVersion`` above the table's: Delta upgrades
    the protocol (a protocol action), which real Delta 3.3.2 fails as ProtocolChangedException
    against a winner that wrote a protocol action too (docs/fidelity.md)."""
    current = {
        "delta.minreaderversion": ctx.protocol.min_reader_version,
        "delta.minwriterversion": ctx.protocol.min_writer_version,
    }.get(key.lower())
    return current is not None and value.strip().isdigit() and int(value) > current


def _enables_feature(key: str, value: str, features: set[str]) -> bool:
    k = key.lower()
    if k.startswith("delta.feature."):
        return key[len("delta.feature.") :] not in features and value.lower() in (
            "supported",
            "enabled",
        )
    if k == "delta.columnmapping.mode":
        return value.lower() != "none" and "columnMapping" not in features
    spec = _FEATURE_PROPERTIES.get(k)
    return spec is not None and value.lower() == spec[1] and spec[0] not in features


def _alter_operation(ctx: AttemptContext, a: AlterAction) -> tuple[str, dict[str, Any]]:
    if a.kind == "add_columns":
        fields = [{"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in a.columns]
        added = ctx.writer.add_columns(fields)
        return added.operation, added.parameters
    if a.kind == "set_properties":
        return "SET TBLPROPERTIES", {"properties": compact_json(dict(a.properties))}
    if a.kind == "unset_properties":
        return "UNSET TBLPROPERTIES", {
            "properties": compact_json([k for k, _ in a.properties]),
            "ifExists": "false",
        }
    if a.kind == "add_constraint":
        constraint = ctx.writer.add_constraint(a.name, a.expr)
        return constraint.operation, constraint.parameters
    if a.kind == "drop_constraint":
        return "DROP CONSTRAINT", {"name": a.name, "existed": "true"}
    if a.kind == "drop_columns":
        return "DROP COLUMNS", {"columns": compact_json([n for n, _ in a.columns])}
    if a.kind == "rename_column":
        return "RENAME COLUMN", {"oldColumnPath": a.columns[0][0] if a.columns else ""}
    if a.kind == "sync_identity":
        recorded = ctx.writer.sync_identity(_identity_field(ctx, a.columns[0][0]))
        return recorded.operation, recorded.parameters
    if a.kind == "change_column":
        return "CHANGE COLUMN", {"column": a.columns[0][0] if a.columns else ""}
    return "ALTER TABLE", {}


def _identity_field(ctx: AttemptContext, name: str) -> dict[str, Any]:
    """The schema field of identity column ``name`` at the read version; a one-line
    ``ValueError`` when there is none (Delta refuses SYNC IDENTITY on other columns)."""
    field = next(
        (f for f in ctx.schema_fields if str(f.get("name", "")).lower() == name.lower()), None
    )
    if field is None:
        raise ValueError(f"SYNC IDENTITY: no column {name!r} at v{ctx.read_version}")
    if "delta.identity.start" not in (field.get("metadata") or {}):
        raise ValueError(f"SYNC IDENTITY: column {name!r} is not an identity column")
    return dict(field)


def plan_truncate(ctx: AttemptContext) -> WritePlan:
    recorded = ctx.writer.truncate()
    if recorded.note:
        ctx.notes.append(recorded.note)
    plan = WritePlan(
        recorded.operation, recorded.parameters, recorded_blind=ctx.writer.recorded_blind(False)
    )
    plan.removed = removed_frame(ctx, ctx.live, True)
    return plan


def plan_replace(ctx: AttemptContext) -> WritePlan:
    stmt = ctx.stmt
    recorded = ctx.writer.replace_table(
        keyword=stmt.replace_keyword,
        has_query=stmt.has_query,
        partition_by=stmt.partition_by if stmt.partition_by is not None else ctx.cols,
    )
    plan = WritePlan(
        recorded.operation, recorded.parameters, recorded_blind=ctx.writer.recorded_blind(False)
    )
    plan.removed = removed_frame(ctx, ctx.live, True)
    plan.changes_metadata = True
    plan.change_other = True
    if stmt.has_query:
        cols = stmt.partition_by if stmt.partition_by is not None else ctx.cols
        if cols == ctx.cols:
            plan.added = [(dict.fromkeys(ctx.cols), None)]
    return plan


def plan_restore(ctx: AttemptContext) -> WritePlan:
    """RESTORE: removes the files added since the target version and re-adds the ones removed
    since, through ``commitLarge`` (no conflict resolution: any winner fails it, DC005)."""
    kind, target = ctx.stmt.restore_to or ("version", "")
    plan = WritePlan("RESTORE", {kind: target}, recorded_blind=ctx.writer.recorded_blind(False))
    if kind != "version":
        ctx.lower("medium", "RESTORE TO TIMESTAMP: the files it removes are not resolved")
        return plan
    version = int(target)
    if version > ctx.read_version:
        raise ValueError(
            f"RESTORE to v{version}, after the attempt's read version v{ctx.read_version}"
        )
    try:
        kept = ctx.replay.live_files(version).get_column("path")
    except ValueError as exc:
        ctx.lower("medium", f"RESTORE target v{version} is not in the retained log ({exc})")
        return plan
    plan.removed = removed_frame(ctx, ctx.live.filter(~pl.col("path").is_in(kept.implode())), True)
    return plan
