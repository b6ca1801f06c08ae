"""Flat tables for dashboards: one row per commit, race, conflict, anomaly and recommendation,
and per run of versions whose races cannot be seen.

Every column is declared here with its meaning; ``docs/audit.md`` is generated from these
declarations. A column that is a field of the report's typed entry (``Race``, ``Conflict``,
``Anomaly``, ``Recommendation``, ``HistoryCommit``) takes its name, type and value from that
field, so the datasets never say anything the report does not; the few derived columns say how
they are computed. Lists and objects stay JSON text, so a dashboard tool without nested types
can still read every file.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import polars as pl

from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.entry import field_names, to_json_value
from deltaforensics.report.document.explain import ExplainDocument, Race
from deltaforensics.report.document.history import HistoryCommit
from deltaforensics.whatif.recommendations.candidates import Recommendation

_S, _I, _B = pl.String(), pl.Int64(), pl.Boolean()
Read = Callable[[Any, int], Any]  # (entry, its 1-based position) -> the column's value


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    dtype: pl.DataType
    doc: str
    read: Read | None = None  # None: the row's value is given (table, table_uri, commits)


def _json(value: Any) -> str:
    return json.dumps(to_json_value(value), sort_keys=True, default=str)


@cache
def _field_dtype(entry: type, name: str) -> pl.DataType:
    """A field's column type: its scalar type, else JSON text."""
    kind = typing.get_type_hints(entry)[name]
    scalars = [a for a in typing.get_args(kind) if a is not type(None)] or [kind]
    if len(scalars) == 1 and scalars[0] in (str, int, bool):
        return {str: _S, int: _I, bool: _B}[scalars[0]]
    return _S


def field(entry: type, name: str, doc: str) -> Column:
    """The column of the typed entry's field ``name`` (JSON text unless a scalar)."""
    if name not in field_names(entry):
        raise ValueError(f"{entry.__name__} has no field {name!r}")
    dtype = _field_dtype(entry, name)
    if dtype == _S and typing.get_type_hints(entry)[name] not in (str, str | None):
        return Column(name, dtype, doc, lambda e, _: _json(getattr(e, name)))
    return Column(name, dtype, doc, lambda e, _: getattr(e, name))


def derived(name: str, dtype: pl.DataType, doc: str, read: Read) -> Column:
    return Column(name, dtype, doc, read)


def _commit(name: str, doc: str) -> Column:
    """A commit column: read from the commit frame as is, typed as the history's field."""
    if name not in field_names(HistoryCommit):
        raise ValueError(f"HistoryCommit has no field {name!r}")
    return Column(name, _field_dtype(HistoryCommit, name), doc)


def _table_columns() -> list[Column]:
    return [
        Column("table", _S, "The table's name in the audit config (the partition key)."),
        Column("table_uri", _S, "The table's location as the audit read it."),
    ]


