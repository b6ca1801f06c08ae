"""The partition part of a read predicate, the way Delta-Spark's conflict checker sees it.

Delta keeps only conjuncts that reference nothing but partition columns (DELETE/UPDATE also
extract partition predicates from OR/AND trees mixing data columns); for MERGE only conjuncts of
the ON condition over target columns count, plus, for matched-only merges, target-only parts of
the WHEN MATCHED conditions; NOT MATCHED BY SOURCE reads everything; non-deterministic, UDF and
subquery sub-predicates widen to TRUE (semantics doc A.2, A.6). The result carries the reasons
it is wider than the condition, because "why did this read the whole table?" is the question a
user asks first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from deltaforensics.predicates.ir import (
    DELTA_WIDENED_KINDS,
    FALSE,
    TRUE,
    And,
    Column,
    Compare,
    IsNull,
    Literal,
    Opaque,
    Or,
    Predicate,
    TrueExpr,
    Unknown,
    all_of,
    any_of,
    column_refs,
    conjuncts,
    is_evaluable,
    map_columns,
    shown_sql,
    walk,
)
from deltaforensics.predicates.operations import ReadPredicateInfo

# Aliases people give the MERGE target (Delta docs use ``oldData``/``newData``, ``t``/``s``).
# Only consulted when the caller does not know the alias; a wrong guess drops a conjunct,
# which widens the read (more conflicts reported, never fewer).
# The reason a MERGE conjunct is dropped, after the conjunct in backticks: the report's prose
# gathers these into one sentence about the ON condition.
NOT_TARGET_ONLY = "does not reference only the target"
UNPARTITIONED = "unpartitioned table: every file matches"
LIKELY_TARGET_ALIASES = frozenset(
    {"t", "tgt", "target", "trg", "old", "olddata", "existing", "dest", "destination"}
)


@dataclass(frozen=True, slots=True)
class PartitionReadPredicate:
    """``predicate`` references partition columns only (names as in ``partition_columns``, no
    qualifiers). ``kept``/``dropped`` are the condition's conjuncts as written; ``reasons`` say
    why the predicate is wider than the condition (empty when only data conjuncts were dropped).
    """

    predicate: Predicate
    reasons: tuple[str, ...] = ()
    kept: tuple[Predicate, ...] = ()
    dropped: tuple[Predicate, ...] = ()

    @property
    def whole_table(self) -> bool:
        return isinstance(self.predicate, TrueExpr)


def partition_read_predicate(
    pred: Predicate,
    partition_columns: Sequence[str],
    *,
    merge: bool = False,
    matched_only_clause_preds: Sequence[Predicate] = (),
    not_matched_by_source: bool = False,
    target_alias: str | None = None,
    extract_disjunctions: bool | None = None,
    shown_alias: str | None = None,
) -> PartitionReadPredicate:
    """Delta's partition read predicate for a command condition.

    ``extract_disjunctions`` (default: not ``merge``) enables the OR/AND extraction DELETE and
    UPDATE do; MERGE, replaceWhere and OPTIMIZE only keep whole partition-only conjuncts.
    ``shown_alias``: the target's alias as the statement wrote it, for the reasons only (a
    condition whose target qualifiers were removed is shown with them: ``t.id = s.id``)."""
    part = {c.lower(): c for c in partition_columns}
    if not part:
        return PartitionReadPredicate(TRUE, (UNPARTITIONED,))
    if merge and not_matched_by_source:
        return PartitionReadPredicate(TRUE, ("MERGE has WHEN NOT MATCHED BY SOURCE clauses",))
    if isinstance(pred, Unknown):
        return PartitionReadPredicate(TRUE, (f"predicate not understood: {pred.reason}",))
    extract = not merge if extract_disjunctions is None else extract_disjunctions
    x = _Extractor(part, merge, target_alias.lower() if target_alias else None)
    parts = list(conjuncts(pred))
    if merge and matched_only_clause_preds:
        parts.append(
            any_of(
                *(all_of(*filter(x.target_only, conjuncts(c))) for c in matched_only_clause_preds)
            )
        )
    kept: list[Predicate] = []
    dropped: list[Predicate] = []
    for c in parts:
        if merge and not x.target_only(c):
            dropped.append(c)
            x.reasons.append(f"`{shown_sql(c, shown_alias)}` {NOT_TARGET_ONLY}")
        elif x.partition_only(c):
            kept.append(x.widen(c))  # TRUE when it had to widen: all_of drops it
        elif extract and not isinstance(e := x.extract(c), TrueExpr):
            kept.append(e)
        else:
            dropped.append(c)
            if isinstance(c, Or) or not is_evaluable(c):
                x.reasons.append(
                    f"`{shown_sql(c, shown_alias)}` mixes data columns: no partition predicate"
                )
    kept = [k for k in kept if not isinstance(k, TrueExpr)]
    result = all_of(*(map_columns(k, x.canonical) for k in kept))
    if isinstance(result, TrueExpr) and not x.reasons:
        x.reasons.append(
            f"no condition restricts the partition columns ({', '.join(part.values())})"
        )
    return PartitionReadPredicate(
        result, tuple(dict.fromkeys(x.reasons)), tuple(kept), tuple(dropped)
    )


class _Extractor:
    def __init__(self, part: dict[str, str], merge: bool, target_alias: str | None) -> None:
        self.part, self.merge, self.target_alias = part, merge, target_alias
        self.reasons: list[str] = []

    def canonical(self, col: Column) -> Column:
        return Column(self.part.get(col.key, col.name))

    def partition_only(self, p: Predicate) -> bool:
        return all(c.key in self.part for c in column_refs(p))

    def _is_target(self, col: Column) -> bool:
        alias = col.table_alias
        if alias is None:
            return True  # resolved simpleString prints target attributes unqualified
        if self.target_alias is not None:
            return alias == self.target_alias
        return alias in LIKELY_TARGET_ALIASES and "." not in (col.qualifier or "")

    def target_only(self, p: Predicate) -> bool:
        """Not a join condition, no source columns, no bare word that may be a source column."""
        for node in walk(p):
            if isinstance(node, Compare):
                ops = (node.left, node.right)
                cols = [o for o in ops if isinstance(o, Column)]
                if len(cols) == 2 and not all(c.table_alias and self._is_target(c) for c in cols):
                    return False
                if any(isinstance(o, Literal) and o.inferred and _word(o.value) for o in ops):
                    return False
        return all(self._is_target(c) for c in column_refs(p))

    def widen(self, p: Predicate) -> Predicate:
        """Replace each non-AND/OR sub-predicate that cannot be evaluated by TRUE (A.6.4)."""
        if isinstance(p, And | Or):
            parts = [self.widen(q) for q in p.parts]
            return all_of(*parts) if isinstance(p, And) else any_of(*parts)
        if is_evaluable(p):
            return p
        for node in walk(p):
            if isinstance(node, Opaque):
                why = (
                    f"Delta widens {node.kind} predicates to TRUE"
                    if node.kind in DELTA_WIDENED_KINDS
                    else "cannot evaluate it here; assumed TRUE"
                )
                self.reasons.append(f"`{node.text}`: {why}")
            elif isinstance(node, Unknown):
                self.reasons.append(f"`{node.text}` not understood ({node.reason})")
        return TRUE

    def extract(self, p: Predicate) -> Predicate:
        """The weakest partition-only predicate implied by ``p`` (TRUE if none)."""
        if isinstance(p, And):
            return all_of(*(self.extract(q) for q in p.parts))
        if isinstance(p, Or):
            return any_of(*(self.extract(q) for q in p.parts))
        return self.widen(p) if self.partition_only(p) else TRUE


def _word(value: object) -> bool:
    return isinstance(value, str) and value.isidentifier()


def partition_read_predicate_for(
    info: ReadPredicateInfo,
    partition_columns: Sequence[str],
    *,
    target_alias: str | None = None,
    shown_alias: str | None = None,
) -> PartitionReadPredicate:
    """``partition_read_predicate`` with the options Delta-Spark uses for ``info.operation``.

    For a delta-rs MERGE this models what Delta-Spark would have read for the same ON
    condition; delta-rs' own checker uses ``info.predicate`` with file statistics instead."""
    if not info.reads:
        return PartitionReadPredicate(FALSE, ("the operation reads nothing",))
    if info.whole_table and isinstance(info.predicate, TrueExpr):
        return PartitionReadPredicate(TRUE, (f"{info.operation} reads the whole table",))
    if info.source == "written-partitions":
        why = "dynamic partition overwrite: use written_partitions_predicate() on its adds"
        return PartitionReadPredicate(TRUE, (why,))
    if info.operation == "MERGE":
        return partition_read_predicate(
            info.merge_condition if info.merge_condition is not None else info.predicate,
            partition_columns,
            merge=True,
            matched_only_clause_preds=info.clause_predicates if info.matched_only else (),
            not_matched_by_source=info.has_not_matched_by_source,
            target_alias=target_alias,
            shown_alias=shown_alias,
        )
    extract = info.operation in ("DELETE", "UPDATE")
    return partition_read_predicate(
        info.predicate, partition_columns, extract_disjunctions=extract, shown_alias=shown_alias
    )


def written_partitions_predicate(
    partition_values: Iterable[Mapping[str, str | None]],
) -> Predicate:
    """What a dynamic partition overwrite reads: exactly the partitions it writes (A.2).

    Keys are the names used in ``partition_values``; "" and None both mean null."""
    return any_of(
        *(
            all_of(
                *(
                    Compare("=", Column(k), Literal(v)) if v else IsNull(Column(k))
                    for k, v in sorted(values.items())
                )
            )
            for values in partition_values
        )
    )
