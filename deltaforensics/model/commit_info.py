"""Typed columns derived from raw ``commitInfo`` JSON text, tolerant of writer quirks.

``commitInfo`` is free-form: delta-rs lets callers put any key there with any type, so every
field is extracted as text and cast non-strictly (a ``"4"`` readVersion still reads as 4;
a nonsense value becomes null rather than an error).
"""

from __future__ import annotations

import polars as pl

_TEXT = (
    "operation",
    "isolationLevel",
    "engineInfo",
    "clientVersion",
    "txnId",
    "userId",
    "userName",
    "clusterId",
    "userMetadata",
    "kernelVersion",
)
_INT = ("timestamp", "inCommitTimestamp", "readVersion")
_JSON = ("operationParameters", "operationMetrics", "job", "notebook", "tags")

COLUMN_NAMES = {
    "operation": "operation",
    "isolationLevel": "isolation_level",
    "engineInfo": "engine_info",
    "clientVersion": "client_version",
    "txnId": "txn_id",
    "userId": "user_id",
    "userName": "user_name",
    "clusterId": "cluster_id",
    "userMetadata": "user_metadata",
    "kernelVersion": "kernel_version",
    "timestamp": "timestamp",
    "inCommitTimestamp": "in_commit_timestamp",
    "readVersion": "read_version",
    "isBlindAppend": "is_blind_append",
    "operationParameters": "operation_parameters",
    "operationMetrics": "operation_metrics",
    "job": "job",
    "notebook": "notebook",
    "tags": "tags",
}


def _get(key: str) -> pl.Expr:
    return pl.col("commit_info").str.json_path_match(f"$.{key}")


def commit_info_columns() -> list[pl.Expr]:
    """Expressions over a ``commit_info`` text column yielding the typed fields."""
    exprs = [_get(k).alias(COLUMN_NAMES[k]) for k in _TEXT]
    exprs += [
        _get(k).cast(pl.Float64, strict=False).cast(pl.Int64, strict=False).alias(COLUMN_NAMES[k])
        for k in _INT
    ]
    blind = _get("isBlindAppend").str.to_lowercase()
    exprs.append(
        pl.when(blind == "true")
        .then(True)
        .when(blind == "false")
        .then(False)
        .otherwise(None)
        .alias("is_blind_append")
    )
    exprs += [_get(k).alias(COLUMN_NAMES[k]) for k in _JSON]
    return exprs


def with_commit_info_columns(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(commit_info_columns())
