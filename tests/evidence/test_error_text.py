"""Conflict exceptions read out of job output: every fixture in ``texts/`` with every field.

Fixtures are realistic renderings of the formats in the semantics doc (A.7, A.9, F.6), the user
stories (users-and-peers 2.1) and, for delta-rs, ``str(e)`` captured from deltalake 1.6.6 runs
(field notes 3.2). Each case lists the fields that differ from ``ConflictEvidence``'s defaults;
every other field must hold its default. ``commit=TEXT`` means the conflicting commit must equal
the JSON printed in the message, with ``operationParameters`` re-encoded as on disk.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import MISSING, fields
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltaforensics.evidence import (
    ConflictEvidence,
    extract_conflicts,
    normalize_operation_parameters,
)
from deltaforensics.evidence.log_timestamps import parse_line_time
from deltaforensics.evidence.message_formats import parse_partition

TEXTS = Path(__file__).parent / "texts"
OSS = "https://docs.delta.io/latest/concurrency-control.html"
AZURE_OLD = "https://docs.microsoft.com/azure/databricks/delta/concurrency-control"
DBR_AZ = "https://learn.microsoft.com/azure/databricks/optimizations/isolation-level"
DBR_AWS = "https://docs.databricks.com/aws/en/optimizations/isolation-level"
TEXT = "from-text"
DECODED = {"operation_parameters_form": "decoded"}
ON_DISK = {"operation_parameters_form": "on-disk"}


def utc(y: int, mo: int, d: int, h: int, mi: int, s: int, ms: int = 0, *, offset_h: int = 0) -> int:
    tz = timezone(timedelta(hours=offset_h)) if offset_h else UTC
    return int(datetime(y, mo, d, h, mi, s, tzinfo=tz).timestamp()) * 1000 + ms


DEFAULTS: dict[str, object] = {
    f.name: (f.default if f.default_factory is MISSING else f.default_factory())
    for f in fields(ConflictEvidence)
    if f.name not in ("exception", "era", "engine")
}

SPARK_WINNER_42 = {
    "winner_version": 42,
    "winner_operation": "OPTIMIZE",
    "winner_timestamp": 1699348444512,
    "txn_id": "2b5e0a3c-7f0e-4f5f-b1f4-5f0d9e7a6c11",
    "winner_read_version": 41,
    "winner_isolation_level": "SnapshotIsolation",
    "winner_is_blind_append": False,
    "winner_engine_info": "Apache-Spark/3.3.2 Delta-Lake/2.3.0",
}


def dbr_rlc(
    line: int,
    time: str,
    exception: str,
    sub: str,
    version: int,
    op: str,
    table: str,
    **extra: object,
) -> dict[str, object]:
    h, mi, s = (int(x) for x in time.split(":"))
    case: dict[str, object] = {
        "exception": exception,
        "error_class": f"DELTA_{_CLASS[exception]}.{sub}",
        "subclass": sub,
        "era": "databricks",
        "engine": "databricks",
        "class_name": f"com.databricks.sql.transaction.tahoe.{exception}",
        "winner_version": version,
        "winner_operation": op,
        "table_name": table,
        "doc_link": DBR_AZ,
        "observed_at": utc(2025, 2, 11, h, mi, s),
        "line": line,
        "raw_starts": f"com.databricks.sql.transaction.tahoe.{exception}: [DELTA_",
        "raw_ends": "for more information. SQLSTATE: 2D521",
    }
    return case | extra


_CLASS = {
    "ConcurrentAppendException": "CONCURRENT_APPEND",
    "ConcurrentDeleteReadException": "CONCURRENT_DELETE_READ",
    "ConcurrentDeleteDeleteException": "CONCURRENT_DELETE_DELETE",
}

CASES: dict[str, list[dict[str, object]]] = {
    # ---- era A: plain sentences, OSS <= 3.1 and legacy classes -------------------------------------
    "era_a_streaming_append_caused_by.log": [
        {
            "exception": "ConcurrentAppendException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentAppendException",
            **SPARK_WINNER_42,
            "partition": {
                "entity_1": "acme",
                "entity_2": "94",
                "year": "2023",
                "month": "10",
                "day": "16",
            },
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2023, 11, 7, 9, 14, 7),
            "line": 4,
            "occurrences": 3,
            "raw_starts": "io.delta.exceptions.ConcurrentAppendException: Files were added to partition [entity_1=acme",
            "raw_ends": f"Refer to {OSS} for more details.",
            "commit": {
                "version": 42,
                "timestamp": 1699348444512,
                "operation": "OPTIMIZE",
                "operationParameters": {
                    "predicate": '["((year#3112 = 2023) AND (month#3113 = 10))"]',
                    "zOrderBy": '["device_id"]',
                },
                "readVersion": 41,
                "isolationLevel": "SnapshotIsolation",
                "isBlindAppend": False,
                "operationMetrics": {
                    "numRemovedFiles": "38",
                    "numRemovedBytes": "411822310",
                    "numAddedFiles": "2",
                    "numAddedBytes": "402113977",
                },
                "engineInfo": "Apache-Spark/3.3.2 Delta-Lake/2.3.0",
                "txnId": "2b5e0a3c-7f0e-4f5f-b1f4-5f0d9e7a6c11",
            },
        }
    ],
    "era_a_legacy_delete_read.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "org.apache.spark.sql.delta.ConcurrentDeleteReadException",
            "winner_version": 318,
            "winner_operation": "MERGE",
            "winner_timestamp": 1631628149023,
            "winner_read_version": 317,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.1.2 Delta-Lake/1.0.0",
            "partition": {"site": "lyon"},
            "file_path": "site=lyon/part-00003-7d1c6f0a-3b1e-4d6c-9a45-0c8b1a2f9e77.c000.snappy.parquet",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2021, 9, 14, 16, 2, 31),
            "line": 3,
            "raw_starts": "org.apache.spark.sql.delta.ConcurrentDeleteReadException: This transaction attempted to read",
            "raw_ends": "for more details.",
            "commit": {
                "version": 318,
                "timestamp": 1631628149023,
                "operation": "MERGE",
                "operationParameters": {
                    "predicate": "(t.`reading_id` = s.`reading_id`)",
                    "updatePredicate": None,
                    "deletePredicate": None,
                    "insertPredicate": None,
                    "matchedPredicates": '[{"actionType":"update"}]',
                    "notMatchedPredicates": '[{"actionType":"insert"}]',
                },
                "readVersion": 317,
                "isolationLevel": "Serializable",
                "isBlindAppend": False,
                "operationMetrics": {
                    "numTargetRowsCopied": "9120",
                    "numTargetRowsDeleted": "0",
                    "numTargetFilesAdded": "1",
                    "numTargetRowsInserted": "12",
                    "numTargetRowsUpdated": "48",
                    "numOutputRows": "9180",
                    "numSourceRows": "60",
                    "numTargetFilesRemoved": "1",
                },
                "engineInfo": "Apache-Spark/3.1.2 Delta-Lake/1.0.0",
            },
        }
    ],
    "era_a_tahoe_delete_delete.txt": [
        {
            "exception": "ConcurrentDeleteDeleteException",
            "era": "A",
            "engine": "databricks",
            "class_name": "com.databricks.sql.transaction.tahoe.ConcurrentDeleteDeleteException",
            "winner_version": 1187,
            "winner_operation": "OPTIMIZE",
            "winner_timestamp": 1674021612001,
            "txn_id": "e41a3b9c-5d62-4f0e-8b7a-0c9d2e1f3a45",
            "winner_read_version": 1186,
            "winner_isolation_level": "SnapshotIsolation",
            "winner_is_blind_append": False,
            "winner_engine_info": "Databricks-Runtime/11.3.x-scala2.12",
            "winner_user_id": "7634521098765432",
            "winner_user_name": "svc-overwatch@contoso.com",
            "winner_cluster_id": "0117-063011-x1y2z3ab",
            "winner_job": {
                "jobId": "912345678901234",
                "jobName": "overwatch-optimize",
                "runId": "55512345",
                "jobOwnerId": "7634521098765432",
                "triggerType": "cron",
            },
            "winner_notebook": {"notebookId": "3418827410292231"},
            "file_path": "organization_id=2222170229861029/part-00001-8c0f1c2e-1d7a-4e0b-b0f5-2a6d1c3e4f55.c000.snappy.parquet",
            "doc_link": AZURE_OLD,
            "details": DECODED,
            "line": 23,
            "raw_starts": "com.databricks.sql.transaction.tahoe.ConcurrentDeleteDeleteException: This transaction attempted to delete",
            "raw_ends": f"Refer to {AZURE_OLD} for more details.",
            "commit": TEXT,
        }
    ],
    "era_a_pyspark_metadata_changed.txt": [
        {
            "exception": "MetadataChangedException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "delta.exceptions.MetadataChangedException",
            "winner_version": 87,
            "winner_operation": "SET TBLPROPERTIES",
            "winner_timestamp": 1716283845211,
            "txn_id": "9c3f5e21-7a4b-4c8d-9e0f-1a2b3c4d5e6f",
            "winner_read_version": 86,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/3.4.1 Delta-Lake/2.4.0",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2024, 5, 21, 9, 30, 46, 2),
            "line": 11,
            "raw_starts": "delta.exceptions.MetadataChangedException: The metadata of the Delta table has been changed",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    "era_a_protocol_changed_two_threads.log": [
        {
            "exception": "ProtocolChangedException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "org.apache.spark.sql.delta.ProtocolChangedException",
            "winner_version": 0,
            "winner_operation": "WRITE",
            "winner_timestamp": 1610615436870,
            "winner_is_blind_append": True,
            "doc_link": OSS,
            "details": {"empty_directory": True, **DECODED},
            "line": 1,
            "occurrences": 2,
            "raw_starts": "org.apache.spark.sql.delta.ProtocolChangedException: The protocol version",
            "raw_ends": "for more details.",
            "commit": {
                "version": 0,
                "timestamp": 1610615436870,
                "operation": "WRITE",
                "operationParameters": {"mode": "Append", "partitionBy": "[]"},
                "isBlindAppend": True,
            },
        }
    ],
    "era_a_concurrent_transaction.log": [
        {
            "exception": "ConcurrentTransactionException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentTransactionException",
            "winner_version": 5521,
            "winner_operation": "STREAMING UPDATE",
            "winner_timestamp": 1670003109884,
            "txn_id": "5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f",
            "winner_read_version": 5520,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/3.3.1 Delta-Lake/2.1.1",
            "doc_link": OSS,
            "observed_at": utc(2022, 12, 2, 17, 45, 10),
            "line": 3,
            "raw_starts": "io.delta.exceptions.ConcurrentTransactionException: This error occurs when multiple streaming",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    "era_a_concurrent_write.txt": [
        {
            "exception": "ConcurrentWriteException",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "org.apache.spark.sql.delta.ConcurrentWriteException",
            "winner_version": 2210,
            "winner_operation": "WRITE",
            "winner_timestamp": 1662453002310,
            "txn_id": "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
            "winner_read_version": 2209,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.2.2 Delta-Lake/2.0.0",
            "doc_link": OSS,
            "details": DECODED,
            "line": 2,
            "raw_starts": "org.apache.spark.sql.delta.ConcurrentWriteException: A concurrent transaction has written",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    "era_a_max_commit_retries.log": [
        {
            "exception": "MaxCommitRetriesExceeded",
            "kind": "retries-exhausted",
            "era": "A",
            "engine": "delta-spark",
            "class_name": "java.lang.IllegalStateException",
            "details": {
                "attempts": 10000000,
                "start_version": 40112,
                "failed_version": 40297,
                "actions": 2,
                "time_spent_ms": 256118,
            },
            "observed_at": utc(2021, 5, 3, 2, 19, 7),
            "line": 3,
            "raw_starts": "java.lang.IllegalStateException: This commit has failed as it has been tried 10000000 times",
            "raw_ends": "Total time spent attempting this commit: 256118 ms",
        }
    ],
    # ---- era B: [DELTA_...] ClassName: sentence, OSS 3.2-4.0 ----------------------------------------
    "delta_max_commit_retries.log": [
        {
            "exception": "MaxCommitRetriesExceeded",
            "kind": "retries-exhausted",
            "era": "B",
            "engine": "delta-spark",
            "error_class": "DELTA_MAX_COMMIT_RETRIES_EXCEEDED",
            "class_name": "org.apache.spark.sql.delta.DeltaIllegalStateException",
            "details": {
                "attempts": 50,
                "start_version": 1200,
                "failed_version": 1250,
                "actions": 3,
                "time_spent_ms": 48211,
            },
            "observed_at": utc(2025, 6, 12, 3, 41, 17, 906),
            "line": 3,
            "raw_starts": "org.apache.spark.sql.delta.DeltaIllegalStateException: [DELTA_MAX_COMMIT_RETRIES_EXCEEDED] This commit",
            "raw_ends": "Total time spent attempting this commit: 48211 ms",
        }
    ],
    "era_b_pyspark_append_root_jvm_stacktrace.txt": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentAppendException",
            "winner_version": 1532,
            "winner_operation": "WRITE",
            "winner_timestamp": 1717420980411,
            "txn_id": "a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d",
            "winner_read_version": 1531,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/3.5.1 Delta-Lake/3.2.0",
            "partition": {},
            "whole_table": True,
            "doc_link": OSS,
            "details": DECODED,
            "line": 11,
            "occurrences": 2,
            "raw_starts": "delta.exceptions.ConcurrentAppendException: [DELTA_CONCURRENT_APPEND] ConcurrentAppendException: "
            "Files were added to the root of the table",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    "era_b_append_retry_hint.log": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentAppendException",
            "winner_version": 77,
            "winner_operation": "WRITE",
            "winner_timestamp": 1740895208801,
            "winner_engine_info": "delta-rs:py-1.6.6",
            "partition": {"event_date": "2025-03-02", "source": "kafka"},
            "retry_hint": True,
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2025, 3, 2, 6, 0, 12, 118),
            "line": 3,
            "raw_starts": "io.delta.exceptions.ConcurrentAppendException: [DELTA_CONCURRENT_APPEND]",
            "raw_ends": "for more details.",
            "commit": {
                "version": 77,
                "timestamp": 1740895208801,
                "operation": "WRITE",
                "operationParameters": {"mode": "Append", "partitionBy": '["event_date","source"]'},
                "engineInfo": "delta-rs:py-1.6.6",
            },
        }
    ],
    "era_b_delete_read_airflow.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "error_class": "DELTA_CONCURRENT_DELETE_READ",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "delta.exceptions.ConcurrentDeleteReadException",
            "winner_version": 644,
            "winner_operation": "OPTIMIZE",
            "winner_timestamp": 1736936528120,
            "txn_id": "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7",
            "winner_read_version": 643,
            "winner_isolation_level": "SnapshotIsolation",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.5.3 Delta-Lake/3.3.0",
            "partition": {"date": "2025-01-15"},
            "file_path": "date=2025-01-15/part-00004-1f2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.c000.snappy.parquet",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2025, 1, 15, 10, 22, 31),
            "line": 9,
            "raw_starts": "delta.exceptions.ConcurrentDeleteReadException: [DELTA_CONCURRENT_DELETE_READ]",
            "raw_ends": "for more details.",
            "commit": {
                "version": 644,
                "timestamp": 1736936528120,
                "operation": "OPTIMIZE",
                "operationParameters": {
                    "predicate": '["(date#812 = 2025-01-15)"]',
                    "zOrderBy": "[]",
                    "auto": "false",
                    "clusterBy": "[]",
                },
                "readVersion": 643,
                "isolationLevel": "SnapshotIsolation",
                "isBlindAppend": False,
                "operationMetrics": {"numRemovedFiles": "17", "numAddedFiles": "1"},
                "engineInfo": "Apache-Spark/3.5.3 Delta-Lake/3.3.0",
                "txnId": "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7",
            },
        }
    ],
    "era_b_delete_delete.log": [
        {
            "exception": "ConcurrentDeleteDeleteException",
            "error_class": "DELTA_CONCURRENT_DELETE_DELETE",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentDeleteDeleteException",
            "winner_version": 3091,
            "winner_operation": "DELETE",
            "winner_timestamp": 1728305512877,
            "txn_id": "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
            "winner_read_version": 3090,
            "winner_isolation_level": "WriteSerializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.5.2 Delta-Lake/3.2.1",
            "file_path": "part-00017-2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f-c000.snappy.parquet",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2024, 10, 7, 12, 51, 53),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentDeleteDeleteException: [DELTA_CONCURRENT_DELETE_DELETE]",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    "era_b_delete_read_root_and_whole_table.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "error_class": "DELTA_CONCURRENT_DELETE_READ",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentDeleteReadException",
            "winner_version": 19,
            "winner_operation": "DELETE",
            "winner_timestamp": 1718011200456,
            "txn_id": "11111111-2222-4333-8444-555555555555",
            "winner_read_version": 18,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.5.1 Delta-Lake/3.2.0",
            "partition": {},
            "whole_table": True,
            "file_path": "part-00000-5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e-c000.snappy.parquet",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2024, 6, 10, 9, 20, 1, 207),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentDeleteReadException:",
            "raw_ends": "for more details.",
            "commit": TEXT,
        },
        {
            "exception": "ConcurrentDeleteReadException",
            "error_class": "DELTA_CONCURRENT_DELETE_READ",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentDeleteReadException",
            "winner_version": 20,
            "winner_operation": "MERGE",
            "winner_timestamp": 1718011260999,
            "txn_id": "66666666-7777-4888-9999-aaaaaaaaaaaa",
            "winner_read_version": 19,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.5.1 Delta-Lake/3.2.0",
            "whole_table": True,
            "file_path": "region=emea/part-00002-0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b.c000.snappy.parquet",
            "doc_link": OSS,
            "details": DECODED,
            "observed_at": utc(2024, 6, 10, 9, 21, 4, 511),
            "line": 6,
            "raw_starts": "io.delta.exceptions.ConcurrentDeleteReadException:",
            "raw_ends": "for more details.",
            "commit": TEXT,
        },
    ],
    "truncated_conflicting_commit.log": [
        {
            "exception": "MetadataChangedException",
            "error_class": "DELTA_METADATA_CHANGED",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.MetadataChangedException",
            "winner_version": 77,
            "winner_operation": "RESTORE",
            "winner_timestamp": 1739261101220,
            "winner_read_version": 76,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "doc_link": OSS,
            "details": {"conflicting_commit_truncated": True},
            "observed_at": utc(2025, 2, 11, 8, 5, 3, 117),
            "line": 2,
            "raw_starts": "io.delta.exceptions.MetadataChangedException: [DELTA_METADATA_CHANGED]",
            "raw_ends": "for more details.",
            # Only what survived the cut, and RESTORE's operationParameters.version is not the winner.
            "commit": {
                "version": 77,
                "timestamp": 1739261101220,
                "operation": "RESTORE",
                "readVersion": 76,
                "isolationLevel": "Serializable",
                "isBlindAppend": False,
            },
        }
    ],
    # ---- era C: OSS >= 4.1 --------------------------------------------------------------------------
    "era_c_append_partition_hint.log": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT",
            "subclass": "WITH_PARTITION_HINT",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentAppendException",
            "winner_version": 913,
            "winner_operation": "MERGE",
            "table_name": "spark_catalog.sales.orders",
            "partition": {"order_date": "2026-08-19", "region": "EU"},
            "doc_link": OSS,
            "observed_at": utc(2026, 8, 20, 22, 5, 13, 118),
            "line": 3,
            "occurrences": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentAppendException: [DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT] "
            "Transaction conflict detected.",
            "raw_ends": f"Refer to {OSS} for more information.",
        }
    ],
    "era_c_append_without_hint_pyspark.txt": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND.WITHOUT_HINT",
            "subclass": "WITHOUT_HINT",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "delta.exceptions.ConcurrentAppendException",
            "winner_version": 58,
            "winner_operation": "TRANSACTION",
            "table_name": "delta.`/data/lake/events`",
            "doc_link": OSS,
            "line": 12,
            "raw_starts": "delta.exceptions.ConcurrentAppendException: [DELTA_CONCURRENT_APPEND.WITHOUT_HINT]",
            "raw_ends": "for more information.",
        }
    ],
    "era_c_delete_read_partition_hint.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "error_class": "DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT",
            "subclass": "WITH_PARTITION_HINT",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentDeleteReadException",
            "winner_version": 5120,
            "winner_operation": "UPDATE",
            "table_name": "spark_catalog.iot.readings",
            "partition": {"plant": "ulm", "day": "2026-08-20"},
            "doc_link": OSS,
            "observed_at": utc(2026, 8, 21, 3, 0, 44, 905, offset_h=2),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentDeleteReadException: [DELTA_CONCURRENT_DELETE_READ.",
            "raw_ends": "for more information.",
        }
    ],
    "era_c_delete_delete_without_hint.log": [
        {
            "exception": "ConcurrentDeleteDeleteException",
            "error_class": "DELTA_CONCURRENT_DELETE_DELETE.WITHOUT_HINT",
            "subclass": "WITHOUT_HINT",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentDeleteDeleteException",
            "winner_version": 771,
            "winner_operation": "DELETE",
            "table_name": "spark_catalog.fin.ledger",
            "doc_link": OSS,
            "observed_at": utc(2026, 8, 21, 4, 12, 9),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentDeleteDeleteException: [DELTA_CONCURRENT_DELETE_DELETE.WITHOUT_HINT]",
            "raw_ends": "for more information.",
        }
    ],
    "era_c_metadata_changed_table_name.log": [
        {
            "exception": "MetadataChangedException",
            "error_class": "DELTA_METADATA_CHANGED",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.MetadataChangedException",
            "winner_version": 204,
            "winner_operation": "SET TBLPROPERTIES",
            "winner_timestamp": 1787342401553,
            "txn_id": "c0ffee00-1234-4567-89ab-cdef01234567",
            "winner_read_version": 203,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/4.1.0 Delta-Lake/4.4.0",
            "table_name": "spark_catalog.bronze.devices",
            "doc_link": OSS,
            "details": ON_DISK,
            "observed_at": utc(2026, 8, 21, 8, 0, 3, 4),
            "line": 2,
            "raw_starts": "io.delta.exceptions.MetadataChangedException: [DELTA_METADATA_CHANGED]",
            "raw_ends": "for more details.",
            "commit": {
                "version": 204,
                "inCommitTimestamp": 1787342401553,
                "timestamp": 1787342401553,
                "operation": "SET TBLPROPERTIES",
                "operationParameters": {"properties": '{"delta.enableChangeDataFeed":"true"}'},
                "readVersion": 203,
                "isolationLevel": "Serializable",
                "isBlindAppend": True,
                "operationMetrics": {},
                "engineInfo": "Apache-Spark/4.1.0 Delta-Lake/4.4.0",
                "txnId": "c0ffee00-1234-4567-89ab-cdef01234567",
            },
        }
    ],
    "era_c_protocol_changed.log": [
        {
            "exception": "ProtocolChangedException",
            "error_class": "DELTA_PROTOCOL_CHANGED",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ProtocolChangedException",
            "winner_version": 31,
            "winner_operation": "SET TBLPROPERTIES",
            "winner_timestamp": 1770000001000,
            "txn_id": "0a0a0a0a-1b1b-4c2c-8d3d-4e4e4e4e4e4e",
            "winner_read_version": 30,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/4.0.1 Delta-Lake/4.2.0",
            "doc_link": OSS,
            "details": ON_DISK,
            "observed_at": utc(2026, 2, 2, 2, 40, 1),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ProtocolChangedException: [DELTA_PROTOCOL_CHANGED]",
            "raw_ends": "for more details.",
            "commit": TEXT,
        },
        {
            "exception": "ProtocolChangedException",
            "error_class": "DELTA_PROTOCOL_CHANGED",
            "era": "C",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ProtocolChangedException",
            "winner_version": 0,
            "winner_operation": "WRITE",
            "winner_timestamp": 1770003600500,
            "txn_id": "5f5f5f5f-6a6a-4b7b-8c8c-9d9d9d9d9d9d",
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/4.0.1 Delta-Lake/4.2.0",
            "doc_link": OSS,
            "details": {"empty_directory": True, **ON_DISK},
            "observed_at": utc(2026, 2, 2, 3, 40, 1),
            "line": 6,
            "raw_starts": "io.delta.exceptions.ProtocolChangedException: [DELTA_PROTOCOL_CHANGED]",
            "raw_ends": "for more details.",
            "commit": TEXT,
        },
    ],
    "era_c_transaction_and_write.log": [
        {  # the text did not change in 4.1 and no parameter is an array or object: nothing dates it past B
            "exception": "ConcurrentTransactionException",
            "error_class": "DELTA_CONCURRENT_TRANSACTION",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentTransactionException",
            "winner_version": 9001,
            "winner_operation": "STREAMING UPDATE",
            "winner_timestamp": 1787400000123,
            "txn_id": "0f1e2d3c-4b5a-4697-8877-665544332211",
            "winner_read_version": 9000,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": True,
            "winner_engine_info": "Apache-Spark/4.1.0 Delta-Lake/4.1.0",
            "doc_link": OSS,
            "observed_at": utc(2026, 8, 22, 10, 0, 2, 551),
            "line": 2,
            "raw_starts": "io.delta.exceptions.ConcurrentTransactionException: [DELTA_CONCURRENT_TRANSACTION]",
            "raw_ends": "for more details.",
            "commit": TEXT,
        },
        {
            "exception": "ConcurrentWriteException",
            "error_class": "DELTA_CONCURRENT_WRITE",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "io.delta.exceptions.ConcurrentWriteException",
            "doc_link": OSS,
            "observed_at": utc(2026, 8, 22, 10, 7, 45, 2),
            "line": 6,
            "raw_starts": "io.delta.exceptions.ConcurrentWriteException: [DELTA_CONCURRENT_WRITE]",
            "raw_ends": "for more details.",
        },
    ],
    # ---- Databricks ---------------------------------------------------------------------------------
    "dbr_notebook_whole_table_read.txt": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND.WHOLE_TABLE_READ",
            "subclass": "WHOLE_TABLE_READ",
            "era": "databricks",
            "engine": "databricks",
            "class_name": "ConcurrentAppendException",
            "winner_version": 412,
            "winner_operation": "WRITE",
            "table_name": "`main`.`sales`.`orders`",
            "whole_table": True,
            "doc_link": DBR_AWS,
            "line": 1,
            "occurrences": 2,
            "raw_starts": "ConcurrentAppendException: [DELTA_CONCURRENT_APPEND.WHOLE_TABLE_READ] Transaction conflict",
            "raw_ends": "for more information. SQLSTATE: 2D521",
        }
    ],
    "dbr_job_driver_log_rlc_subclasses.log": [
        dbr_rlc(
            3,
            "08:00:03",
            "ConcurrentAppendException",
            "ROW_LEVEL_CHANGES",
            1841,
            "MERGE",
            "main.crm.contacts",
            winner_timestamp=1739260801907,
            txn_id="7d6c5b4a-3928-4716-a5b4-c3d2e1f0a9b8",
            winner_read_version=1840,
            winner_isolation_level="WriteSerializable",
            winner_is_blind_append=False,
            winner_engine_info="Databricks-Runtime/15.4.x-photon-scala2.12",
            winner_user_id="4410237781230019",
            winner_user_name="etl-sp@contoso.onmicrosoft.com",
            winner_cluster_id="0211-074455-tq8zl1ab",
            winner_job={
                "jobId": "771203388120441",
                "jobName": "crm-sync",
                "runId": "9120033451",
                "jobOwnerId": "4410237781230019",
                "triggerType": "periodic",
            },
            details=DECODED,
            raw_ends='"txnId":"7d6c5b4a-3928-4716-a5b4-c3d2e1f0a9b8"}',
            commit=TEXT,
        ),
        dbr_rlc(
            8,
            "08:15:41",
            "ConcurrentAppendException",
            "PARTITIONED_TABLE_WITHOUT_MERGE_SOURCE",
            5590,
            "UPDATE",
            "main.crm.activities",
        ),
        dbr_rlc(
            12,
            "08:31:09",
            "ConcurrentAppendException",
            "PREDICATES_NEED_REWRITE",
            1850,
            "DELETE",
            "main.crm.contacts",
        ),
        dbr_rlc(
            16,
            "09:02:55",
            "ConcurrentAppendException",
            "METADATA_CHANGE",
            1862,
            "SET TBLPROPERTIES",
            "main.crm.contacts",
        ),
        dbr_rlc(
            20,
            "09:40:00",
            "ConcurrentAppendException",
            "PROTOCOL_CHANGE",
            1870,
            "UPGRADE PROTOCOL",
            "main.crm.contacts",
        ),
        dbr_rlc(
            24,
            "10:12:13",
            "ConcurrentAppendException",
            "CHANGE_TYPE_COLUMN",
            311,
            "WRITE",
            "main.crm.audit",
        ),
        dbr_rlc(
            28,
            "10:45:30",
            "ConcurrentDeleteReadException",
            "ALLOTTED_TIME_EXCEEDED",
            1881,
            "MERGE",
            "main.crm.contacts",
        ),
        dbr_rlc(
            32,
            "11:01:02",
            "ConcurrentDeleteReadException",
            "EMPTY_READ_PREDICATES",
            1890,
            "DELETE",
            "main.crm.contacts",
            whole_table=True,
        ),
        dbr_rlc(
            36,
            "11:30:45",
            "ConcurrentAppendException",
            "WHOLE_TABLE_REPLACE",
            77,
            "CREATE OR REPLACE TABLE AS SELECT",
            "main.crm.segments",
            whole_table=True,
            doc_link=DBR_AWS,
        ),
        dbr_rlc(
            40,
            "11:58:20",
            "ConcurrentDeleteReadException",
            "ROW_LEVEL_CHANGES",
            1901,
            "UPDATE",
            "main.crm.contacts",
        ),
        # WITH_PARTITION_HINT exists in OSS >= 4.1 too: era C, yet rendered by Databricks.
        dbr_rlc(
            44,
            "12:00:00",
            "ConcurrentDeleteDeleteException",
            "WITH_PARTITION_HINT",
            66,
            "OPTIMIZE",
            "main.ops.events",
            era="C",
            partition={"event_date": "2025-02-10"},
        ),
    ],
    "dbr_14_3_connect_pytest.txt": [
        {
            "exception": "ConcurrentAppendException",
            "era": "A",
            "engine": "databricks",
            "class_name": "delta.connect.exceptions.ConcurrentAppendException",
            "winner_operation": "CREATE OR REPLACE TABLE AS SELECT",
            "winner_timestamp": 1711447562908,
            "txn_id": "4b1c2d3e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
            "winner_read_version": 412,
            "winner_isolation_level": "WriteSerializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Databricks-Runtime/14.3.x-scala2.12",
            "partition": {},
            "whole_table": True,
            "doc_link": AZURE_OLD,
            "details": DECODED,
            "line": 26,
            "occurrences": 2,
            "raw_starts": "delta.connect.exceptions.ConcurrentAppendException: Files were added to the root of the table",
            "raw_ends": f"Refer to {AZURE_OLD} for more details.",
            # DBR 14.3: no "version", parameters double-decoded; re-encoded as they are on disk.
            "commit": {
                "timestamp": 1711447562908,
                "operation": "CREATE OR REPLACE TABLE AS SELECT",
                "operationParameters": {
                    "partitionBy": "[]",
                    "clusterBy": "[]",
                    "description": None,
                    "isManaged": "true",
                    "properties": '{"delta.enableDeletionVectors":"true"}',
                    "statsOnLoad": "false",
                },
                "readVersion": 412,
                "isolationLevel": "WriteSerializable",
                "isBlindAppend": False,
                "operationMetrics": {
                    "numFiles": "2",
                    "numOutputRows": "18",
                    "numOutputBytes": "6120",
                    "conflictDetectionTimeMs": "31",
                },
                "tags": {"restoresDeletedRows": "false"},
                "engineInfo": "Databricks-Runtime/14.3.x-scala2.12",
                "txnId": "4b1c2d3e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
            },
        }
    ],
    "dbr_cras_ci_job.txt": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND",
            "era": "B",
            "engine": "databricks",
            "class_name": "com.databricks.sql.transaction.tahoe.ConcurrentAppendException",
            "winner_operation": "CREATE OR REPLACE TABLE AS SELECT",
            "winner_timestamp": 1696528812377,
            "txn_id": "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
            "winner_read_version": 15,
            "winner_isolation_level": "WriteSerializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Databricks-Runtime/13.3.x-scala2.12",
            "winner_user_id": "5570231009811184",
            "winner_user_name": "pixels-ci@contoso.com",
            "winner_cluster_id": "1005-201512-9k8ah4zb",
            "winner_job": {
                "jobId": "1066132880153339",
                "jobName": "pixels-ci",
                "runId": "483712",
                "jobOwnerId": "5570231009811184",
                "triggerType": "manual",
            },
            "winner_notebook": {"notebookId": "4049412881302377"},
            "partition": {},
            "whole_table": True,
            "doc_link": "https://docs.databricks.com/delta/concurrency-control.html",
            "details": DECODED,
            "line": 2,
            "occurrences": 2,
            "raw_starts": "[DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added",
            "raw_ends": "for more details.",
            "commit": TEXT,
        }
    ],
    # ---- delta-rs (str(e) verbatim from deltalake 1.6.6) -------------------------------------------
    "deltars_concurrent_append_traceback.txt": [
        {
            "exception": "ConcurrentAppendException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "_internal.CommitFailedError",
            "line": 9,
            "raw_starts": "_internal.CommitFailedError: Failed to commit transaction: Commit failed: a concurrent "
            "transactions added new data.\nHelp: This transaction's query must be rerun to include the new data.",
            "raw_ends": "the isolation level can be set to Snapshot Isolation.",
        }
    ],
    "deltars_delete_read_maintenance.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "_internal.CommitFailedError",
            "observed_at": utc(2026, 3, 2, 11, 47, 9, 331),
            "line": 10,
            "raw_starts": "_internal.CommitFailedError: Failed to commit transaction: Commit failed: a concurrent "
            "transaction deleted data this operation read.\nHelp: This transaction's query must be rerun to exclude",
            "raw_ends": "Snapshot Isolation.",
        }
    ],
    "deltars_metadata_changed.txt": [
        {
            "exception": "MetadataChangedException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "_internal.CommitFailedError",
            "line": 6,
            "raw_starts": "_internal.CommitFailedError: Failed to commit transaction: Metadata changed since last commit.",
            "raw_ends": "Metadata changed since last commit.",
        }
    ],
    "deltars_protocol_changed.log": [
        {
            "exception": "ProtocolChangedException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "CommitFailedError",
            "details": {
                "reason": "required read/write 3/7, current read/write 1/2",
                "required_reader_version": 3,
                "required_writer_version": 7,
                "current_reader_version": 1,
                "current_writer_version": 2,
            },
            "observed_at": utc(2026, 8, 21, 10, 15, 3, 412),
            "line": 1,
            "raw_starts": "CommitFailedError('Failed to commit transaction: Protocol changed since last commit: "
            "required read/write 3/7",
            "raw_ends": "current read/write 1/2",
        },
        {
            "exception": "ProtocolChangedException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "CommitFailedError",
            "details": {
                "reason": "required read/write 1/7, current read/write 1/2",
                "required_reader_version": 1,
                "required_writer_version": 7,
                "current_reader_version": 1,
                "current_writer_version": 2,
            },
            "observed_at": utc(2026, 8, 21, 10, 16, 40, 9),
            "line": 2,
            "raw_starts": "CommitFailedError('Failed to commit transaction: Protocol changed",
            "raw_ends": "1/2",
        },
    ],
    "deltars_concurrent_transaction.log": [
        {
            "exception": "ConcurrentTransactionException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "_internal.CommitFailedError",
            "observed_at": utc(2026, 11, 21, 16, 35, 24, 67),
            "line": 7,
            "raw_starts": "_internal.CommitFailedError: Failed to commit transaction: Concurrent transaction failed.",
            "raw_ends": "Concurrent transaction failed.",
        }
    ],
    "deltars_max_commit_attempts.txt": [
        {
            "exception": "MaxCommitRetriesExceeded",
            "kind": "retries-exhausted",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "CommitFailedError",
            "details": {"attempts": 0},
            "observed_at": utc(2026, 5, 4, 7, 30, 2, offset_h=2),
            "line": 2,
            "raw_starts": "CommitFailedError('Failed to commit transaction: 0",
            "raw_ends": "transaction: 0",
        }
    ],
    "deltars_delete_delete_rust.log": [
        {
            "exception": "ConcurrentDeleteDeleteException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "observed_at": utc(2026, 8, 21, 9, 12, 47, 508),
            "line": 2,
            "raw_starts": "Transaction failed: Failed to commit transaction: Commit failed: a concurrent transaction "
            "deleted the same data your transaction deletes.\nHelp: you should retry this write operation.",
            "raw_ends": "you should rerun the query generating the data.",
        }
    ],
    "deltars_json_lines.jsonl": [
        {
            "exception": "ConcurrentAppendException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "CommitFailedError",
            "observed_at": 1787394601377,
            "line": 2,
            "raw_starts": 'CommitFailedError(\\"Failed to commit transaction: Commit failed: a concurrent transactions '
            "added new data.\\\\nHelp:",
            "raw_ends": "Snapshot Isolation.",
        },
        {  # same message a minute later: another failure, not a repeat
            "exception": "ConcurrentAppendException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "class_name": "CommitFailedError",
            "observed_at": 1787394660902,
            "line": 3,
            "raw_starts": 'CommitFailedError(\\"Failed to commit transaction:',
            "raw_ends": "Snapshot Isolation.",
        },
    ],
    "deltars_rust_debug.log": [
        {
            "exception": "ConcurrentDeleteReadException",
            "era": "delta-rs",
            "engine": "delta-rs",
            "observed_at": utc(2026, 8, 21, 11, 0, 0, 1),
            "line": 1,
            "raw_starts": "Transaction { source: CommitConflict(ConcurrentDeleteRead)",
            "raw_ends": "CommitConflict(ConcurrentDeleteRead)",
        },
        {
            "exception": "MaxCommitRetriesExceeded",
            "kind": "retries-exhausted",
            "era": "delta-rs",
            "engine": "delta-rs",
            "details": {"attempts": 15},
            "observed_at": utc(2026, 8, 21, 11, 5, 0, 2),
            "line": 2,
            "raw_starts": "Transaction { source: MaxCommitAttempts(15)",
            "raw_ends": "MaxCommitAttempts(15)",
        },
    ],
    # ---- other shapes -------------------------------------------------------------------------------
    "notebook_escaped_outputs.ipynb.json": [
        {
            "exception": "ConcurrentAppendException",
            "error_class": "DELTA_CONCURRENT_APPEND",
            "era": "B",
            "engine": "delta-spark",
            "class_name": "ConcurrentAppendException",
            "winner_version": 905,
            "winner_operation": "MERGE",
            "winner_timestamp": 1730714400001,
            "txn_id": "12345678-9abc-4def-8123-456789abcdef",
            "winner_read_version": 904,
            "winner_isolation_level": "Serializable",
            "winner_is_blind_append": False,
            "winner_engine_info": "Apache-Spark/3.5.3 Delta-Lake/3.3.0",
            "partition": {"country": "DE"},
            "doc_link": OSS,
            "details": DECODED,
            "line": 14,
            "occurrences": 2,
            "raw_starts": "[DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added to partition [country=DE]",
            "raw_ends": "for more details.",
            "commit": {
                "version": 905,
                "timestamp": 1730714400001,
                "operation": "MERGE",
                "operationParameters": {
                    "predicate": '["((country#1 = DE) AND (id#2L = id#9L))"]',
                    "matchedPredicates": '[{"actionType":"update"}]',
                    "notMatchedPredicates": '[{"actionType":"insert"}]',
                    "notMatchedBySourcePredicates": "[]",
                },
                "readVersion": 904,
                "isolationLevel": "Serializable",
                "isBlindAppend": False,
                "engineInfo": "Apache-Spark/3.5.3 Delta-Lake/3.3.0",
                "txnId": "12345678-9abc-4def-8123-456789abcdef",
            },
        }
    ],
    "no_conflicts.log": [],
}


def _reencode(commit: dict[str, object]) -> dict[str, object]:
    """The test's own statement of the on-disk form: containers and scalars as JSON text."""
    params = commit.get("operationParameters")
    if isinstance(params, dict):
        commit = commit | {
            "operationParameters": {
                k: v if v is None or isinstance(v, str) else json.dumps(v, separators=(",", ":"))
                for k, v in params.items()
            }
        }
    return commit


