"""Flat tables for dashboards: one row per commit, race, conflict, anomaly and recommendation.

Every column is declared here with its type and meaning; ``docs/audit.md`` is generated from
these declarations. Rows are built from the ``explain`` JSON document (the contract), so the
datasets never say anything the report does not. Lists and objects stay JSON text, so a
dashboard tool without nested types can still read every file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    dtype: pl.DataType
    doc: str


def _table_columns() -> list[Column]:
    return [
        Column("table", pl.String(), "The table's name in the audit config (the partition key)."),
        Column("table_uri", pl.String(), "The table's location as the audit read it."),
    ]


_S, _I, _B = pl.String(), pl.Int64(), pl.Boolean()

DATASETS: dict[str, list[Column]] = {
    "commits": [
        *_table_columns(),
        Column("version", _I, "Commit version."),
        Column("timestamp", _I, "commitInfo.timestamp, epoch milliseconds."),
        Column("in_commit_timestamp", _I, "commitInfo.inCommitTimestamp when the table has them."),
        Column("operation", _S, "commitInfo.operation (WRITE, MERGE, DELETE, OPTIMIZE, ...)."),
        Column("operation_parameters", _S, "commitInfo.operationParameters as JSON text."),
        Column("read_version", _I, "commitInfo.readVersion: the snapshot the writer read."),
        Column("isolation_level", _S, "commitInfo.isolationLevel as recorded."),
        Column("is_blind_append", _B, "commitInfo.isBlindAppend."),
        Column("engine_info", _S, "commitInfo.engineInfo (writer and version)."),
        Column("client_version", _S, "commitInfo.clientVersion (delta-rs)."),
        Column("txn_id", _S, "commitInfo.txnId."),
        Column("user_name", _S, "commitInfo.userName (replaced by a pseudonym with --redact)."),
        Column("job", _S, "commitInfo.job as JSON text (job id, run id, owner)."),
        Column("notebook", _S, "commitInfo.notebook as JSON text (path redacted with --redact)."),
        Column("cluster_id", _S, "commitInfo.clusterId."),
        Column("num_added_files", _I, "add actions in the commit."),
        Column("num_removed_files", _I, "remove actions in the commit."),
        Column("bytes_added", _I, "Sum of added file sizes."),
        Column("bytes_removed", _I, "Sum of removed file sizes."),
        Column("changes_metadata", _B, "The commit carries a metaData action."),
        Column("changes_protocol", _B, "The commit carries a protocol action."),
        Column("has_commit_info", _B, "The commit carries a commitInfo action."),
    ],
    "races": [
        *_table_columns(),
        Column("version", _I, "The commit that raced (it read an older snapshot and committed)."),
        Column("read_version", _I, "The snapshot it read."),
        Column(
            "winners", _S, "JSON list of the versions committed between its read and its commit."
        ),
        Column("num_winners", _I, "How many commits it raced against."),
        Column("profile", _S, "Engine profile whose checker was replayed."),
        Column("outcome", _S, "What that checker decides: commits, or the exception it raises."),
        Column("code", _S, "Rule code that fired (DC0xx), null when none did."),
        Column("reason", _S, "Why, in the checker's terms."),
        Column("operation", _S, "The racing commit's operation."),
        Column("isolation_level", _S, "Isolation level the check used."),
        Column("isolation_source", _S, "Where that isolation level came from."),
        Column("read_predicate", _S, "Reconstructed read predicate (TRUE = whole table)."),
        Column("confidence", _S, "high, medium or low: how sure the reconstruction is."),
        Column("missing_winners", _S, "JSON list of winner versions no longer in the log."),
        Column("fragile_under", _I, "How many plausible changes would have made it conflict."),
    ],
    "conflicts": [
        *_table_columns(),
        Column(
            "source", _S, "Where the conflict was seen: an error text or an attempted statement."
        ),
        Column("loser", _S, "The losing transaction as JSON (statement, read version, job)."),
        Column("winner_version", _I, "The winning commit, when it could be identified."),
        Column("candidates", _S, "JSON list of candidate winner versions when not unique."),
        Column("exception", _S, "Exception class Delta raises (or raised)."),
        Column("code", _S, "Rule code (DC0xx)."),
        Column("reason", _S, "Why the rule fires."),
        Column("partitions", _S, "JSON list of the partitions both sides touched."),
        Column("files", _S, "JSON list of the files both sides touched."),
        Column("confidence", _S, "high, medium or low."),
    ],
    "anomalies": [
        *_table_columns(),
        Column("code", _S, "Anomaly code (AN0xx)."),
        Column("kind", _S, "Short name of the anomaly."),
        Column("severity", _S, "info, warning or error."),
        Column("first_version", _I, "Lowest version involved."),
        Column("versions", _S, "JSON list of the versions involved."),
        Column("files", _S, "JSON list of the files involved."),
        Column("reason", _S, "What was seen and why it matters."),
    ],
    "recommendations": [
        *_table_columns(),
        Column("rank", _I, "Position in the report (1 = best)."),
        Column("change_kind", _S, "Kind of change (partition-by, explicit-merge-predicates, ...)."),
        Column("change", _S, "The change and its parameters as JSON."),
        Column("conflicts_avoided", _I, "Conflicts of the table's history it would avoid."),
        Column("conflicts_introduced", _I, "Conflicts it would introduce."),
        Column("evaluated_on", _S, "JSON: races, errors, attempts and writer pairs measured."),
        Column("confidence", _S, "high, medium or low."),
        Column("rationale", _S, "Why, with an example from the history."),
        Column("apply", _S, "How to apply it (SQL or settings)."),
    ],
}


def schema(name: str) -> dict[str, pl.DataType]:
    return {c.name: c.dtype for c in DATASETS[name]}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def build_datasets(
    table: str, report: Mapping[str, Any], commits: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """Every dataset's rows for one table, with the declared schema."""
    uri = report["table"]["uri"]
    builders: dict[str, Callable[[Mapping[str, Any]], Sequence[Mapping[str, Any]]]] = {
        "races": _races,
        "conflicts": _conflicts,
        "anomalies": _anomalies,
        "recommendations": _recommendations,
    }
    out = {"commits": _commits(table, uri, commits)}
    for name, build in builders.items():
        rows = [{"table": table, "table_uri": uri, **row} for row in build(report)]
        out[name] = (
            pl.DataFrame(rows, schema=schema(name), orient="row")
            if rows
            else (pl.DataFrame(schema=schema(name)))
        )
    return out


