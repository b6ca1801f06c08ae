"""From an exception text to the winning commit in the log, and the conflict it explains.

The winner is found by, in order: the version the message names (era C and the JSON's
``version``); the winner's ``txnId``; its ``timestamp`` + ``operation`` (+ ``readVersion``).
delta-rs messages name nothing, so candidates are the commits of the right kind committed in a
window before the time of the surrounding log line; how many remain is said, never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from deltaforensics.model.words import plural
from deltaforensics.transactions import Transaction
from deltaforensics.transactions.operations import COMPACTIONS

EXCEPTION_CODES = {
    "ConcurrentWriteException": "DC005",
    "ProtocolChangedException": "DC001",
    "MetadataChangedException": "DC002",
    "ConcurrentTransactionException": "DC004",
    "ConcurrentAppendException": "DC010",
    "ConcurrentDeleteReadException": "DC011",
    "ConcurrentDeleteDeleteException": "DC012",
}
WINDOW_MS = 15 * 60 * 1000  # a delta-rs retry loop and its winners fit in minutes


@dataclass(frozen=True, slots=True, kw_only=True)
class WinnerMatch:
    winner: Transaction | None
    candidates: tuple[int, ...]
    how: str
    confidence: str


def _could_cause(t: Transaction, exception: str) -> bool:
    match exception:
        case "ConcurrentAppendException":
            return t.written.added.height > 0
        case "ConcurrentDeleteReadException" | "ConcurrentDeleteDeleteException":
            return t.written.removed.height > 0
        case "MetadataChangedException":
            return t.written.changes_metadata
        case "ProtocolChangedException":
            return t.written.changes_protocol
        case "ConcurrentTransactionException":
            return bool(t.written.app_ids or t.written.domains)
        case _:
            return True


def match_winner(evidence: Any, txns: Sequence[Transaction], first_version: int) -> WinnerMatch:
    """The first clue that decides wins; a named version or a timestamp always decides, a
    ``txnId`` only when a commit carries it, so the search order is the docstring's."""
    commit: Mapping[str, Any] = evidence.conflicting_commit or {}
    version = evidence.winner_version
    if version is None and isinstance(commit.get("version"), int):
        version = commit["version"]
    if version is not None:
        return _by_version(version, txns, first_version)
    by_txn_id = _by_txn_id(evidence.txn_id or commit.get("txnId"), txns)
    if by_txn_id is not None:
        return by_txn_id
    ts = evidence.winner_timestamp or commit.get("timestamp")
    if ts is not None:
        op = (evidence.winner_operation or commit.get("operation") or "").upper()
        return _by_timestamp(ts, op, commit.get("readVersion"), txns)
    kind_ok = [t for t in txns if t.version is not None and _could_cause(t, evidence.exception)]
    changed = evidence.details.get("changed_fields")
    if changed:
        by_fields = _by_changed_fields(changed, kind_ok)
        if by_fields is not None:
            return by_fields
    if evidence.observed_at is not None:
        return _in_window_before(evidence.observed_at, kind_ok)
    cands = tuple(t.version for t in kind_ok[-10:] if t.version is not None)
    return WinnerMatch(
        winner=None,
        candidates=cands,
        how="the message names no winner and carries no time",
        confidence="low",
    )


def _by_version(version: int, txns: Sequence[Transaction], first_version: int) -> WinnerMatch:
    by_version = {t.version: t for t in txns if t.version is not None}
    t = by_version.get(version)
    if t is not None:
        return WinnerMatch(
            winner=t,
            candidates=(version,),
            how=f"the message names version {version}",
            confidence="high",
        )
    where = (
        "before the retained log starts"
        if version < first_version
        else "after the analysed log ends"
    )
    return WinnerMatch(
        winner=None,
        candidates=(),
        how=f"version {version} is {where}: not found in the retained log",
        confidence="low",
    )


def _by_changed_fields(fields: Sequence[str], kind_ok: Sequence[Transaction]) -> WinnerMatch | None:
    """DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS names the columns that came or went: the one column
    change whose parameters name them all."""
    hits = [
        t
        for t in kind_ok
        if t.provenance.operation in ("ADD COLUMNS", "DROP COLUMNS", "REPLACE COLUMNS")
        and all(f'"{f}"' in str(t.provenance.parameters.get("columns", "")) for f in fields)
    ]
    if len(hits) != 1:
        return None
    return _single(hits[0], f"the only column change naming {', '.join(fields)}", "medium")