def _commit_in(raw: str) -> dict[str, object]:
    start = raw.index("Conflicting commit: ") + len("Conflicting commit: ")
    obj, _ = json.JSONDecoder().raw_decode(raw, start)
    assert isinstance(obj, dict)
    return _reencode(obj)


def test_every_fixture_has_its_expectations() -> None:
    assert sorted(p.name for p in TEXTS.iterdir()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_yields_exactly_the_expected_evidence(name: str) -> None:
    found = extract_conflicts((TEXTS / name).read_text(encoding="utf-8"), source=name)
    assert len(found) == len(CASES[name]), [e.exception for e in found]
    for evidence, listed in zip(found, CASES[name], strict=True):
        case = dict(listed)
        starts, ends, commit = (
            case.pop("raw_starts"),
            case.pop("raw_ends"),
            case.pop("commit", None),
        )
        actual = evidence.to_dict()
        raw = actual.pop("raw")
        assert isinstance(raw, str)
        assert raw.startswith(str(starts)), raw[:200]
        assert raw.endswith(str(ends)), raw[-200:]
        assert len(raw) <= 2000
        expected = DEFAULTS | {"source": name} | case
        expected["conflicting_commit"] = _commit_in(raw) if commit == TEXT else commit
        assert actual == {k: expected[k] for k in actual}, name


@pytest.mark.parametrize("name", sorted(CASES))
def test_windows_line_endings_read_the_same(name: str) -> None:
    text = (TEXTS / name).read_text(encoding="utf-8")

    def without_raw(found: list[ConflictEvidence]) -> list[dict[str, object]]:
        return [{k: v for k, v in e.to_dict().items() if k != "raw"} for e in found]

    assert without_raw(extract_conflicts(text.replace("\n", "\r\n"))) == without_raw(
        extract_conflicts(text)
    )


def test_double_decoded_parameters_are_reencoded_like_on_disk() -> None:
    (evidence,) = extract_conflicts((TEXTS / "dbr_14_3_connect_pytest.txt").read_text())
    params = (
        evidence.conflicting_commit["operationParameters"] if evidence.conflicting_commit else None
    )
    assert params == {
        "partitionBy": "[]",
        "clusterBy": "[]",
        "description": None,
        "isManaged": "true",
        "properties": '{"delta.enableDeletionVectors":"true"}',
        "statsOnLoad": "false",
    }
    assert evidence.winner_version is None  # DBR 14.3 omits it: match by txn_id / timestamp instead
    assert evidence.details == DECODED


def test_normalize_operation_parameters_gives_one_shape() -> None:
    on_disk = {"predicate": '["(id = 1)"]', "auto": False, "version": 12, "timestamp": None}
    decoded = {"predicate": ["(id = 1)"], "auto": False, "version": 12, "timestamp": None}
    expected = {"predicate": '["(id = 1)"]', "auto": "false", "version": "12", "timestamp": None}
    assert normalize_operation_parameters(on_disk) == (expected, False)
    assert normalize_operation_parameters(decoded) == (expected, True)
    assert normalize_operation_parameters("not a dict") == (None, False)


def test_empty_directory_hint_means_version_zero_even_without_version_in_the_json() -> None:
    text = (
        "ProtocolChangedException: [DELTA_PROTOCOL_CHANGED] ProtocolChangedException: The protocol version of the "
        "Delta table has been changed by a concurrent update. This happens when multiple writers are writing to an "
        "empty directory. Creating the table ahead of time will avoid this conflict. \n"
        'Conflicting commit: {"timestamp":1711000000000,"userId":"42","operation":"CREATE TABLE AS SELECT",'
        '"operationParameters":{"partitionBy":[],"isManaged":true},"isolationLevel":"WriteSerializable",'
        '"isBlindAppend":true,"engineInfo":"Databricks-Runtime/14.3.x-scala2.12","txnId":"t-1"}\n'
        "Refer to https://docs.databricks.com/delta/concurrency-control.html for more details."
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.exception, evidence.winner_version, evidence.engine) == (
        "ProtocolChangedException",
        0,
        "databricks",
    )
    assert evidence.details == {"empty_directory": True, **DECODED}
    assert evidence.era == "B"  # bracketed, JSON decoded: the 3.2-4.0 shape (and DBR's)


@pytest.mark.parametrize(
    ("sub_message", "subclass", "whole_table"),
    [
        (
            "This transaction attempted to read the entire table, conflicting with the concurrent modification.",
            "WHOLE_TABLE_READ",
            True,
        ),
        (
            "The concurrent operation replaced all data in the table. Please retry the operation.",
            "WHOLE_TABLE_REPLACE",
            True,
        ),
        (
            "The concurrent operation modified the same rows that this transaction attempted to modify.",
            "ROW_LEVEL_CHANGES",
            False,
        ),
        (
            "Row-level conflict resolution exceeded the allotted time. Please retry the operation.",
            "ALLOTTED_TIME_EXCEEDED",
            False,
        ),
        (
            "Please retry the operation. Refer to https://docs.databricks.com/x for more information.",
            "WITHOUT_HINT",
            False,
        ),
    ],
)
def test_subclass_is_recognised_by_its_sentence_when_the_class_prefix_is_lost(
    sub_message: str, subclass: str, whole_table: bool
) -> None:
    text = (
        "Error running query: Transaction conflict detected. A concurrent WRITE added data to table "
        f"main.a.b committed at version 9. {sub_message}"
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.subclass, evidence.whole_table, evidence.error_class) == (
        subclass,
        whole_table,
        None,
    )
    assert evidence.engine == "databricks"  # "A concurrent" is Databricks' capitalisation
    assert evidence.era == (
        "databricks" if subclass not in ("WITH_PARTITION_HINT", "WITHOUT_HINT") else "C"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[date=2024-01-01]", {"date": "2024-01-01"}),
        ("[a=1, b=x, c=null]", {"a": "1", "b": "x", "c": None}),
        ("[city=Paris, France, zip=75001]", {"city": "Paris, France", "zip": "75001"}),
        ("[path=a=b]", {"path": "a=b"}),
        ("[]", {}),
    ],
)
def test_partition_values_are_parsed_from_spark_rendering(
    text: str, expected: dict[str, str | None]
) -> None:
    assert parse_partition(text) == expected


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("24/03/19 14:50:44 ERROR Executor: boom", utc(2024, 3, 19, 14, 50, 44)),
        ("2024-03-19T14:50:44Z ERROR x", utc(2024, 3, 19, 14, 50, 44)),
        ("2024-03-19T14:50:44.123+01:00 ERROR x", utc(2024, 3, 19, 13, 50, 44, 123)),
        ("2024-03-19 14:50:44,123 ERROR x", utc(2024, 3, 19, 14, 50, 44, 123)),
        ("2024-03-19 14:50:44.123456 UTC x", utc(2024, 3, 19, 14, 50, 44, 123)),
        ("[2024-03-19 14:50:44 -0500] WARN x", utc(2024, 3, 19, 19, 50, 44)),
        ("[2025-01-15, 10:22:31 UTC] {spark_submit.py:521} INFO - x", utc(2025, 1, 15, 10, 22, 31)),
        ("1710859844174 ERROR x", 1710859844174),
        ('{"ts":1710859844174,"level":"ERROR"}', 1710859844174),
        ('Conflicting commit: {"timestamp":1710859844174}', None),
        ("2024-13-45 10:00:00 not a date", None),
        ("no time here", None),
    ],
)
def test_log_line_times(head: str, expected: int | None) -> None:
    assert parse_line_time(head) == expected


