"""Where a statement's rows lie under a new partition layout, from the statement itself.

Under a layout partitioned by ``date``, ``UPDATE … WHERE date = '2024-02-04'`` reads and
rewrites partition ``2024-02-04`` and nothing else, whatever the files it rewrote in the old
layout spanned: its own condition pins its footprint. File statistics
(:mod:`deltaforensics.whatif.layout`) are the evidence only where the condition leaves a new
column open. This module finds the literal value combinations a condition pins the new columns
to (equalities, ``IN`` lists and ``IS NULL``, through AND and OR), and says which evidence
decided a transaction's footprint, for the pair's reason.

The condition is the one the engine's conflict checker uses for the new columns
(:func:`~deltaforensics.whatif.repartition.new_read_predicate` gives it): a MERGE's ON condition
over target columns, DELETE/UPDATE's WHERE, a replaceWhere. An UPDATE that sets a new partition
column moves rows out of the pinned partitions, so its writes are not pinned; Delta does not
record the SET list, so this is only known for attempted statements (their SQL is at hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime

from deltaforensics.predicates.ir import (
    And,
    Column,
    Compare,
    In,
    IsNull,
    Literal,
    Or,
    Predicate,
    TrueExpr,
    walk,
)
from deltaforensics.statements import parse_statement
from deltaforensics.transactions import Transaction

MAX_PINNED = 512  # as many partitions as a file may span before its footprint is unknown

Assignment = dict[str, str | None]


def literal_text(value: object) -> str | None:
    """A literal as the partition value text the layout compares (dates ISO, booleans lower)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def pinned_values(pred: Predicate | None, columns: Sequence[str]) -> list[Assignment] | None:
    """The value combinations of ``columns`` that ``pred`` restricts rows to, or None when
    some column is left open (or there are more than :data:`MAX_PINNED`)."""
    if pred is None or isinstance(pred, TrueExpr):
        return None
    keys = {c.lower(): c for c in columns}
    found = _assignments(pred, keys)
    if found is None or len(found) > MAX_PINNED:
        return None
    wanted = set(keys.values())
    if any(set(a) != wanted for a in found):
        return None
    unique: dict[tuple[tuple[str, str | None], ...], Assignment] = {}
    for a in found:
        unique.setdefault(tuple(sorted(a.items())), a)
    return list(unique.values())


def _column(operand: object, keys: dict[str, str]) -> str | None:
    if isinstance(operand, Column):
        return keys.get(operand.name.lower())
    return None


def _assignments(p: Predicate, keys: dict[str, str]) -> list[Assignment] | None:
    """Partial assignments whose union covers every row ``p`` admits ([{}]: no restriction;
    None: too many to list)."""
    if isinstance(p, Compare) and p.op == "=":
        for col, lit in ((p.left, p.right), (p.right, p.left)):
            name = _column(col, keys)
            if name is not None and isinstance(lit, Literal):
                return [{name: literal_text(lit.value)}]
        return [{}]
    if isinstance(p, In) and not p.negated:
        name = _column(p.column_expr, keys)
        if name is None:
            return [{}]
        return [{name: literal_text(v.value)} for v in p.values]
    if isinstance(p, IsNull) and not p.negated:
        name = _column(p.expr, keys)
        return [{name: None}] if name is not None else [{}]
    if isinstance(p, Or):
        out: list[Assignment] = []
        for part in p.parts:
            found = _assignments(part, keys)
            if found is None or any(not a for a in found):
                return [{}]  # one branch admits anything: so does the OR
            out += found
        return out if len(out) <= MAX_PINNED else None
    if isinstance(p, And):
        combined: list[Assignment] = [{}]
        for part in p.parts:
            found = _assignments(part, keys)
            if found is None:
                return None
            combined = _meet(combined, found)
            if len(combined) > MAX_PINNED:
                return None
        return combined
    return [{}]


def _meet(left: list[Assignment], right: list[Assignment]) -> list[Assignment]:
    """Rows both admit: consistent unions of one assignment of each side."""
    out = []
    for a in left:
        for b in right:
            if all(a[k] == v for k, v in b.items() if k in a):
                out.append({**a, **b})
    return out


def moves_rows(t: Transaction, columns: Sequence[str]) -> bool:
    """Whether ``t`` is an attempted UPDATE that sets one of ``columns`` (its rewritten rows
    then leave the partitions its condition pins)."""
    if t.provenance.operation != "UPDATE" or not t.provenance.statement:
        return False
    try:
        stmt = parse_statement(t.provenance.statement)
    except ValueError:
        return True  # unreadable: do not claim its writes are pinned
    wanted = {c.lower() for c in columns}
    return any(c.lower() in wanted for c in stmt.set_columns)


def describe(assignments: Sequence[Assignment]) -> str:
    """``date = '2024-02-04'`` or ``date in (3 values)``, for a pair's reason."""
    if len(assignments) == 1:
        return " AND ".join(
            f"{k} IS NULL" if v is None else f"{k} = '{v}'" for k, v in assignments[0].items()
        )
    names = ", ".join(assignments[0])
    return f"{names} in {len(assignments)} listed values"


def named_values(
    transactions: Iterable[Transaction], columns: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """Per column of ``columns``, every literal a condition compares it with for equality
    (``=``, ``IN``). A file's statistics name only its minimum and maximum; the values in
    between that statements name are values the column holds, which the layout's span of a
    string column would otherwise miss (:mod:`deltaforensics.whatif.spans`)."""
    keys = {c.lower(): c for c in columns}
    found: dict[str, set[str]] = {c: set() for c in columns}
    seen: set[int] = set()  # a statement's commits share one predicate object
    for t in transactions:
        pred = t.read.reads.full_predicate
        if pred is None or id(pred) in seen:
            continue
        seen.add(id(pred))
        for node in walk(pred):
            for name, value in _equalities(node, keys):
                if value is not None:
                    found[name].add(value)
    return {c: tuple(sorted(v)) for c, v in found.items() if v}


def _equalities(node: Predicate, keys: dict[str, str]) -> list[tuple[str, str | None]]:
    if isinstance(node, Compare) and node.op == "=":
        for col, lit in ((node.left, node.right), (node.right, node.left)):
            name = _column(col, keys)
            if name is not None and isinstance(lit, Literal):
                return [(name, literal_text(lit.value))]
    if isinstance(node, In) and not node.negated:
        name = _column(node.column_expr, keys)
        if name is not None:
            return [(name, literal_text(v.value)) for v in node.values]
    return []
