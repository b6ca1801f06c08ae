"""SQL → the :class:`~deltaforensics.transactions.Transaction` its commit would have been."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from deltaforensics.attempts.context import AttemptContext, WritePlan
from deltaforensics.attempts.ddl import plan_alter, plan_replace, plan_restore, plan_truncate
from deltaforensics.attempts.delete_update import plan_delete_or_update
from deltaforensics.attempts.files import added_frame, removed_frame
from deltaforensics.attempts.merge import plan_merge
from deltaforensics.attempts.optimize import plan_optimize, plan_reorg
from deltaforensics.attempts.write import insert_self_read, plan_insert
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.statements import Statement, parse_statement
from deltaforensics.transactions import (
    MetadataChange,
    Reads,
    Transaction,
    Writes,
    attempted_transaction,
    reads_of,
)


def attempt_transaction(
    sql: str,
    replay: Replay,
    *,
    read_version: int,
    profile: Profile,
    writes: Mapping[str, str] | None = None,
    replace_where: str | None = None,
    txn: tuple[str, int] | None = None,
    partition_overwrite_mode: str | None = None,
    read_version_source: str = "--read-version",
) -> Transaction:
    """The transaction ``sql`` would have committed had it read ``read_version``.

    ``ValueError`` (one line) for SQL that is not a supported write statement, options that do
    not fit it, or a read version outside the retained log."""
    stmt = parse_statement(sql)
    mode = _overwrite_mode(partition_overwrite_mode)
    mode, txn = _dataframe_options(stmt, mode, txn, replace_where)
    _check_options(stmt, replace_where=replace_where, mode=mode, txn=txn)
    _check_read_version(replay, read_version)
    ctx = _context(stmt, replay, read_version=read_version, profile=profile, writes=writes)
    plan = (
        plan_insert(ctx, replace_where, mode)
        if stmt.kind == "INSERT"
        else _PLANNERS[stmt.kind](ctx)
    )
    written = _writes(ctx, plan, txn)
    return attempted_transaction(
        sql,
        replay,
        read_version=read_version,
        read_version_source=read_version_source,
        profile=profile,
        operation=plan.operation,
        parameters=plan.params,
        recorded_blind=plan.recorded_blind,
        recorded_isolation=plan.recorded_isolation if ctx.writer.records_isolation_level else None,
        reads=_reads(ctx, plan, written),
        written=written,
    )


def _check_options(
    stmt: Statement, *, replace_where: str | None, mode: str | None, txn: tuple[str, int] | None
) -> None:
    """Options that only fit an INSERT, and a ``txn`` without its application id."""
    if stmt.kind != "INSERT":
        if replace_where is not None:
            raise ValueError("--replace-where applies to INSERT statements only")
        if mode is not None:
            raise ValueError("--partition-overwrite-mode applies to INSERT OVERWRITE only")
    if txn is not None and not str(txn[0]):
        raise ValueError("txn needs an application id: (appId, version)")


def _dataframe_options(
    stmt: Statement, mode: str | None, txn: tuple[str, int] | None, replace_where: str | None
) -> tuple[str | None, tuple[str, int] | None]:
    """A DataFrame write's own partitionOverwriteMode and txnAppId/txnVersion options, where
    the flags do not give them (a flag that contradicts the option is an error)."""
    if stmt.overwrite_mode is not None and mode not in (None, stmt.overwrite_mode):
        raise ValueError(
            f'the write sets partitionOverwriteMode "{stmt.overwrite_mode}"; '
            "drop --partition-overwrite-mode"
        )
    if stmt.txn is not None and txn not in (None, stmt.txn):
        raise ValueError("the write sets txnAppId/txnVersion; drop --txn")
    # Delta's WriteIntoDelta: replaceWhere beside partitionOverwriteMode=dynamic in the writer's
    # options is an error, beside the session's conf it wins (the write is not dynamic);
    # overwriteSchema with a dynamic partition overwrite is an error
    if stmt.overwrite_mode == "dynamic" and (stmt.replace_where or replace_where) is not None:
        raise ValueError(
            "Delta refuses replaceWhere with partitionOverwriteMode=dynamic in the writer's options"
        )
    dynamic = (mode or stmt.overwrite_mode) == "dynamic"
    if dynamic and "overwriteSchema" in stmt.schema_options and stmt.replace_where is None:
        raise ValueError("Delta refuses overwriteSchema with a dynamic partition overwrite")
    return mode or stmt.overwrite_mode, txn or stmt.txn


def _context(
    stmt: Statement,
    replay: Replay,
    *,
    read_version: int,
    profile: Profile,
    writes: Mapping[str, str] | None,
) -> AttemptContext:
    """The table as the statement would have read it; ``writes`` noted where it cannot apply."""
    ctx = AttemptContext(
        stmt=stmt,
        replay=replay,
        read_version=read_version,
        profile=profile,
        md=replay.metadata_at(read_version),
        protocol=replay.protocol_at(read_version),
        live=replay.with_file_stats(replay.live_files(read_version)),
        writes=writes,
    )
    if writes is not None and stmt.kind not in ("INSERT", "MERGE"):
        ctx.notes.append(
            f"writes= ignored: {stmt.kind} rewrites the partitions of the files it removes"
        )
    return ctx


def _writes(ctx: AttemptContext, plan: WritePlan, txn: tuple[str, int] | None) -> Writes:
    """The plan's file rows and table-level changes as the record's ``Writes``."""
    removed = (
        plan.removed if plan.removed is not None else removed_frame(ctx, ctx.live.clear(), True)
    )
    return Writes(
        added=added_frame(ctx, plan.added, plan.data_change),
        removed=removed,
        changes_metadata=plan.changes_metadata,
        changes_protocol=plan.changes_protocol,
        metadata_change=MetadataChange(keys=plan.change_keys, other=plan.change_other),
        app_ids=frozenset({str(txn[0])}) if txn else frozenset(),
        dynamic_partition_overwrite=plan.dynamic,
        z_order=plan.z_order,
    )


def _reads(ctx: AttemptContext, plan: WritePlan, written: Writes) -> Reads:
    """What the equivalent commit reads (the same helper as for committed operations), with
    the planners' notes appended to its reason and their confidence folded in."""
    reads = reads_of(
        plan.operation,
        plan.params,
        plan.recorded_blind,
        ctx.profile,
        ctx.md,
        written.added,
        written.removed,
        shown_alias=ctx.stmt.target_alias,
    )
    if plan.self_read is not None:  # Spark INSERT … SELECT over the target: not blind
        reads = insert_self_read(ctx, plan)
    ctx.lower(reads.confidence)
    reason = "; ".join([reads.reason, *dict.fromkeys(ctx.notes)]) if ctx.notes else reads.reason
    return replace(reads, reason=reason, confidence=ctx.confidence)


def _overwrite_mode(value: str | None) -> str | None:
    if value is None:
        return None
    mode = value.strip().lower()
    if mode not in ("static", "dynamic"):
        raise ValueError(f"partition overwrite mode must be static or dynamic, not {value!r}")
    return mode


def _check_read_version(replay: Replay, read_version: int) -> None:
    first, last = max(replay.frames.base_version, 0), replay.end_version
    if read_version < 0:
        raise ValueError(f"read version {read_version} is negative")
    if read_version > last:
        raise ValueError(f"read version {read_version} is after the latest version {last}")
    if read_version < first:
        raise ValueError(
            f"read version {read_version} is not in the replayed log (it covers v{first}..v{last}; "
            "older versions were checkpointed or cleaned up)"
        )


_PLANNERS: dict[str, Callable[[AttemptContext], WritePlan]] = {
    "DELETE": plan_delete_or_update,
    "UPDATE": plan_delete_or_update,
    "MERGE": plan_merge,
    "OPTIMIZE": plan_optimize,
    "REORG": plan_reorg,
    "ALTER": plan_alter,
    "RESTORE": plan_restore,
    "TRUNCATE": plan_truncate,
    "REPLACE": plan_replace,
}