def test_separate_delta_rs_failures_stay_separate() -> None:
    failure = "_internal.CommitFailedError: Failed to commit transaction: Commit failed: a concurrent transactions added new data."
    text = "\n".join(
        f'thread {i}:\nTraceback (most recent call last):\n  File "w.py", line 9\n{failure}'
        for i in range(5)
    )
    found = extract_conflicts(text)
    assert [e.line for e in found] == [4, 8, 12, 16, 20]
    assert {e.occurrences for e in found} == {1}


def test_a_chained_python_repeat_without_winner_is_one_exception() -> None:
    failure = "deltalake.exceptions.CommitFailedError: Failed to commit transaction: Metadata changed since last commit."
    text = (
        f'Traceback (most recent call last):\n  File "a.py", line 3\n{failure}\n\n'
        "During handling of the above exception, another exception occurred:\n\n"
        f'Traceback (most recent call last):\n  File "a.py", line 5\n{failure}\n'
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.line, evidence.occurrences) == (3, 2)


def test_a_richer_first_rendering_takes_the_class_name_of_a_later_one() -> None:
    # Found by fuzzing: the wrapper's copy carries the JSON but no Delta class; the cut-off
    # "Caused by:" line carries the class but no JSON.
    (text,) = [p.read_text() for p in TEXTS.glob("era_a_streaming_append_caused_by.log")]
    head = text[: text.index("Caused by:")]
    wrapper = head[head.index("Exception in thread") :]
    cut = (
        "Caused by: io.delta.exceptions.ConcurrentAppendException: Files were added to partition [entity_1=acme, "
        "entity_2=94, year=2023, month=10, day=16] by a concurrent update."
    )
    (evidence,) = extract_conflicts(wrapper + cut)
    assert evidence.class_name == "io.delta.exceptions.ConcurrentAppendException"
    assert (evidence.winner_version, evidence.occurrences, evidence.line) == (42, 2, 1)