DATASETS: dict[str, list[Column]] = {
    "commits": [
        *_table_columns(),
        _commit("version", "Commit version."),
        _commit("timestamp", "commitInfo.timestamp, epoch milliseconds."),
        _commit("in_commit_timestamp", "commitInfo.inCommitTimestamp when the table has them."),
        _commit("operation", "commitInfo.operation (WRITE, MERGE, DELETE, OPTIMIZE, ...)."),
        _commit("operation_parameters", "commitInfo.operationParameters as JSON text."),
        _commit("read_version", "commitInfo.readVersion: the snapshot the writer read."),
        _commit("isolation_level", "commitInfo.isolationLevel as recorded."),
        _commit("is_blind_append", "commitInfo.isBlindAppend."),
        _commit("engine_info", "commitInfo.engineInfo (writer and version)."),
        _commit("client_version", "commitInfo.clientVersion (delta-rs)."),
        _commit("txn_id", "commitInfo.txnId."),
        _commit("user_name", "commitInfo.userName (replaced by a pseudonym with --redact)."),
        _commit("job", "commitInfo.job as JSON text (job id, run id, owner)."),
        _commit("notebook", "commitInfo.notebook as JSON text (path redacted with --redact)."),
        _commit("cluster_id", "commitInfo.clusterId."),
        _commit("num_added_files", "add actions in the commit."),
        _commit("num_removed_files", "remove actions in the commit."),
        _commit("bytes_added", "Sum of added file sizes."),
        _commit("bytes_removed", "Sum of removed file sizes."),
        _commit("changes_metadata", "The commit carries a metaData action."),
        _commit("changes_protocol", "The commit carries a protocol action."),
        _commit("has_commit_info", "The commit carries a commitInfo action."),
    ],
    "races": [
        *_table_columns(),
        field(Race, "version", "The commit that raced (it read an older snapshot and committed)."),
        field(Race, "read_version", "The snapshot it read."),
        field(
            Race, "winners", "JSON list of the versions committed between its read and its commit."
        ),
        derived(
            "num_winners", _I, "How many commits it raced against.", lambda r, _: len(r.winners)
        ),
        field(Race, "profile", "Engine profile whose checker was replayed."),
        field(Race, "outcome", "What that checker decides: commits, or the exception it raises."),
        field(Race, "code", "Rule code that fired (DC0xx), null when none did."),
        field(Race, "reason", "Why, in the checker's terms."),
        field(Race, "operation", "The racing commit's operation."),
        derived(
            "isolation_level",
            _S,
            "Isolation level the check used.",
            lambda r, _: r.isolation_level.value,
        ),
        derived(
            "isolation_source",
            _S,
            "Where that isolation level came from.",
            lambda r, _: r.isolation_level.source,
        ),
        field(Race, "read_predicate", "Reconstructed read predicate (TRUE = whole table)."),
        field(Race, "confidence", "high, medium or low: how sure the reconstruction is."),
        field(
            Race,
            "missing_winners",
            "JSON list of [first, last] ranges of winner versions no longer in the log.",
        ),
        derived(
            "fragile_under",
            _I,
            "How many plausible changes would have made it conflict.",
            lambda r, _: len(r.fragile_under),
        ),
    ],
    "conflicts": [
        *_table_columns(),
        field(
            Conflict,
            "source",
            "Where the conflict was seen: error (a pasted text); eventlog, driverlog, openlineage,"
            " databricks-jobs or databricks-queries (harvested, docs/failures.md); or attempt"
            " (an attempted statement).",
        ),
        field(Conflict, "loser", "The losing transaction as JSON (statement, read version, job)."),
        field(Conflict, "winner_version", "The winning commit, when it could be identified."),
        field(Conflict, "candidates", "JSON list of candidate winner versions when not unique."),
        field(Conflict, "exception", "Exception class Delta raises (or raised)."),
        field(Conflict, "code", "Rule code (DC0xx)."),
        field(Conflict, "reason", "Why the rule fires."),
        field(Conflict, "partitions", "JSON list of the partitions both sides touched."),
        field(Conflict, "files", "JSON list of the files both sides touched."),
        field(Conflict, "confidence", "high, medium or low."),
        field(Conflict, "app_id", "The Spark application whose record showed it (harvested)."),
        field(Conflict, "started_at", "When the failed statement started, epoch ms (harvested)."),
        field(Conflict, "failed_at", "When it failed, epoch ms (harvested)."),
        derived(
            "records",
            _S,
            "JSON list of every log file (or pasted text) that showed this one failure; null"
            " for a pasted or attempted one seen once.",
            lambda e, _: None if e.records is None else _json(e.records),
        ),
    ],
    "anomalies": [
        *_table_columns(),
        field(Anomaly, "code", "Anomaly code (AN0xx)."),
        field(Anomaly, "kind", "Short name of the anomaly."),
        field(Anomaly, "severity", "info, warning or error."),
        derived(
            "first_version",
            _I,
            "Lowest version involved.",
            lambda a, _: min(a.versions) if a.versions else None,
        ),
        field(Anomaly, "versions", "JSON list of the versions involved."),
        field(Anomaly, "files", "JSON list of the files involved."),
        field(Anomaly, "reason", "What was seen and why it matters."),
    ],
    "recommendations": [
        *_table_columns(),
        derived("rank", _I, "Position in the report (1 = best).", lambda _, rank: rank),
        derived(
            "change_kind",
            _S,
            "Kind of change (partition-by, explicit-merge-predicates, ...).",
            lambda r, _: r.change.kind,
        ),
        field(Recommendation, "change", "The change and its parameters as JSON."),
        field(
            Recommendation,
            "conflicts_avoided",
            "Seen conflicts (errors, attempts, races in the log) it would avoid.",
        ),
        field(Recommendation, "conflicts_introduced", "Seen conflicts it would introduce."),
        field(
            Recommendation,
            "evaluated_on",
            "JSON: races, errors, attempts and writer pairs measured.",
        ),
        field(Recommendation, "confidence", "high, medium or low."),
        field(Recommendation, "rationale", "Why, with an example from the history."),
        field(Recommendation, "apply", "How to apply it (SQL or settings)."),
    ],
    "race_visibility": [  # runs of versions whose races cannot be seen (race_visibility)
        *_table_columns(),
        derived(
            "first_version",
            _I,
            "First version of a run of commits that record no readVersion (inclusive).",
            lambda r, _: r[0],
        ),
        derived("last_version", _I, "Last version of the run (inclusive).", lambda r, _: r[1]),
        derived(
            "reason",
            _S,
            "Why their races cannot be checked (W304): no race and no conflict there means "
            "'could not check', not 'checked, nothing found'.",
            lambda r, _: r[2],
        ),
    ],
}


