"""``explain --attempt``: would this statement have committed, had it read version N?

A losing transaction leaves nothing in ``_delta_log`` (semantics doc, key finding 1), so the
user tells us what they ran. :func:`attempt_transaction` turns the SQL into the
:class:`~deltaforensics.transactions.Transaction` its commit would have been:

- the ``operation`` and ``operationParameters`` the profile's engine would have written for it
  (Spark: ``DELETE`` + ``predicate`` array, ``WRITE`` + ``mode``/``replaceWhere``/
  ``isDynamicPartitionOverwrite``, ``MERGE`` + clause lists …; delta-rs: plain SQL predicates,
  the derived MERGE target filter, no ``isBlindAppend``), read through the *same* helper as
  committed operations (``transactions.reads_of``), so an attempt and the equivalent commit read
  exactly the same;
- its writes estimated from the snapshot at the read version: DELETE/UPDATE/MERGE remove the
  live files their condition may match (partition values and min/max stats; the whole table
  without one), OPTIMIZE the files it would compact, an INSERT adds one file per partition it
  writes (``writes=``, the PARTITION clause, or literal values in VALUES/SELECT).

:func:`check_attempt` runs the checker against every commit after the read version (the
report turns its verdict into the ``attempts`` entry, and the ``conflicts`` entry of a failing
one); :func:`read_version_at` serves ``--started-at``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

import polars as pl

from deltaforensics.conflicts.checker import COMMITS, Verdict, check
from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.model.schemas import FILE_COLUMNS, PARTITION_VALUES, files_schema
from deltaforensics.predicates.ir import (
    TRUE,
    Column,
    Compare,
    Literal,
    Predicate,
    column_refs,
    conjuncts,
)
from deltaforensics.predicates.parse import parse_predicate
from deltaforensics.predicates.partition import partition_read_predicate
from deltaforensics.predicates.stats import may_match_stats
from deltaforensics.profiles import Profile
from deltaforensics.profiles.writers import StatementWriter, compact_json
from deltaforensics.replay import Replay
from deltaforensics.statements import (
    UNKNOWN,
    AlterAction,
    Statement,
    Value,
    normalise_condition,
    parse_statement,
)
from deltaforensics.transactions import (
    MetadataChange,
    Reads,
    Transaction,
    Writes,
    attempted_transaction,
    reads_matching,
    reads_of,
)

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
ATTEMPT_SOURCE = "attempt"  # ``source`` of the synthetic file rows
_CONFIDENCE = ("low", "medium", "high")

# Table properties whose enablement adds a table feature, so the commit carries a protocol action.
_FEATURE_PROPERTIES: dict[str, tuple[str, str]] = {
    "delta.enabledeletionvectors": ("deletionVectors", "true"),
    "delta.enablechangedatafeed": ("changeDataFeed", "true"),
    "delta.appendonly": ("appendOnly", "true"),
    "delta.enablerowtracking": ("rowTracking", "true"),
    "delta.enableincommittimestamps": ("inCommitTimestamp", "true"),
    "delta.enabletypewidening": ("typeWidening", "true"),
    "delta.checkpointpolicy": ("v2Checkpoint", "v2"),
}


# ---------------------------------------------------------------------------------------------
# SQL -> Transaction


@dataclass
class _Ctx:
    stmt: Statement
    replay: Replay
    read_version: int
    profile: Profile
    md: Metadata
    protocol: Protocol
    live: pl.DataFrame
    writes: Mapping[str, str] | None
    notes: list[str] = field(default_factory=list)
    confidence: str = "high"

    @property
    def writer(self) -> StatementWriter:
        return self.profile.writer

    @property
    def cols(self) -> tuple[str, ...]:
        return self.md.partition_columns

    @property
    def fields(self) -> tuple[str, ...]:
        return self.replay.frames.partition_columns

    def lower(self, confidence: str, note: str | None = None) -> None:
        if _CONFIDENCE.index(confidence) < _CONFIDENCE.index(self.confidence):
            self.confidence = confidence
        if note:
            self.notes.append(note)


@dataclass
class _Plan:
    operation: str
    params: dict[str, Any]
    recorded_blind: bool | None = None
    recorded_isolation: str | None = None
    removed: pl.DataFrame | None = None
    added: list[tuple[dict[str, str | None], str | None]] = field(default_factory=list)
    data_change: bool = True
    changes_metadata: bool = False
    change_keys: tuple[str, ...] = ()
    change_other: bool = False
    changes_protocol: bool = False
    dynamic: bool = False
    z_order: tuple[str, ...] = ()
    self_read: str | None = None  # Spark INSERT … SELECT over the target: its WHERE


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
    if stmt.kind != "INSERT":
        if replace_where is not None:
            raise ValueError("--replace-where applies to INSERT statements only")
        if mode is not None:
            raise ValueError("--partition-overwrite-mode applies to INSERT OVERWRITE only")
    if txn is not None and not str(txn[0]):
        raise ValueError("txn needs an application id: (appId, version)")
    _check_read_version(replay, read_version)
    md = replay.metadata_at(read_version)
    ctx = _Ctx(
        stmt=stmt,
        replay=replay,
        read_version=read_version,
        profile=profile,
        md=md,
        protocol=replay.protocol_at(read_version),
        live=replay.live_files(read_version),
        writes=writes,
    )
    if writes is not None and stmt.kind not in ("INSERT", "MERGE"):
        ctx.notes.append(
            f"writes= ignored: {stmt.kind} rewrites the partitions of the files it removes"
        )
    plan = _insert(ctx, replace_where, mode) if stmt.kind == "INSERT" else _PLANNERS[stmt.kind](ctx)
    removed = (
        plan.removed if plan.removed is not None else _removed_frame(ctx, ctx.live.clear(), True)
    )
    added = _added_frame(ctx, plan.added, plan.data_change)
    reads = reads_of(plan.operation, plan.params, plan.recorded_blind, profile, md, added, removed)
    if plan.self_read is not None:  # Spark INSERT … SELECT over the target: not blind
        reads = _self_read(ctx, plan)
    ctx.lower(reads.confidence)
    reason = "; ".join([reads.reason, *dict.fromkeys(ctx.notes)]) if ctx.notes else reads.reason
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
        reads=replace(reads, reason=reason, confidence=ctx.confidence),
        written=Writes(
            added=added,
            removed=removed,
            changes_metadata=plan.changes_metadata,
            changes_protocol=plan.changes_protocol,
            metadata_change=MetadataChange(keys=plan.change_keys, other=plan.change_other),
            app_ids=frozenset({str(txn[0])}) if txn else frozenset(),
            dynamic_partition_overwrite=plan.dynamic,
            z_order=plan.z_order,
        ),
    )


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


# --- estimating writes ------------------------------------------------------------------------


def _predicate(text: str | None) -> Predicate:
    return TRUE if not text else parse_predicate(text)


def _match(ctx: _Ctx, condition: str | None, files: pl.DataFrame | None = None) -> pl.DataFrame:
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


def _removed_frame(ctx: _Ctx, files: pl.DataFrame, data_change: bool) -> pl.DataFrame:
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


def _pv_text(value: Value) -> str | None:
    if value is None or value is UNKNOWN:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _added_frame(
    ctx: _Ctx, files: list[tuple[dict[str, str | None], str | None]], data_change: bool
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


def _partitions_of(ctx: _Ctx, files: pl.DataFrame) -> list[dict[str, str | None]]:
    """Distinct logical partition values of some live files (one ``{}`` if unpartitioned)."""
    if files.is_empty():
        return []
    if not ctx.cols:
        return [{}]
    names = set(ctx.fields)
    exprs = [
        (
            pl.col(PARTITION_VALUES).struct.field(ctx.md.physical_name(c))
            if ctx.md.physical_name(c) in names
            else pl.lit(None, pl.String)
        ).alias(c)
        for c in ctx.cols
    ]
    return files.select(exprs).unique(maintain_order=True).to_dicts()


def _rewrites(ctx: _Ctx, removed: pl.DataFrame) -> list[tuple[dict[str, str | None], str | None]]:
    return [(p, None) for p in _partitions_of(ctx, removed)]


def _partition_only(ctx: _Ctx, condition: str | None) -> bool:
    if not condition or not ctx.cols:
        return condition is None
    keys = {c.lower() for c in ctx.cols}
    refs = column_refs(parse_predicate(condition))
    return bool(refs) and all(r.key in keys for r in refs)


# --- per statement ------------------------------------------------------------------------------


def _partition_by(ctx: _Ctx) -> str:
    return compact_json(list(ctx.cols))


def _equalities(values: Mapping[str, str | None]) -> str:
    return " AND ".join(
        f"{c} IS NULL" if v is None else f"{c} = '{_escape(v)}'" for c, v in values.items()
    )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


def _insert(ctx: _Ctx, replace_where: str | None, mode: str | None) -> _Plan:
    stmt = ctx.stmt
    if replace_where is not None and stmt.replace_where is not None:
        raise ValueError("the statement has REPLACE WHERE already; drop --replace-where")
    rw = replace_where if replace_where is not None else stmt.replace_where
    static = {c: v for c, v in stmt.partition_spec if v is not UNKNOWN}
    dynamic_cols = [c for c, v in stmt.partition_spec if v is UNKNOWN]
    _check_columns(ctx, [c for c, _ in stmt.partition_spec], "PARTITION")
    partitions, stats = _written(ctx)
    params: dict[str, Any] = {"mode": "Append", "partitionBy": _partition_by(ctx)}
    plan = _Plan("WRITE", params)
    if rw is not None:
        condition = _requalified(ctx, rw)
        params.update({"mode": "Overwrite", "predicate": condition})
        plan.removed = _removed_frame(ctx, _match(ctx, condition), True)
        plan.recorded_blind = False
    elif stmt.overwrite and static and not (mode == "dynamic" and dynamic_cols):
        condition = _equalities({c: _pv_text(v) for c, v in static.items()})
        params.update({"mode": "Overwrite", "predicate": condition})
        plan.removed = _removed_frame(ctx, _match(ctx, condition), True)
        plan.recorded_blind = False
        ctx.notes.append(
            f"static PARTITION clause overwrites {condition} (written as replaceWhere)"
        )
    elif stmt.overwrite and mode == "dynamic" and ctx.cols:
        _dynamic_overwrite(ctx, plan, partitions)
    elif stmt.overwrite:
        params["mode"] = "Overwrite"
        plan.removed = _removed_frame(ctx, ctx.live, True)
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
    plan.params = ctx.writer.operation_parameters(params)
    plan.recorded_blind = ctx.writer.recorded_blind(plan.recorded_blind is True)
    return plan


def _dynamic_overwrite(
    ctx: _Ctx, plan: _Plan, partitions: list[dict[str, str | None]] | None
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
        plan.removed = _removed_frame(ctx, ctx.live, True)
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
        for i, p in enumerate(_partition_rows(ctx, ctx.live))
        if tuple(sorted(p.items())) in written
    ]
    plan.removed = _removed_frame(ctx, ctx.live[hits] if hits else ctx.live.clear(), True)


def _partition_rows(ctx: _Ctx, files: pl.DataFrame) -> list[dict[str, str | None]]:
    if not ctx.cols:
        return [{} for _ in range(files.height)]
    names = set(ctx.fields)
    exprs = [
        (
            pl.col(PARTITION_VALUES).struct.field(ctx.md.physical_name(c))
            if ctx.md.physical_name(c) in names
            else pl.lit(None, pl.String)
        ).alias(c)
        for c in ctx.cols
    ]
    return files.select(exprs).to_dicts()


def _check_columns(ctx: _Ctx, names: Sequence[str], where: str) -> None:
    known = {c.lower() for c in ctx.cols}
    bad = [n for n in names if n.lower() not in known]
    if bad:
        raise ValueError(
            f"{where} names {', '.join(bad)}, which is not a partition column "
            f"(partition columns: {', '.join(ctx.cols) or 'none'})"
        )


def _canonical(ctx: _Ctx, name: str) -> str:
    return next((c for c in ctx.md.column_types if c.lower() == name.lower()), name)


def _written(ctx: _Ctx) -> tuple[list[dict[str, str | None]] | None, list[str | None]]:
    """Partitions (logical values) an INSERT writes and a stats JSON per file, or None."""
    stmt = ctx.stmt
    cols = ctx.cols
    static = {_canonical(ctx, c): v for c, v in stmt.partition_spec if v is not UNKNOWN}
    schema = list(ctx.md.column_types)
    if stmt.by_name and stmt.row_names is not None:
        positions: list[str] = [_canonical(ctx, n or "") for n in stmt.row_names]
    elif stmt.insert_columns is not None:
        positions = [_canonical(ctx, c) for c in stmt.insert_columns]
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
            values[c] = _pv_text(v)
        groups.setdefault(tuple(values.items()), []).append(named)
    if ctx.writes is not None:
        _check_columns(ctx, list(ctx.writes), "writes")
        given: dict[str, str | None] = {_canonical(ctx, k): str(v) for k, v in ctx.writes.items()}
        missing = [c for c in cols if c not in given and c not in static]
        if missing:
            raise ValueError(
                f"writes must give every partition column; missing {', '.join(missing)}"
            )
        merged = {c: given.get(c, _pv_text(static.get(c))) for c in cols}
        rows = [r for g in groups.values() for r in g] if known else []
        return [merged], [_stats(ctx, rows)]
    if not cols:
        rows = [r for g in groups.values() for r in g]
        return [{}], [_stats(ctx, rows) if stmt.rows is not None else None]
    if stmt.rows is None:
        if all(c in static for c in cols):
            return [{c: _pv_text(static[c]) for c in cols}], [None]
        return None, []
    if not known:
        return None, []
    return [dict(k) for k in groups], [_stats(ctx, g) for g in groups.values()]


def _stats(ctx: _Ctx, rows: list[dict[str, Value]]) -> str | None:
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


def _requalified(ctx: _Ctx, condition: str) -> str:
    """A user condition (``--replace-where``) with the target table qualifier removed."""
    return normalise_condition(condition, ctx.stmt.table)


def _delete_or_update(ctx: _Ctx) -> _Plan:
    stmt = ctx.stmt
    cond = stmt.condition
    removed = _match(ctx, cond)
    params = ctx.writer.condition_parameters(cond)
    plan = _Plan(stmt.kind, params, recorded_blind=ctx.writer.recorded_blind(False))
    plan.removed = _removed_frame(ctx, removed, True)
    metadata_only = stmt.kind == "DELETE" and _partition_only(ctx, cond)
    plan.added = [] if metadata_only else _rewrites(ctx, removed)
    if stmt.kind == "UPDATE" and any(
        c.lower() in {p.lower() for p in ctx.cols} for c in stmt.set_columns
    ):
        ctx.lower(
            "medium", "the UPDATE sets a partition column, so it also writes into other partitions"
        )
    return plan


def _merge(ctx: _Ctx) -> _Plan:
    stmt = ctx.stmt
    rewrites = stmt.has_matched or stmt.has_not_matched_by_source
    params = ctx.writer.merge_parameters(stmt)
    removal = None if stmt.has_not_matched_by_source else stmt.target_only_on
    removed = _match(ctx, removal) if rewrites else ctx.live.clear()
    plan = _Plan("MERGE", params, recorded_blind=ctx.writer.recorded_blind(False))
    plan.removed = _removed_frame(ctx, removed, True)
    plan.added = _rewrites(ctx, removed)
    if stmt.has_not_matched:
        inserted = _merge_insert_partitions(ctx)
        if inserted not in [p for p, _ in plan.added]:
            plan.added.append((inserted, None))
    return plan


def _merge_insert_partitions(ctx: _Ctx) -> dict[str, str | None]:
    """Where a MERGE's inserts land: ``writes``, or literal partition equalities in ON."""
    if ctx.writes is not None:
        _check_columns(ctx, list(ctx.writes), "writes")
        return {
            c: next((str(v) for k, v in ctx.writes.items() if k.lower() == c.lower()), None)
            for c in ctx.cols
        }
    found: dict[str, str | None] = {}
    if ctx.stmt.target_only_on and ctx.cols:
        keys = {c.lower(): c for c in ctx.cols}
        for c in conjuncts(parse_predicate(ctx.stmt.target_only_on)):
            if isinstance(c, Compare) and c.op == "=":
                col, lit = (c.left, c.right) if isinstance(c.left, Column) else (c.right, c.left)
                if isinstance(col, Column) and isinstance(lit, Literal) and col.key in keys:
                    found[keys[col.key]] = _pv_text(lit.value)
    return {c: found.get(c) for c in ctx.cols}