@pytest.mark.parametrize(
    ("link", "engine"),
    [
        (
            "Refer to https://docs.delta.io/latest/concurrency-control.html for more details.",
            "delta-spark",
        ),
        (
            "Refer to https://learn.microsoft.com/azure/databricks/delta/concurrency-control for more details.",
            "databricks",
        ),
        ("", "databricks"),  # nothing from the loser: the winner's Databricks fields decide
    ],
)
def test_the_losers_doc_link_decides_the_engine_over_the_winners_fields(
    link: str, engine: str
) -> None:
    winner = (
        '{"version":9,"timestamp":1,"userId":"1","operation":"WRITE","operationParameters":{},'
        '"clusterId":"0101-000000-abc","engineInfo":"Databricks-Runtime/15.4.x-scala2.12"}'
    )
    text = (
        "io.delta.exceptions.ConcurrentAppendException: Files were added to the root of the table by a "
        f"concurrent update. Please try the operation again.\nConflicting commit: {winner}\n{link}"
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.engine, evidence.winner_cluster_id) == (engine, "0101-000000-abc")


def test_a_message_without_json_does_not_take_the_next_exceptions_json() -> None:
    commit = '{"version":8,"timestamp":1,"operation":"WRITE","operationParameters":{}}'
    text = (
        "delta.exceptions.MetadataChangedException: The metadata of the Delta table has been changed by a "
        "concurrent update. Please try the operation again.\n"
        "io.delta.exceptions.ConcurrentWriteException: A concurrent transaction has written new data since the "
        f"current transaction read the table. Please try the operation again.\nConflicting commit: {commit}\n"
    )
    first, second = extract_conflicts(text)
    assert (first.exception, first.conflicting_commit, first.winner_version) == (
        "MetadataChangedException",
        None,
        None,
    )
    assert (second.exception, second.winner_version) == ("ConcurrentWriteException", 8)