def _commits(table: str, uri: str, commits: pl.DataFrame) -> pl.DataFrame:
    wanted = schema("commits")
    return commits.with_columns(
        pl.lit(table, pl.String).alias("table"), pl.lit(uri, pl.String).alias("table_uri")
    ).select([pl.col(c).cast(t) for c, t in wanted.items()])


def _races(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "version": r["version"],
            "read_version": r["read_version"],
            "winners": _json(r["winners"]),
            "num_winners": len(r["winners"]),
            "profile": r["profile"],
            "outcome": r["outcome"],
            "code": r["code"],
            "reason": r["reason"],
            "operation": r["operation"],
            "isolation_level": r["isolation_level"]["value"],
            "isolation_source": r["isolation_level"]["source"],
            "read_predicate": r["read_predicate"],
            "confidence": r["confidence"],
            "missing_winners": _json(r["missing_winners"]),
            "fragile_under": len(r["fragile_under"]),
        }
        for r in report["races"]
    ]


def _conflicts(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "source": _json(c["source"]) if not isinstance(c["source"], str) else c["source"],
            "loser": _json(c["loser"]),
            "winner_version": c["winner_version"],
            "candidates": _json(c["candidates"]),
            "exception": c["exception"],
            "code": c["code"],
            "reason": c["reason"],
            "partitions": _json(c["partitions"]),
            "files": _json(c["files"]),
            "confidence": c["confidence"],
        }
        for c in report["conflicts"]
    ]


def _anomalies(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "code": a["code"],
            "kind": a["kind"],
            "severity": a["severity"],
            "first_version": min(a["versions"]) if a["versions"] else None,
            "versions": _json(a["versions"]),
            "files": _json(a["files"]),
            "reason": a["reason"],
        }
        for a in report["anomalies"]
    ]


def _recommendations(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "rank": rank,
            "change_kind": r["change"].get("kind") if isinstance(r["change"], dict) else None,
            "change": _json(r["change"]),
            "conflicts_avoided": r["conflicts_avoided"],
            "conflicts_introduced": r["conflicts_introduced"],
            "evaluated_on": _json(r["evaluated_on"]),
            "confidence": r["confidence"],
            "rationale": r["rationale"],
            "apply": r["apply"],
        }
        for rank, r in enumerate(report["recommendations"], start=1)
    ]


def columns_doc() -> str:
    """Markdown tables, one per dataset (used by scripts/generate_docs.py)."""
    out: list[str] = []
    for name, columns in DATASETS.items():
        out += [f"### {name}", "", "| column | type | meaning |", "| --- | --- | --- |"]
        out += [f"| `{c.name}` | {c.dtype} | {c.doc} |" for c in columns]
        out.append("")
    return "\n".join(out)