def _optimize(ctx: _Ctx) -> _Plan:
    stmt = ctx.stmt
    cond = stmt.condition
    if cond and ctx.cols and not _partition_only(ctx, cond):
        raise ValueError("OPTIMIZE WHERE may only filter on partition columns")
    candidates = _match(ctx, cond)
    if not stmt.zorder and not candidates.is_empty():
        # bin-packing leaves partitions that already hold a single file alone
        rows = _partition_rows(ctx, candidates)
        keys = [tuple(sorted(r.items())) for r in rows]
        counts: dict[tuple[tuple[str, str | None], ...], int] = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        keep = [i for i, k in enumerate(keys) if counts[k] > 1]
        candidates = candidates[keep] if keep else candidates.clear()
    plan = _Plan(
        "OPTIMIZE",
        ctx.writer.optimize_parameters(cond, stmt.zorder),
        recorded_blind=ctx.writer.recorded_blind(False),
        recorded_isolation=IsolationLevel.SNAPSHOT_ISOLATION.value,
        data_change=False,
    )
    plan.removed = _removed_frame(ctx, candidates, False)
    plan.added = _rewrites(ctx, candidates)
    plan.z_order = stmt.zorder
    if candidates.is_empty():
        ctx.notes.append("nothing to compact: every matching partition holds at most one file")
    return plan