def test_a_spark_exception_logged_as_a_python_repr_keeps_its_json() -> None:
    text = (
        "2024-06-01 10:00:00,000 ERROR job - failed: ConcurrentAppendException('[DELTA_CONCURRENT_APPEND] "
        "ConcurrentAppendException: Files were added to partition [d=1] by a concurrent update. Please try the "
        'operation again.\\nConflicting commit: {"version":5,"timestamp":7,"operation":"DELETE",'
        '"operationParameters":{"predicate":["(d = 1)"]}}\\nRefer to '
        "https://docs.delta.io/latest/concurrency-control.html for more details.')"
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.winner_version, evidence.partition, evidence.era) == (5, {"d": "1"}, "B")
    assert evidence.conflicting_commit is not None
    assert evidence.conflicting_commit["operationParameters"] == {"predicate": '["(d = 1)"]'}
    assert evidence.doc_link == OSS
    assert evidence.observed_at == utc(2024, 6, 1, 10, 0, 0)


def test_a_sentence_inside_the_conflicting_commit_is_not_a_second_exception() -> None:
    text = (
        "ConcurrentAppendException: Files were added to the root of the table by a concurrent update. Please try "
        'the operation again.\nConflicting commit: {"version":3,"operation":"WRITE","userMetadata":"note: Metadata '
        'changed since last commit. Files were added to partition [a=1] by a concurrent update."}\n'
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.exception, evidence.winner_version) == ("ConcurrentAppendException", 3)


