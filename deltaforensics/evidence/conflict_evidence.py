"""One Delta concurrency exception as its text states it, and when two renderings are one exception.

A failed Spark job prints its exception several times: the streaming wrapper copies the message,
``Caused by:`` repeats it, PySpark adds a ``JVM stacktrace:`` section, a notebook shows a summary
above the traceback. ``merge_repeats`` folds those into one ``ConflictEvidence``:

- both must agree wherever both say something (exception, error class, winner version, txnId,
  winner timestamp and operation, table, partition, file) and be logged at the same time
  (``observed_at`` equal, or unknown on one side);
- then they are one exception if they name the same winner (version, ``txnId`` or timestamp), or
  — naming none (delta-rs, a summary line without the JSON) — if a chain marker (``Caused by:``,
  ``JVM stacktrace:``, ``During handling of the above exception``, ``Py4JJavaError``, pytest's
  short summary …) lies between them. Five delta-rs threads failing in turn stay five.

Several losers beaten by one winner at one moment (threads racing to create a table) cannot be
told apart from one exception printed several times; ``occurrences`` counts the renderings folded
into one value, so that case stays visible. The richest rendering is kept, its gaps filled from
the others; ``line`` is the first occurrence.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, fields, replace
from typing import Literal

Era = Literal["A", "B", "C", "databricks", "delta-rs"]
Engine = Literal["delta-spark", "databricks", "delta-rs"]
Kind = Literal["conflict", "retries-exhausted"]

CHAIN_DISTANCE_LINES = 1000
CHAIN_DISTANCE_CHARS = 200_000
RECENT = 64  # a repeat is compared with this many of the latest distinct exceptions

_CHAIN = re.compile(
    r"Caused by:|During handling of the above exception|The above exception was the direct cause"
    r"|JVM stacktrace:|Py4JJavaError|raise converted from None|=== Streaming Query ==="
    r"|short test summary info"
)
_WINNER_IDS = ("winner_version", "txn_id", "winner_timestamp")
_IDENTITY = (
    *_WINNER_IDS,
    "error_class",
    "subclass",
    "winner_operation",
    "winner_read_version",
    "table_name",
    "partition",
    "file_path",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConflictEvidence:
    """One Delta concurrency exception as its text states it; anything the text omits is None.

    - ``exception``: Delta's class name (``ConcurrentAppendException`` …,
      ``MaxCommitRetriesExceeded``); ``kind`` is ``retries-exhausted`` for the latter, which is
      not a conflict but the loop giving up (delta-rs: ``Failed to commit transaction: <n>``).
    - ``error_class`` / ``subclass``: ``DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT`` / its suffix.
    - ``era`` / ``engine``: message format and who printed it (see ``error_text``).
    - ``class_name``: the most qualified class seen (``io.delta.exceptions.…``, ``com.databricks
      .sql.transaction.tahoe.…``, ``delta.connect.exceptions.…``, ``_internal.CommitFailedError``).
    - ``winner_*``, ``txn_id``: the winning commit, from the era-C sentence (version, operation)
      and the ``Conflicting commit`` JSON; ``winner_timestamp`` is its ``timestamp`` (ms).
    - ``table_name``; ``partition``: ``{"date": "2024-01-01"}`` from ``[date=2024-01-01]`` (a
      literal ``null`` is None), ``{}`` for "the root of the table", None when not named;
      ``whole_table``: the message puts the conflict at table level (table root, a whole-table
      read, a ``WHOLE_TABLE_*``/``EMPTY_READ_PREDICATES`` sub-class); ``file_path``: the
      example file of DELETE_READ/DELETE_DELETE.
    - ``conflicting_commit``: the JSON with ``operationParameters`` re-encoded as on disk.
    - ``retry_hint``: the "Upgrading all your concurrent writers …" advice (winner without
      ``isBlindAppend``, loser under WriteSerializable).
    - ``details``: message-specific facts — ``attempts``, ``start_version``, ``failed_version``,
      ``actions``, ``time_spent_ms`` (retries); ``required_reader_version`` … ``reason``
      (delta-rs protocol); ``empty_directory``; ``operation_parameters_form`` (``decoded`` or
      ``on-disk``); ``conflicting_commit_truncated``.
    - ``observed_at``: ms since epoch of the log line (or the nearest timestamped line above).
    - ``raw`` (≤ 2000 chars), ``line`` (1-based, first occurrence), ``source``, ``occurrences``.
    """

    exception: str
    kind: Kind = "conflict"
    error_class: str | None = None
    subclass: str | None = None
    era: Era
    engine: Engine
    class_name: str | None = None
    winner_version: int | None = None
    winner_operation: str | None = None
    winner_timestamp: int | None = None
    txn_id: str | None = None
    winner_read_version: int | None = None
    winner_isolation_level: str | None = None
    winner_is_blind_append: bool | None = None
    winner_engine_info: str | None = None
    winner_user_id: str | None = None
    winner_user_name: str | None = None
    winner_cluster_id: str | None = None
    winner_job: dict[str, object] | None = None
    winner_notebook: dict[str, object] | None = None
    table_name: str | None = None
    partition: dict[str, str | None] | None = None
    whole_table: bool = False
    file_path: str | None = None
    conflicting_commit: dict[str, object] | None = None
    retry_hint: bool = False
    doc_link: str | None = None
    details: dict[str, object] = field(default_factory=dict)
    observed_at: int | None = None
    raw: str = ""
    line: int = 1
    source: str = "<stdin>"
    occurrences: int = 1

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready values, in field order (containers are copies)."""
        return {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)}