def _alter(ctx: _Ctx) -> _Plan:
    actions = ctx.stmt.alter
    plan = _Plan("", {}, changes_metadata=True)
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
    reads = any(a.kind == "add_constraint" for a in actions)
    plan.recorded_blind = ctx.writer.recorded_blind(not reads)  # DDL is a blind append (A.3)
    return plan


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


def _alter_operation(ctx: _Ctx, a: AlterAction) -> tuple[str, dict[str, Any]]:
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
    if a.kind == "change_column":
        return "CHANGE COLUMN", {"column": a.columns[0][0] if a.columns else ""}
    return "ALTER TABLE", {}


def _truncate(ctx: _Ctx) -> _Plan:
    recorded = ctx.writer.truncate()
    if recorded.note:
        ctx.notes.append(recorded.note)
    plan = _Plan(
        recorded.operation, recorded.parameters, recorded_blind=ctx.writer.recorded_blind(False)
    )
    plan.removed = _removed_frame(ctx, ctx.live, True)
    return plan


def _replace(ctx: _Ctx) -> _Plan:
    stmt = ctx.stmt
    recorded = ctx.writer.replace_table(
        keyword=stmt.replace_keyword,
        has_query=stmt.has_query,
        partition_by=stmt.partition_by if stmt.partition_by is not None else ctx.cols,
    )
    plan = _Plan(
        recorded.operation, recorded.parameters, recorded_blind=ctx.writer.recorded_blind(False)
    )
    plan.removed = _removed_frame(ctx, ctx.live, True)
    plan.changes_metadata = True
    plan.change_other = True
    if stmt.has_query:
        cols = stmt.partition_by if stmt.partition_by is not None else ctx.cols
        if cols == ctx.cols:
            plan.added = [(dict.fromkeys(ctx.cols), None)]
    return plan


