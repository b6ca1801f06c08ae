"""``operation`` + ``operationParameters`` -> what the command read (:class:`ReadPredicateInfo`).

Covers the Delta-Spark and delta-rs parameter shapes (semantics doc A.2, B.2, B.4): which
operations read through a ``predicate``, which read the whole table, which read nothing, and a
MERGE's ON condition and clause lists. Never raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from deltaforensics.predicates.ir import FALSE, TRUE, Predicate, Unknown, walk
from deltaforensics.predicates.parse import parse_predicate


@dataclass(frozen=True, slots=True)
class ReadPredicateInfo:
    """What one commit's operation read, as far as its ``operationParameters`` tell.

    ``predicate`` is the read predicate the writing engine itself checks (for a Spark MERGE the
    ON condition; for a delta-rs MERGE the derived ``predicate``, TRUE without one).
    ``merge_condition`` is the ON condition, which Delta-Spark's partition extraction uses.
    ``clause_predicates`` are the WHEN MATCHED conditions (TRUE when unconditional); Delta adds
    their target-only parts to the read predicate when ``matched_only``. ``reads`` is False for
    commands that read nothing (blind appends, DDL); their ``predicate`` is FALSE.
    ``whole_table`` means every file at the read version counts as read.
    """

    predicate: Predicate
    source: str
    whole_table: bool
    has_not_matched_by_source: bool = False
    clause_predicates: tuple[Predicate, ...] = ()
    diagnostics: tuple[str, ...] = ()
    operation: str = ""
    reads: bool = True
    matched_only: bool = False
    merge_condition: Predicate | None = None


_PREDICATE_OPS = frozenset({"DELETE", "UPDATE", "OPTIMIZE", "REORG", "COMPUTE STATS"})
_WHOLE_TABLE_OPS = frozenset({"TRUNCATE", "ADD CONSTRAINT"})
_PARAM = "operationParameters.predicate"
_ABSENT: tuple[object, ...] = (None, "", "[]", [])


def _truthy(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _clauses(value: object, diagnostics: list[str], key: str) -> list[Predicate] | None:
    """A clause list (``matchedPredicates`` ...): JSON text or already decoded; None if absent."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
        try:
            value = json.loads(text)
        except ValueError:
            diagnostics.append(f"{key} is not JSON: {text[:200]!r}")
            return None
    if not isinstance(value, list):
        diagnostics.append(f"{key} is not a list")
        return None
    return [
        parse_predicate(item.get("predicate"))
        if isinstance(item, dict)
        else Unknown(str(item), "clause is not an object")
        for item in value
    ]


def parse_operation_predicates(operation: str | None, params: object) -> ReadPredicateInfo:
    """Interpret ``operation`` + ``operationParameters`` (a dict, or its JSON text) as a read.

    Covers Delta-Spark and delta-rs parameter shapes (semantics doc A.2, B.2, B.4); never raises.
    """
    op = (operation or "").strip().upper()
    notes: list[str] = []
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            notes.append("operationParameters is not JSON")
    p: dict[str, object] = params if isinstance(params, dict) else {}
    raw = p.get("predicate")
    has_predicate = raw not in _ABSENT
    info = ReadPredicateInfo(FALSE, "none", whole_table=False, operation=op, reads=False)

    if op == "MERGE":
        info = _merge(p, op, notes)
    elif op in _PREDICATE_OPS or op.startswith("REORG"):
        pred = parse_predicate(raw) if has_predicate else TRUE
        whole = not has_predicate and op in ("DELETE", "UPDATE")
        info = ReadPredicateInfo(pred, _PARAM if has_predicate else "implicit", whole, operation=op)
    elif op in _WHOLE_TABLE_OPS or (
        op == "STREAMING UPDATE" and str(p.get("outputMode", "")).lower() == "complete"
    ):
        info = ReadPredicateInfo(TRUE, "implicit", whole_table=True, operation=op)
    elif op == "WRITE" or "REPLACE" in op or op.startswith("CREATE"):
        if has_predicate:  # replaceWhere: the user's raw condition
            info = ReadPredicateInfo(parse_predicate(raw), _PARAM, False, operation=op)
        elif _truthy(p.get("isDynamicPartitionOverwrite")):
            notes.append(
                "dynamic partition overwrite reads the partitions it writes; "
                "build them with written_partitions_predicate()"
            )
            info = ReadPredicateInfo(TRUE, "written-partitions", False, operation=op)
        elif str(p.get("mode", "")).lower() == "overwrite" or "REPLACE" in op:
            info = ReadPredicateInfo(TRUE, "implicit", whole_table=True, operation=op)
    elif has_predicate:
        notes.append(f"operation {op or '?'} is not known to read; its predicate was used")
        info = ReadPredicateInfo(parse_predicate(raw), _PARAM, False, operation=op)

    merge_on = () if info.merge_condition is None else (info.merge_condition,)
    for pred in (info.predicate, *merge_on, *info.clause_predicates):
        if any(isinstance(n, Unknown) for n in walk(pred)):
            notes.append(f"predicate not understood, read as the whole table: {pred.to_sql()}")
    if not notes:  # ``replace`` showed in profiles of logs with many distinct predicates
        return info
    return replace(info, diagnostics=info.diagnostics + tuple(dict.fromkeys(notes)))


def _merge(p: dict[str, object], op: str, notes: list[str]) -> ReadPredicateInfo:
    matched = _clauses(p.get("matchedPredicates"), notes, "matchedPredicates")
    not_matched = _clauses(p.get("notMatchedPredicates"), notes, "notMatchedPredicates")
    by_source = _clauses(
        p.get("notMatchedBySourcePredicates"), notes, "notMatchedBySourcePredicates"
    )
    if matched is None or not_matched is None:
        notes.append("MERGE clause lists missing (pre-0.8 log?): not treated as matched-only")
    base = ReadPredicateInfo(
        TRUE,
        "implicit",
        whole_table=False,
        has_not_matched_by_source=bool(by_source),
        clause_predicates=tuple(matched or ()),
        operation=op,
        matched_only=bool(matched) and not_matched == [] and not by_source,
    )
    if "mergePredicate" in p:  # delta-rs: its checker reads the derived filter, else everything
        on = parse_predicate(p.get("mergePredicate"))
        if p.get("predicate") in _ABSENT:
            return replace(base, whole_table=True, merge_condition=on)
        return replace(
            base, predicate=parse_predicate(p.get("predicate")), source=_PARAM, merge_condition=on
        )
    condition: Predicate = parse_predicate(p.get("predicate"))
    if p.get("predicate") is None:
        notes.append("MERGE without a predicate parameter: ON condition unknown")
        condition = Unknown("", "MERGE ON condition not recorded")
    return replace(base, predicate=condition, source=_PARAM, merge_condition=condition)
