"""The equalities of one column with literals in an OR (``c = 1 OR c = 2 OR c IN (3, 4)``),
gathered into one membership test per column for both evaluators.

Why: term by term, an OR of N equalities is N polars expressions, each casting the column again
(and, over file statistics, decoding its minimum and maximum from the JSON again): a DELETE whose
WHERE listed 5,000 ids took half a minute (issue #19). Gathered, :mod:`.to_polars` tests the
column once against the set of values and :mod:`.stats` searches the sorted values once per
file, whatever N. Only columns compared with two or more literals are gathered, so a predicate
without such an OR evaluates exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deltaforensics.predicates.ir import Column, Compare, In, Literal, Predicate


@dataclass(frozen=True, slots=True)
class Members:
    """``column = v`` for any ``v`` of ``values`` (first appearance order, repeats dropped)."""

    column: Column
    values: tuple[Literal, ...]

    def as_in(self) -> In:
        return In(self.column, self.values)


def gather_members(parts: Sequence[Predicate]) -> tuple[list[Members], list[Predicate]]:
    """The OR's ``parts`` as the equalities of each column met with two or more literals,
    gathered, and every other part in its order. ``OR`` of the result is the same predicate
    under SQL's three-valued logic (``c IN (…)`` is ``c = v1 OR c = v2 …`` by definition)."""
    found: dict[Column, list[Literal]] = {}
    owner: list[tuple[Column | None, Predicate]] = []
    for part in parts:
        column, values = _equalities(part)
        if column is not None:
            found.setdefault(column, []).extend(values)
        owner.append((column, part))
    gathered = {c: v for c, v in found.items() if len(v) > 1}
    members = [Members(c, tuple(dict.fromkeys(v))) for c, v in gathered.items()]
    rest = [part for column, part in owner if column not in gathered]
    return members, rest


def _equalities(p: Predicate) -> tuple[Column | None, tuple[Literal, ...]]:
    if isinstance(p, Compare) and p.op == "=":
        if isinstance(p.left, Column) and isinstance(p.right, Literal):
            return p.left, (p.right,)
        if isinstance(p.right, Column) and isinstance(p.left, Literal):
            return p.right, (p.left,)
    if isinstance(p, In) and not p.negated and isinstance(p.column_expr, Column):
        return p.column_expr, p.values
    return None, ()


__all__ = ["Members", "gather_members"]