def schema(name: str) -> dict[str, pl.DataType]:
    return {c.name: c.dtype for c in DATASETS[name]}


def build_datasets(
    table: str, doc: ExplainDocument, commits: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """Every dataset's rows for one table, with the declared schema."""
    uri = doc.table.uri
    entries: dict[str, tuple[Any, ...]] = {
        "races": doc.races,
        "conflicts": doc.conflicts,
        "anomalies": doc.anomalies,
        "recommendations": doc.recommendations,
        "race_visibility": _unknown_runs(doc),
    }
    out = {"commits": _commits(table, uri, commits)}
    for name, found in entries.items():
        readers = [(c.name, c.read) for c in DATASETS[name] if c.read is not None]
        rows = [
            {"table": table, "table_uri": uri, **{n: read(e, i) for n, read in readers}}
            for i, e in enumerate(found, start=1)
        ]
        out[name] = (
            pl.DataFrame(rows, schema=schema(name), orient="row")
            if rows
            else pl.DataFrame(schema=schema(name))
        )
    return out


def _unknown_runs(doc: ExplainDocument) -> tuple[tuple[int, int, str], ...]:
    """The report's runs of versions without a read version, each with the reason."""
    seen = doc.race_visibility
    if seen is None:
        return ()
    return tuple((lo, hi, seen.reason) for lo, hi in seen.unknown_versions)


def _commits(table: str, uri: str, commits: pl.DataFrame) -> pl.DataFrame:
    wanted = schema("commits")
    return commits.with_columns(
        pl.lit(table, pl.String).alias("table"), pl.lit(uri, pl.String).alias("table_uri")
    ).select([pl.col(c).cast(t) for c, t in wanted.items()])


def columns_doc() -> str:
    """Markdown tables, one per dataset (used by scripts/generate_docs.py)."""
    out: list[str] = []
    for name, columns in DATASETS.items():
        out += [f"### {name}", "", "| column | type | meaning |", "| --- | --- | --- |"]
        out += [f"| `{c.name}` | {c.dtype} | {c.doc} |" for c in columns]
        out.append("")
    return "\n".join(out)