def _single(t: Transaction, how: str, confidence: str) -> WinnerMatch:
    return WinnerMatch(winner=t, candidates=(t.version or 0,), how=how, confidence=confidence)


def _by_txn_id(txn_id: Any, txns: Sequence[Transaction]) -> WinnerMatch | None:
    if not txn_id:
        return None
    hits = [t for t in txns if t.provenance.commit_info.get("txnId") == txn_id]
    if not hits:
        return None
    return _single(hits[0], f"txnId {txn_id}", "high")


def _by_timestamp(ts: Any, op: str, read_version: Any, txns: Sequence[Transaction]) -> WinnerMatch:
    hits = [
        t
        for t in txns
        if t.provenance.commit_info.get("timestamp") == ts
        and (not op or t.provenance.operation == op)
        and (read_version is None or t.read.version == read_version)
    ]
    if len(hits) == 1:
        return WinnerMatch(
            winner=hits[0],
            candidates=(hits[0].version or 0,),
            how="timestamp and operation",
            confidence="high",
        )
    if hits:
        return WinnerMatch(
            winner=None,
            candidates=tuple(t.version or 0 for t in hits),
            how="timestamp and operation match several commits",
            confidence="medium",
        )
    return WinnerMatch(
        winner=None,
        candidates=(),
        how="no commit with that timestamp and operation: not found in the retained log",
        confidence="low",
    )


def _in_window_before(observed: int, kind_ok: Sequence[Transaction]) -> WinnerMatch:
    """delta-rs names no winner: the commits of the right kind in the window before the error,
    nearest first."""
    window = [
        t
        for t in kind_ok
        if (t.provenance.timestamp or 0) <= observed
        and (t.provenance.timestamp or 0) >= observed - WINDOW_MS
    ]
    window.sort(key=lambda t: observed - (t.provenance.timestamp or 0))
    cands = tuple(t.version for t in window if t.version is not None)
    if len(cands) == 1:
        return WinnerMatch(
            winner=window[0],
            candidates=cands,
            how="the only commit of that kind shortly before the error",
            confidence="medium",
        )
    return WinnerMatch(
        winner=window[0] if window else None,
        candidates=cands,
        how=f"{plural(len(cands), 'candidate commit')} of that kind in the {WINDOW_MS // 60000} minutes before the error",
        confidence="low",
    )


def files_in_partition(
    frame: pl.DataFrame, partition: Mapping[str, str | None] | None, t: Transaction
) -> pl.DataFrame:
    if frame.is_empty() or not partition or not t.table.partition_columns:
        return frame
    pv = frame.schema.get("partition_values")
    names = {f.name for f in pv.fields} if isinstance(pv, pl.Struct) else set()
    cond = pl.lit(True)
    for logical, value in partition.items():
        physical = t.table.physical_names.get(logical, logical)
        if physical not in names:
            continue
        col = pl.col("partition_values").struct.field(physical)
        cond = cond & (
            (col.is_null() | (col == "")) if value in (None, "", "null") else (col == value)
        )
    return frame.filter(cond)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorConflict:
    """A conflict seen in an error text, explained against the log (the report's ``conflicts``
    entry with ``source: "error"``)."""

    exception: str
    code: str | None
    winner_version: int | None
    candidates: tuple[int, ...]
    reason: str
    partitions: tuple[Mapping[str, str | None], ...]
    files: tuple[str, ...]
    confidence: str
    # what the engine raised when it is not one of the checker's exceptions (``exception`` is
    # then the checker's nearest): DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS
    engine_error: str | None = None
    # where it was seen (issue #33): "error" for a pasted text; "eventlog"/"driverlog" for a
    # failure harvested from Spark's records, with what that record says of the loser
    source: str = "error"
    app_id: str | None = None
    started_at: int | None = None  # ms since the epoch
    failed_at: int | None = None
    statement: str | None = None
    records: tuple[str, ...] = ()  # every file (or pasted text) that recorded this failure
    observed_at: int | None = None  # a pasted text's own time (its log line), when it has one


