"""Hand-built report documents shared by the report tests.

They follow the contracts in docs/report-format.md and read like a real incident: a partitioned
Databricks table with a delta-rs compactor, several races (quiet, fragile, and one the model says
should have failed), conflicts from a pasted error, an attempted statement and a race, anomalies,
recommendations and diagnostics. Log strings carry hostile text on purpose (HTML, pipes,
backticks, newlines): the renderers must show it, never obey it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main
from deltaforensics.report.document.entry import FORMAT_VERSION

SAMPLE_LOGS = Path(__file__).resolve().parents[2] / "sample_logs"
SAMPLES = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())

SCRIPT = "<script>alert(1)</script>"
IMG = '<img src=x onerror="alert(2)">'
URI = "abfss://sales@contoso.dfs.core.windows.net/tables/orders"

TABLE: dict[str, Any] = {
    "uri": URI,
    "first_version": 0,
    "latest_version": 47,
    "partition_columns": ["date"],
    "clustering_columns": [],
    "isolation_level": {
        "value": "WriteSerializable",
        "source": "table property delta.isolationLevel",
    },
    "features": ["appendOnly", "deletionVectors", "invariants"],
    "engines_seen": ["databricks", "delta-rs"],
    "num_commits": 48,
    "num_files": 131,
}


def _race(
    version: int, read_version: int, winners: list[int], operation: str, **extra: Any
) -> dict[str, Any]:
    race: dict[str, Any] = {
        "version": version,
        "read_version": read_version,
        "winners": winners,
        "profile": "databricks 14.3",
        "outcome": "commits",
        "code": None,
        "reason": "a blind append reads nothing, so no winner can conflict with it",
        "operation": operation,
        "isolation_level": {"value": "WriteSerializable", "source": "commitInfo.isolationLevel"},
        "read_predicate": None,
        "read_reason": "blind append: reads nothing",
        "confidence": "high",
        "missing_winners": [],
        "fragile_under": [],
    }
    race.update(extra)
    return race


def explain_report() -> dict[str, Any]:
    """A fresh, fully populated explain document (``report-v2``)."""
    races = [
        _race(
            12,
            10,
            [11],
            "MERGE",
            reason="no rule fires against v11: the read predicate prunes its files",
            read_predicate="date = '2024-01-02'",
            read_reason="MERGE condition: partition literal on date",
            fragile_under=[
                {
                    "change": "isolation=Serializable",
                    "outcome": "ConcurrentAppendException",
                    "winner_version": 11,
                }
            ],
        ),
        _race(16, 14, [15], "STREAMING UPDATE"),
        _race(
            21,
            18,
            [19, 20],
            "DELETE",
            outcome="ConcurrentDeleteReadException",
            code="DC011",
            reason="v20 (OPTIMIZE) removed 2 file(s) this DELETE read in partition [date=2024-01-03]",
            read_predicate=f"region = '{SCRIPT}' AND date = '2024-01-03'",
            read_reason="DELETE condition | with a `pipe` and backticks\nand a second line",
            confidence="medium",
        ),
        _race(
            40,
            37,
            [39],
            "OPTIMIZE",
            profile="delta-rs 1.6.6",
            missing_winners=[[38, 38]],
            isolation_level={"value": "Serializable", "source": "delta-rs default"},
            reason="no rule fires against v39",
            read_predicate=None,
            read_reason="delta-rs: OPTIMIZE has no predicate, so every file of its snapshot counts as read",
            fragile_under=[
                {
                    "change": "winner-not-blind-append",
                    "outcome": "ConcurrentAppendException",
                    "winner_version": None,
                }
            ],
        ),
        _race(44, 42, [43], "WRITE", confidence="low"),
    ]
    conflicts = [
        {
            "source": "error",
            "loser": {"version": None, "statement": None, "read_version": 40},
            "winner_version": 41,
            "candidates": [41],
            "exception": "ConcurrentAppendException",
            "code": "DC010",
            "reason": "Files were added to partition [date=2024-01-02] by a concurrent update (v41 WRITE)",
            "partitions": [{"date": "2024-01-02"}],
            "files": [f"date=2024-01-02/part-{i:05d}-c000.snappy.parquet" for i in range(8)],
            "confidence": "high",
        },
        {
            "source": "attempt",
            "loser": {
                "version": None,
                "statement": "MERGE INTO orders t USING u ON t.id = u.id | `x`",
                "read_version": 44,
            },
            "winner_version": None,
            "candidates": [45, 46],
            "exception": "ConcurrentDeleteReadException",
            "code": "DC011",
            "reason": "the ON clause has no partition literal: the MERGE reads the whole table",
            "partitions": [{"date": None}],
            "files": [],
            "confidence": "low",
        },
        {
            "source": "race",
            "loser": {"version": 21, "statement": None, "read_version": 18},
            "winner_version": 20,
            "candidates": [19, 20],
            "exception": "ConcurrentDeleteReadException",
            "code": "DC011",
            "reason": "v20 (OPTIMIZE) removed 2 file(s) this DELETE read\n| a pipe | and *stars* on line two",
            "partitions": [{"date": "2024-01-03"}],
            "files": [f"date=2024-01-03/{SCRIPT}.parquet"],
            "confidence": "medium",
        },
    ]
    attempts = [
        {
            "statement": "DELETE FROM orders WHERE date = '2024-01-02'",
            "read_version": 44,
            "profile": "databricks 14.3",
            "outcome": "ConcurrentDeleteReadException",
            "winner_version": 45,
            "code": "DC011",
            "reason": "v45 (OPTIMIZE) removed files in partition [date=2024-01-02]",
        },
        {
            "statement": "INSERT INTO orders VALUES (...)",
            "read_version": None,
            "profile": "databricks 14.3",
            "outcome": "commits",
            "winner_version": None,
            "code": None,
            "reason": "a blind append reads nothing",
        },
    ]
    anomalies = [
        {
            "code": "AN001",
            "kind": "duplicate-remove",
            "severity": "error",
            "versions": [10, 11],
            "files": ["date=2024-01-01/part-00000-19bc9d59.snappy.parquet"],
            "reason": "1 file(s) removed again in v11 after v10 already removed them: rows are duplicated",
        },
        {
            "code": "AN009",
            "kind": "forgeable-provenance",
            "severity": "info",
            "versions": [40, 43],
            "files": [],
            "reason": f"userName {IMG} is whatever the caller said: low confidence",
        },
    ]
    recommendations = [
        {
            "change": {"kind": "partition-by", "columns": ["date", "region"]},
            "conflicts_avoided": 2,
            "conflicts_introduced": 0,
            "evaluated_on": {"races": 5, "errors": 1, "attempts": 2, "writer_pairs": 3},
            "confidence": "medium",
            "rationale": "writers separate on (date, region) but the table only on date",
            "apply": "CREATE TABLE orders_v2\nPARTITIONED BY (date, region)\nAS SELECT * FROM orders;\n"
            "-- then swap names; ``` fences inside must not break the block",
        },
        {
            "change": {"kind": "isolation", "level": "Serializable"},
            "conflicts_avoided": 0,
            "conflicts_introduced": 2,
            "evaluated_on": {"races": 5, "errors": 1, "attempts": 2, "writer_pairs": 3},
            "confidence": "high",
            "rationale": "Serializable can only add conflicts: shown so that nobody tries it",
            "apply": None,
        },
    ]
    diagnostics = [
        {
            "code": "W401",
            "severity": "warning",
            "version": 21,
            "message": "model predicts ConcurrentDeleteReadException (DC011) against v20, but v21 committed",
        },
        {
            "code": "W302",
            "severity": "warning",
            "version": 40,
            "message": "winner v38 is outside the retained log",
        },
        {
            "code": "W202",
            "severity": "info",
            "version": None,
            "message": "2 commits without commitInfo",
        },
    ]
    return {
        "format_version": FORMAT_VERSION,
        "generator": {"name": "deltaforensics", "version": "0.1.0"},
        "table": copy.deepcopy(TABLE),
        "races": races,
        "conflicts": conflicts,
        "attempts": attempts,
        "anomalies": anomalies,
        "recommendations": recommendations,
        "diagnostics": diagnostics,
    }


def empty_explain_report() -> dict[str, Any]:
    doc = explain_report()
    for key in ("races", "conflicts", "attempts", "anomalies", "recommendations", "diagnostics"):
        doc[key] = []
    return doc


def whatif_report() -> dict[str, Any]:
    """A fresh what-if document (``whatif-v2``)."""
    return {
        "format_version": FORMAT_VERSION,
        "table": copy.deepcopy(TABLE),
        "scenario": {
            "changes": [
                {"kind": "partition-by", "columns": ["date", "region"]},
                {"kind": "deletion-vectors", "enabled": True},
            ]
        },
        "baseline": {"conflicts": 3, "fragile_races": 2},
        "result": {"conflicts": 1, "fragile_races": 1},
        "conflicts_avoided": 2,
        "conflicts_introduced": 0,
        "evaluated_on": {"races": 5, "errors": 1, "attempts": 2, "writer_pairs": 3},
        "pairs": [
            {
                "loser": {"version": 21},
                "winner_version": 20,
                "before": "ConcurrentDeleteReadException",
                "after": "commits",
                "reason": "region now prunes v20's files",
            },
            {
                "loser": {"attempt": "MERGE INTO orders | `t`"},
                "winner_version": 45,
                "before": "ConcurrentDeleteReadException",
                "after": "ConcurrentDeleteReadException",
                "reason": f"the ON clause still has no partition literal {SCRIPT}",
            },
        ],
        "confidence": "medium",
        "diagnostics": [
            {"code": "W101", "severity": "warning", "version": 38, "message": "commit gap"}
        ],
    }


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """What ``deltaforensics <args> --format json`` prints, parsed: the emitted document."""
    code = main([*args, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)
