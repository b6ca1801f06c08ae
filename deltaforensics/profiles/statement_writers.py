"""What an engine records in ``commitInfo`` for a statement: one model for every caller.

A losing transaction leaves nothing in the log, so the attempt simulator
(:mod:`deltaforensics.attempts`) writes the ``operation`` and ``operationParameters``
the engine would have committed, and the test log builder writes whole commits the way each
engine does. Both ask a :class:`StatementWriter` held by the engine's profile row; which class
a row holds is data, so no caller asks which engine it is.

The writer decides the shape (which keys, arrays or plain SQL, which values are JSON strings,
the key order of ``commitInfo``); how a condition is rendered to text stays with the caller
(the simulator passes what the user typed, the builder its own Spark ``simpleString``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol


def compact_json(value: Any) -> str:
    """JSON the way engines store nested values in ``operationParameters``."""
    return json.dumps(value, separators=(",", ":"))


class BlindAppendFlag(Enum):
    """What an engine writes as ``isBlindAppend``."""

    RECORDED = "recorded"  # Delta-Spark: true exactly when the statement read nothing
    ALWAYS_FALSE = "always-false"  # Kernel-Java: false on every commit
    NOT_WRITTEN = "not-written"  # delta-rs: no key at all


class MergeClause(Protocol):
    """One WHEN clause of a MERGE, as the statement parser gives it."""

    @property
    def kind(self) -> str: ...  # "matched" | "not_matched" | "not_matched_by_source"
    @property
    def action(self) -> str: ...
    @property
    def condition(self) -> str | None: ...  # normalised (target unqualified)
    @property
    def original(self) -> str | None: ...  # as written


class MergeStatement(Protocol):
    """What a writer logs of a MERGE, as the statement parser gives it."""

    @property
    def condition(self) -> str | None: ...  # the ON condition, normalised
    @property
    def target_only_on(self) -> str | None: ...  # its conjuncts over target columns only
    @property
    def merge_on(self) -> str | None: ...  # the ON condition as written
    @property
    def clauses(self) -> Sequence[MergeClause]: ...
    @property
    def has_not_matched_by_source(self) -> bool: ...


CLAUSE_KEYS = (
    ("matchedPredicates", "matched"),
    ("notMatchedPredicates", "not_matched"),
    ("notMatchedBySourcePredicates", "not_matched_by_source"),
)

# Key order of commitInfo as each writer serialises it (read from real logs).
SPARK_COMMIT_INFO_ORDER = (
    "inCommitTimestamp", "timestamp", "userId", "userName", "operation", "operationParameters",
    "job", "notebook", "clusterId", "readVersion", "isolationLevel", "isBlindAppend",
    "operationMetrics", "userMetadata", "tags", "engineInfo", "txnId",
)  # fmt: skip
DELTA_RS_COMMIT_INFO_ORDER = (
    "timestamp", "operation", "operationParameters", "readVersion", "isolationLevel",
    "isBlindAppend", "engineInfo", "operationMetrics", "clientVersion", "userMetadata",
)  # fmt: skip
KERNEL_COMMIT_INFO_ORDER = (
    "inCommitTimestamp", "timestamp", "engineInfo", "operation", "operationParameters",
    "isBlindAppend", "txnId", "operationMetrics",
)  # fmt: skip
# delta-rs records the version it read only for the statements that read the table
DELTA_RS_READ_VERSION_OPERATIONS = frozenset({"DELETE", "UPDATE", "MERGE", "OPTIMIZE", "RESTORE"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Recorded:
    """An ``operation`` with its ``operationParameters``, and a note when the engine has no
    such statement and a neighbour stands in for it."""

    operation: str
    parameters: dict[str, Any]
    note: str | None = None


class StatementWriter(Protocol):
    """The commitInfo an engine writes for each kind of statement."""

    @property
    def blind_append_flag(self) -> BlindAppendFlag: ...
    @property
    def records_isolation_level(self) -> bool: ...
    @property
    def dynamic_partition_overwrite(self) -> bool: ...
    @property
    def commit_info_order(self) -> tuple[str, ...]: ...
    @property
    def read_version_operations(self) -> frozenset[str] | None: ...
    @property
    def records_txn_id(self) -> bool: ...

    def records_read_version(self, operation: str) -> bool: ...
    def recorded_blind(self, blind: bool) -> bool | None: ...
    def operation_parameters(self, parameters: Mapping[str, Any]) -> dict[str, Any]: ...
    def condition_parameters(self, condition: str | None) -> dict[str, Any]: ...
    def merge_parameters(self, merge: MergeStatement) -> dict[str, Any]: ...
    def optimize_parameters(
        self, condition: str | None, z_order: Sequence[str]
    ) -> dict[str, Any]: ...
    def add_columns(self, fields: Sequence[Mapping[str, Any]]) -> Recorded: ...
    def add_constraint(self, name: str | None, expr: str | None) -> Recorded: ...
    def truncate(self) -> Recorded: ...
    def sync_identity(self, field: Mapping[str, Any]) -> Recorded: ...
    def replace_table(
        self, *, keyword: str, has_query: bool, partition_by: Sequence[str]
    ) -> Recorded: ...


def _clause_lists(
    clauses: Sequence[MergeClause], logged: Callable[[MergeClause], dict[str, str]]
) -> dict[str, str]:
    """``matchedPredicates`` etc.: each kind's clauses as the writer logs one."""
    return {
        key: compact_json([logged(c) for c in clauses if c.kind == kind])
        for key, kind in CLAUSE_KEYS
    }