def test_many_failures_in_a_long_log() -> None:
    lines = []
    for i in range(400):
        lines.append(f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z INFO step {i}")
        lines.extend(f"\tat frame.{k}(X.java:{k})" for k in range(10))
        lines.append(
            f"2026-01-01T01:{i // 60:02d}:{i % 60:02d}Z ERROR failed: CommitFailedError('Failed to commit "
            "transaction: Concurrent transaction failed.')"
        )
    found = extract_conflicts("\n".join(lines))
    assert len(found) == 400
    assert found[-1].observed_at == utc(2026, 1, 1, 1, 6, 39)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01",
        "Conflicting commit: {",
        "[DELTA_CONCURRENT_APPEND]",
        "Files were added to partition [",
        "Files were added to partition [] by a concurrent update.\nConflicting commit: "
        + "[" * 100_000,
        'Files were added to the root of the table by a concurrent update.\nConflicting commit: {"version":'
        + "9" * 5000,
        "Transaction conflict detected. a concurrent X added data to table t committed at version "
        + "1" * 30
        + ".",
        "\n" * 10_000,
        "Failed to commit transaction: 99999999999999",
    ],
)
def test_odd_input_never_raises(text: str) -> None:
    for evidence in extract_conflicts(text):
        json.dumps(evidence.to_dict())