def explain_error(evidence: Any, match: WinnerMatch, txns: Sequence[Transaction]) -> ErrorConflict:
    """What the failed transaction ran into: the winner's files in the named partition, and why."""
    w = match.winner
    exception = evidence.exception
    partition = evidence.partition
    files: list[str] = []
    if w is not None:
        touched = w.written.added if exception == "ConcurrentAppendException" else w.written.removed
        if exception in (
            "MetadataChangedException",
            "ProtocolChangedException",
            "ConcurrentTransactionException",
        ):
            touched = touched.clear()
        matched = files_in_partition(touched, partition, w)
        files = (
            matched["path"].head(20).to_list()
            if matched.height
            else ([evidence.file_path] if evidence.file_path else [])
        )
        who = f" by {w.provenance.who}" if w.provenance.who else ""
        pred = w.provenance.parameters.get("predicate") or w.provenance.parameters.get(
            "mergePredicate"
        )
        reason = (
            f"{exception}: v{w.version} {w.provenance.operation}{who}"
            + (f" with predicate {pred}" if pred else "")
            + (
                f" changed {plural(len(files), 'file')} in partition {partition_text(partition)}"
                if partition and files
                else ""
            )
            + f" ({match.how}). {_rule_sentence(exception, evidence)}"
        )
    else:
        if evidence.file_path:
            files = [evidence.file_path]
        reason = f"{exception}: winner {match.how}. {_rule_sentence(exception, evidence)}"
    if w is not None and exception == "ConcurrentAppendException" and w.provenance.is_blind_append:
        reason += (
            f" Note: v{w.version} was a blind append, which WriteSerializable ignores; it conflicts only with a "
            "transaction that ran Serializable or changed metadata (schema evolution, ADD CONSTRAINT, overwriteSchema)."
        )
    retry = later_retry(evidence, w, txns)
    if retry is not None:
        reason += f" A later commit by the same writer (v{retry.version}, {retry.provenance.operation}) shows its likely read set: {retry.read.reads.reason}."
    engine_error = evidence.details.get("engine_error")
    if isinstance(engine_error, str):
        reason = (
            f"{engine_error}: the table's schema changed after the statement was analysed and "
            f"before its transaction began (Delta's MergeIntoCommand); as a conflict, {reason}"
        )
    return ErrorConflict(
        exception=exception,
        code=EXCEPTION_CODES.get(exception),
        winner_version=w.version if w is not None else None,
        candidates=tuple(match.candidates),
        reason=reason,
        partitions=(dict(partition),) if partition else (),
        files=tuple(files),
        confidence=match.confidence,
        engine_error=engine_error if isinstance(engine_error, str) else None,
        records=(evidence.source,),
        observed_at=evidence.observed_at,
    )


def partition_text(partition: Mapping[str, str | None] | None) -> str:
    """Delta's hint form: ``[date=2024-01-01, region=null]``."""
    if not partition:
        return "the root of the table" if partition == {} else ""
    return "[" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in partition.items()) + "]"


def _rule_sentence(exception: str, evidence: Any) -> str:
    where = f" in partition {partition_text(evidence.partition)}" if evidence.partition else ""
    return {
        "ConcurrentAppendException": f"The winner added files{where} that matched what the failed transaction read.",
        "ConcurrentDeleteReadException": f"The winner removed a file{where} that the failed transaction had read.",
        "ConcurrentDeleteDeleteException": f"Both removed the same file{where}.",
        "MetadataChangedException": "The winner changed table metadata the failed transaction depended on.",
        "ProtocolChangedException": "The winner changed the table protocol.",
        "ConcurrentTransactionException": "The winner committed the same application transaction id (streaming query).",
        "ConcurrentWriteException": "RESTORE/CLONE/CONVERT do no conflict resolution: any newer commit fails them.",
    }.get(exception, "")


def later_retry(
    evidence: Any, winner: Transaction | None, txns: Sequence[Transaction]
) -> Transaction | None:
    """The first non-blind, non-OPTIMIZE commit by a writer other than the winner's, landing
    within the window after the error: likely the failed job's successful retry."""
    observed = evidence.observed_at
    if observed is None or winner is None:
        return None
    later = [
        t
        for t in txns
        if t.version is not None
        and (t.provenance.timestamp or 0) > observed
        and t.provenance.writer != winner.provenance.writer
    ]
    if not later:
        return None
    same_kind = [
        t for t in later if not t.read.reads.blind and t.provenance.operation not in COMPACTIONS
    ]
    return (
        same_kind[0]
        if same_kind and (same_kind[0].provenance.timestamp or 0) - observed < WINDOW_MS
        else None
    )