def _records_read_version(operations: frozenset[str] | None, operation: str) -> bool:
    return operations is None or operation in operations


def _recorded_blind(flag: BlindAppendFlag, blind: bool) -> bool | None:
    if flag is BlindAppendFlag.NOT_WRITTEN:
        return None
    return blind and flag is BlindAppendFlag.RECORDED


@dataclass(frozen=True, slots=True, kw_only=True)
class SparkWriter:
    """Delta-Spark and Databricks (and Kernel-Java, which copies their parameters): conditions
    as a JSON array of predicate texts, nested values kept as JSON values."""

    blind_append_flag: BlindAppendFlag = BlindAppendFlag.RECORDED
    records_isolation_level: bool = True
    dynamic_partition_overwrite: bool = True
    commit_info_order: tuple[str, ...] = SPARK_COMMIT_INFO_ORDER
    read_version_operations: frozenset[str] | None = None  # None: every statement
    records_txn_id: bool = True  # Delta-Spark since 1.2 (the test builder gates older releases)

    def records_read_version(self, operation: str) -> bool:
        return _records_read_version(self.read_version_operations, operation)

    def recorded_blind(self, blind: bool) -> bool | None:
        return _recorded_blind(self.blind_append_flag, blind)

    def operation_parameters(self, parameters: Mapping[str, Any]) -> dict[str, Any]:
        return dict(parameters)

    def condition_parameters(self, condition: str | None) -> dict[str, Any]:
        return {"predicate": compact_json([condition] if condition else [])}

    def merge_parameters(self, merge: MergeStatement) -> dict[str, Any]:
        return self.condition_parameters(merge.condition) | _clause_lists(
            merge.clauses,
            lambda c: {
                **({"predicate": c.condition} if c.condition else {}),
                "actionType": c.action,
            },
        )

    def optimize_parameters(self, condition: str | None, z_order: Sequence[str]) -> dict[str, Any]:
        return {**self.condition_parameters(condition), "zOrderBy": compact_json(list(z_order))}

    def add_columns(self, fields: Sequence[Mapping[str, Any]]) -> Recorded:
        return Recorded(
            operation="ADD COLUMNS",
            parameters={"columns": compact_json([{"column": f} for f in fields])},
        )

    def add_constraint(self, name: str | None, expr: str | None) -> Recorded:
        return Recorded(operation="ADD CONSTRAINT", parameters={"name": name, "expr": expr})

    def truncate(self) -> Recorded:
        return Recorded(operation="TRUNCATE", parameters={})

    def sync_identity(self, field: Mapping[str, Any]) -> Recorded:
        """``ALTER TABLE t ALTER COLUMN c SYNC IDENTITY``: Delta has no operation of that name;
        it records the column change with the column as it was (name, type, nullable and its
        metadata, the identity keys among them) as one JSON string (delta-io/delta
        ``DeltaOperations.ChangeColumn``)."""
        column = {k: field.get(k) for k in ("name", "type", "nullable")}
        column["metadata"] = dict(field.get("metadata") or {})
        return Recorded(operation="CHANGE COLUMN", parameters={"column": compact_json(column)})

    def replace_table(
        self, *, keyword: str, has_query: bool, partition_by: Sequence[str]
    ) -> Recorded:
        return Recorded(
            operation=f"{keyword} TABLE{' AS SELECT' if has_query else ''}",
            parameters={
                "isManaged": "false",
                "description": None,
                "partitionBy": compact_json(list(partition_by)),
                "properties": "{}",
            },
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeltaRsWriter:
    """delta-rs: plain SQL conditions, every parameter value a string, no ``isBlindAppend``
    and no ``isolationLevel``; no dynamic partition overwrite and no TRUNCATE."""

    blind_append_flag: BlindAppendFlag = BlindAppendFlag.NOT_WRITTEN
    records_isolation_level: bool = False
    dynamic_partition_overwrite: bool = False
    commit_info_order: tuple[str, ...] = DELTA_RS_COMMIT_INFO_ORDER
    read_version_operations: frozenset[str] | None = DELTA_RS_READ_VERSION_OPERATIONS
    records_txn_id: bool = False

    def records_read_version(self, operation: str) -> bool:
        return _records_read_version(self.read_version_operations, operation)

    def recorded_blind(self, blind: bool) -> bool | None:
        return _recorded_blind(self.blind_append_flag, blind)

    def operation_parameters(self, parameters: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v if isinstance(v, str) else compact_json(v) for k, v in parameters.items()}

    def condition_parameters(self, condition: str | None) -> dict[str, Any]:
        return {"predicate": condition} if condition else {}

    def merge_parameters(self, merge: MergeStatement) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if merge.target_only_on and not merge.has_not_matched_by_source:
            # streamed execution (the default) derives its read predicate from the ON conjuncts
            # over target columns only; with NOT MATCHED BY SOURCE it derives none
            params["predicate"] = merge.target_only_on
        params["mergePredicate"] = merge.merge_on
        return params | _clause_lists(
            merge.clauses,
            lambda c: {"actionType": c.action, **({"predicate": c.original} if c.original else {})},
        )

    def optimize_parameters(self, condition: str | None, z_order: Sequence[str]) -> dict[str, Any]:
        del condition, z_order  # delta-rs logs neither
        return {"predicate": "[]", "targetSize": "104857600"}

    def add_columns(self, fields: Sequence[Mapping[str, Any]]) -> Recorded:
        return Recorded(operation="ADD COLUMN", parameters={"fields": compact_json(list(fields))})

    def add_constraint(self, name: str | None, expr: str | None) -> Recorded:
        return Recorded(
            operation="ADD CONSTRAINT",
            parameters={"constraints": compact_json([{"name": name, "expr": expr}])},
        )

    def truncate(self) -> Recorded:
        return Recorded(
            operation="DELETE",
            parameters={},
            note="delta-rs has no TRUNCATE: modelled as DeltaTable.delete() without a predicate",
        )

    def sync_identity(self, field: Mapping[str, Any]) -> Recorded:
        del field
        raise ValueError(
            "delta-rs has no ALTER TABLE … SYNC IDENTITY (it writes no identity columns)"
        )

    def replace_table(
        self, *, keyword: str, has_query: bool, partition_by: Sequence[str]
    ) -> Recorded:
        del keyword, has_query, partition_by  # write_deltalake(mode="overwrite", schema_mode=...)
        return Recorded(operation="CREATE OR REPLACE TABLE", parameters={"mode": "Overwrite"})


SPARK = SparkWriter()
KERNEL = SparkWriter(
    blind_append_flag=BlindAppendFlag.ALWAYS_FALSE,
    records_isolation_level=False,
    commit_info_order=KERNEL_COMMIT_INFO_ORDER,
    read_version_operations=frozenset(),
)
DELTA_RS = DeltaRsWriter()


def arranged(writer: StatementWriter, commit_info: Mapping[str, Any]) -> dict[str, Any]:
    """``commit_info`` in the key order the writer serialises (unknown keys last)."""
    rank = {k: i for i, k in enumerate(writer.commit_info_order)}
    return dict(sorted(commit_info.items(), key=lambda kv: rank.get(kv[0], len(rank))))