def test_to_dict_is_json_ready_and_a_copy() -> None:
    (evidence,) = extract_conflicts((TEXTS / "era_a_tahoe_delete_delete.txt").read_text())
    as_dict = evidence.to_dict()
    json.dumps(as_dict)
    assert isinstance(as_dict["winner_job"], dict)
    as_dict["winner_job"]["jobId"] = "changed"
    assert evidence.winner_job is not None and evidence.winner_job["jobId"] == "912345678901234"


def test_the_reader_imports_only_the_standard_library_and_the_package() -> None:
    package = Path(__file__).resolve().parents[2] / "deltaforensics" / "evidence"
    for module in (
        "__init__",
        "error_text",
        "conflict_evidence",
        "conflicting_commit",
        "message_formats",
        "log_timestamps",
    ):
        tree = ast.parse((package / f"{module}.py").read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                assert (
                    top in sys.stdlib_module_names
                    or name.startswith(
                        (
                            "deltaforensics.evidence",
                            "deltaforensics.model",
                            "deltaforensics.errors",
                            # which engine wrote the winner (standard library only, itself)
                            "deltaforensics.profiles",
                        )
                    )
                    or top == "__future__"
                ), (module, name)


# ---- properties ------------------------------------------------------------------------------------

FRAGMENTS = [
    "Files were added to partition [",
    "] by a concurrent update.",
    "Conflicting commit: ",
    '{"version":',
    "}",
    "Refer to https://docs.delta.io/latest/concurrency-control.html for more details.",
    "\n",
    "\\n",
    '\\"',
    "Transaction conflict detected. a concurrent ",
    " added data to table ",
    " committed at version ",
    "7",
    ".",
    "[DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT] ",
    "Caused by: ",
    "Commit failed: a concurrent transactions added new data.",
    "Failed to commit transaction: ",
    "Help: ",
    "24/03/19 14:50:44 ",
    "2024-03-19T14:50:44Z ",
    "\x1b[0;31m",
    'CommitConflict(ProtocolChanged("',
    '"))',
    "in the partition [a=1]",
    "(for example ",
    ") by a concurrent update.",
    "This transaction attempted to read one or more files that were deleted ",
    "[",
    "]",
    "=",
    ", ",
]

KNOWN = [
    (
        "io.delta.exceptions.ConcurrentAppendException: Files were added to partition [date=2024-01-01] by a concurrent "
        'update. Please try the operation again.\nConflicting commit: {"version":12,"timestamp":1704103205123,'
        '"operation":"WRITE","operationParameters":{"mode":"Append","partitionBy":["date"]},"readVersion":11,'
        '"isolationLevel":"Serializable","isBlindAppend":true,"txnId":"t-12"}\nRefer to '
        "https://docs.delta.io/latest/concurrency-control.html for more details.",
        "ConcurrentAppendException",
        12,
        {"date": "2024-01-01"},
    ),
    (
        "[DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT] Transaction conflict detected, a concurrent OPTIMIZE deleted "
        "data from table spark_catalog.db.t (committed at version 31) that this transaction read. The concurrent operation "
        "deleted data in the partition [p=7] that was read by this operation. Please retry the operation. Refer to "
        "https://docs.delta.io/latest/concurrency-control.html for more information.",
        "ConcurrentDeleteReadException",
        31,
        {"p": "7"},
    ),
    (
        "CommitFailedError: Failed to commit transaction: Commit failed: a concurrent transaction deleted data this "
        "operation read.\nHelp: This transaction's query must be rerun to exclude the removed data. Also, if you don't care "
        "to require this check to pass in the future, the isolation level can be set to Snapshot Isolation.",
        "ConcurrentDeleteReadException",
        None,
        None,
    ),
]


FIXTURE_TEXTS = sorted(p.read_text(encoding="utf-8") for p in TEXTS.iterdir())


@st.composite
def fixture_slices(draw: st.DrawFn) -> str:
    """A random cut of a real fixture: messages broken off mid-JSON, mid-sentence, mid-chain."""
    text = draw(st.sampled_from(FIXTURE_TEXTS))
    start = draw(st.integers(0, len(text)))
    return text[start : draw(st.integers(start, len(text)))]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(st.text(max_size=40), st.sampled_from(FRAGMENTS), fixture_slices()), max_size=40
    ).map("".join)
)
def test_arbitrary_text_never_raises(text: str) -> None:
    for evidence in extract_conflicts(text, source="fuzz"):
        assert evidence.line >= 1
        assert len(evidence.raw) <= 2000
        json.dumps(evidence.to_dict())


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(max_size=300),
    after=st.text(max_size=300),
    which=st.sampled_from(range(len(KNOWN))),
)
def test_a_known_message_is_found_inside_noise(before: str, after: str, which: int) -> None:
    message, exception, version, partition = KNOWN[which]
    found = extract_conflicts(f"{before}\n{message}\n{after}")
    assert any(
        e.exception == exception and e.winner_version == version and e.partition == partition
        for e in found
    ), [(e.exception, e.winner_version, e.partition) for e in found]


def test_a_schema_change_since_analysis_is_an_engine_error_naming_its_columns() -> None:
    """MergeIntoCommand's DeltaAnalysisException (the Delta 4.4.0 text a kept log records):
    not a conflict exception; it stands for MetadataChangedException and names the columns."""
    text = (
        "org.apache.spark.sql.delta.DeltaAnalysisException: [DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS] "
        "The schema of your Delta table has changed in an incompatible way since your DataFrame\n"
        "or DeltaTable object was created. Please redefine your DataFrame or DeltaTable object.\n"
        "Changes:\nLatest schema is missing field(s): note, extra"
    )
    (evidence,) = extract_conflicts(text)
    assert (evidence.exception, evidence.error_class) == (
        "MetadataChangedException",
        "DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS",
    )
    assert evidence.details["engine_error"] == "DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS"
    assert evidence.details["changed_fields"] == ["note", "extra"]