def merge_repeats(
    text: str, found: list[tuple[ConflictEvidence, int, int]]
) -> list[ConflictEvidence]:
    """``(evidence, start, end)`` in text order → distinct exceptions in order of appearance."""
    kept: list[tuple[ConflictEvidence, int, int]] = []
    for evidence, start, end in found:
        for i in range(len(kept) - 1, max(-1, len(kept) - 1 - RECENT), -1):
            other, other_start, other_end = kept[i]
            if _same_exception(other, evidence, text, other_end, start):
                kept[i] = (_combine(other, evidence), other_start, max(other_end, end))
                break
        else:
            kept.append((evidence, start, end))
    return [evidence for evidence, _, _ in kept]


def _same_exception(
    a: ConflictEvidence, b: ConflictEvidence, text: str, gap_start: int, gap_end: int
) -> bool:
    if a.exception != b.exception or a.kind != b.kind or a.source != b.source:
        return False
    for name in _IDENTITY:
        va, vb = getattr(a, name), getattr(b, name)
        if va is not None and vb is not None and va != vb:
            return False
    if a.observed_at is not None and b.observed_at is not None and a.observed_at != b.observed_at:
        return False
    if any(getattr(a, n) is not None and getattr(a, n) == getattr(b, n) for n in _WINNER_IDS):
        return True
    if not 0 <= gap_end - gap_start <= CHAIN_DISTANCE_CHARS:
        return False
    between = text[gap_start:gap_end]
    return between.count("\n") <= CHAIN_DISTANCE_LINES and bool(_CHAIN.search(between))


def _combine(first: ConflictEvidence, second: ConflictEvidence) -> ConflictEvidence:
    """The richer rendering, its gaps filled from the other; flags OR-ed; the first line kept.

    The class name is the most qualified one seen (``io.delta.exceptions.X`` over ``X``).
    """
    base, other = (first, second) if _richness(first) >= _richness(second) else (second, first)
    filled = {
        f.name: getattr(other, f.name)
        for f in fields(base)
        if f.name != "class_name"  # combined below
        and getattr(base, f.name) is None
        and getattr(other, f.name) is not None
    }
    return replace(
        base,
        **filled,
        class_name=max((base.class_name, other.class_name), key=lambda c: (c or "").count(".")),
        whole_table=base.whole_table or other.whole_table,
        retry_hint=base.retry_hint or other.retry_hint,
        details=other.details | base.details,
        engine="databricks" if "databricks" in (base.engine, other.engine) else base.engine,
        line=min(first.line, second.line),
        occurrences=first.occurrences + second.occurrences,
    )


def _richness(e: ConflictEvidence) -> int:
    return sum(1 for f in fields(e) if getattr(e, f.name) not in (None, False, {}, ""))