def _self_read(ctx: _Ctx, plan: _Plan) -> Reads:
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


_PLANNERS: dict[str, Callable[[_Ctx], _Plan]] = {
    "DELETE": _delete_or_update,
    "UPDATE": _delete_or_update,
    "MERGE": _merge,
    "OPTIMIZE": _optimize,
    "ALTER": _alter,
    "TRUNCATE": _truncate,
    "REPLACE": _replace,
}


# ---------------------------------------------------------------------------------------------
# checking and reporting


def writes_nothing(attempt: Transaction) -> bool:
    return (
        attempt.added.is_empty()
        and attempt.removed.is_empty()
        and not attempt.changes_metadata
        and not attempt.changes_protocol
        and not attempt.app_ids
    )


def check_attempt(
    attempt: Transaction, transactions: Sequence[Transaction], replay: Replay
) -> Verdict:
    """The attempt against every commit after its read version, in version order."""
    rv = attempt.read_version if attempt.read_version is not None else -1
    winners = sorted(
        (t for t in transactions if t.version is not None and t.version > rv),
        key=lambda t: t.version if t.version is not None else -1,
    )
    versions = tuple(t.version for t in winners if t.version is not None)
    seen = set(versions)
    missing = [v for v in range(rv + 1, replay.end_version + 1) if v not in seen]
    notes: list[str] = []
    if missing:
        notes.append(
            f"commits {missing[:10]} after the read version are not in the analysed history"
        )
    profile = attempt.profile
    if writes_nothing(attempt):
        elided = (
            profile.elides_empty_commits
            or attempt.isolation is not IsolationLevel.WRITE_SERIALIZABLE
        )
        if elided:
            who = (
                f"{profile.engine} writes no commit"
                if profile.elides_empty_commits
                else f"{profile.engine} skips recording an empty {attempt.isolation.value} commit"
            )
            return Verdict(
                loser=attempt,
                profile=profile,
                winners=versions,
                outcome=COMMITS,
                notes=(
                    f"the statement would change nothing ({who}), so nothing can conflict",
                    *notes,
                ),
            )
    if not winners:
        return Verdict(
            loser=attempt,
            profile=profile,
            winners=(),
            outcome=COMMITS,
            notes=(f"no commit after v{rv}: nothing to conflict with", *notes),
        )
    verdict = check(attempt, winners, profile=profile, history=replay)
    if verdict.outcome == COMMITS:
        quiet = (
            "a blind append reads nothing, so no winner can conflict with it"
            if attempt.blind
            else f"no rule fires against v{', v'.join(map(str, versions))}: {attempt.read_reason}"
        )
        notes.insert(0, quiet)
    return replace(verdict, notes=verdict.notes + tuple(notes)) if notes else verdict


def read_version_at(replay: Replay, timestamp_ms: int) -> int:
    """The latest version committed at or before ``timestamp_ms`` (in-commit timestamp when the
    commit has one, else ``commitInfo.timestamp``): what a job started then would have read."""
    commits = replay.commits.select(
        "version", pl.coalesce("in_commit_timestamp", "timestamp").alias("ts")
    ).filter(pl.col("ts").is_not_null())
    if commits.is_empty():
        raise ValueError("no commit in the analysed history records a timestamp")
    before = commits.filter(pl.col("ts") <= timestamp_ms)
    if before.is_empty():
        first = commits.sort("version").row(0, named=True)
        raise ValueError(
            f"no commit at or before {timestamp_ms} ms; the first analysed commit v{first['version']} "
            f"is at {first['ts']} ms"
        )
    return int(before["version"].max())  # type: ignore[arg-type]
