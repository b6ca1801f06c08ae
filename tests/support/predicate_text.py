"""Statement predicates: read with the product's parser, printed the way each engine logs them.

Reading reuses ``deltaforensics.predicates`` (its IR and its SQL parser), so a test writes
``"date = 'A' AND id = 5"`` and the builder understands it exactly as the analyzer will read a
delta-rs or replaceWhere predicate. Only the subset every engine prints alike is accepted
(comparisons, AND/OR/NOT, [NOT] IN, IS [NOT] NULL); anything else raises ``ValueError``, and
the Spark-family callers log the text as written.

Printing cannot reuse ``Predicate.to_sql``: the analyzer's whole job is to read the differences
between what Spark ≥2.4 (Catalyst ``simpleString`` with expression ids), Spark <2.4
(``Expression.sql``) and delta-rs (``fmt_expr_to_sql``) write into ``operationParameters``, so
the builder must print each one exactly, parentheses and literal spelling included. Those
three printers are the only predicate code kept here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from deltaforensics.predicates import (
    And,
    Column,
    Compare,
    In,
    IsNull,
    Literal,
    Not,
    Or,
    Predicate,
    evaluate,
    parse_predicate,
)
from deltaforensics.predicates.ir import CompareOp, walk

_NODES = (Column, Literal, Compare, And, Or, Not, In, IsNull)
_BARE = re.compile(r"[A-Za-z_]\w*")


def read_statement_predicate(text: str) -> Predicate:
    """The IR of a test's predicate; ``ValueError`` outside the subset every engine prints."""
    pred = parse_predicate(text)
    for node in walk(pred):
        inside = isinstance(node, _NODES) and not (isinstance(node, Compare) and node.op == "<=>")
        if not inside:
            raise ValueError(f"cannot render predicate {text!r}: {node.to_sql()}")
    return pred


def matches_partition(
    pred: Predicate, values: Mapping[str, str | None], types: Mapping[str, str]
) -> bool:
    """Whether a file's logical partition values satisfy ``pred`` (SQL three-valued: TRUE only).

    Raises ``KeyError`` for a column that is not a partition column: the builder cannot know
    which rows a data-column predicate removes.
    """
    known = {k.lower() for k in values}
    missing = sorted(c for c in pred.columns() if c.lower() not in known)
    if missing:
        raise KeyError(missing[0])
    return evaluate(pred, values, types) is True


def conjuncts(pred: Predicate) -> tuple[Predicate, ...]:
    """The top-level AND parts as written (OPTIMIZE logs one array item per conjunct)."""
    return pred.parts if isinstance(pred, And) else (pred,)


def _literal_text(lit: Literal, *, quoted: bool) -> str:
    v = lit.value
    if v is None:
        return "NULL" if quoted else "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'" if quoted else v
    return str(v)


class ExprIds:
    """Spark expression ids for one query: every column gets a fresh ``#<id>`` per query."""

    def __init__(self, base: int, types: Mapping[str, str], target_alias: str | None) -> None:
        self.next, self.types, self.target = base, types, target_alias
        self.ids: dict[tuple[bool, str], int] = {}

    def attr(self, col: Column) -> str:
        is_source = col.qualifier is not None and col.qualifier != self.target
        key = (is_source, col.name)
        if key not in self.ids:
            self.ids[key] = self.next
            self.next += 1 + (self.next % 3)
        suffix = "L" if self.types.get(col.name) == "long" else ""
        return f"{col.name}#{self.ids[key]}{suffix}"


def _left_nested(p: And | Or, parts: list[str]) -> str:
    """Spark prints an n-ary AND/OR as the binary tree it parsed: ``((a AND b) AND c)``."""
    op = "AND" if isinstance(p, And) else "OR"
    text = parts[0]
    for part in parts[1:]:
        text = f"({text} {op} {part})"
    return text


def _operand(p: object) -> Column | Literal:
    assert isinstance(p, Column | Literal)
    return p


def spark_simple_string(p: Predicate | Column | Literal, ids: ExprIds) -> str:
    """Catalyst ``simpleString`` as Delta ≥2.4 logs it: ``((date#12 = A) AND (id#45L = 5))``."""
    match p:
        case Column():
            return ids.attr(p)
        case Literal():
            return _literal_text(p, quoted=False)
        case Compare(op="!="):
            return f"NOT ({spark_simple_string(p.left, ids)} = {spark_simple_string(p.right, ids)})"
        case Compare():
            return (
                f"({spark_simple_string(p.left, ids)} {p.op} {spark_simple_string(p.right, ids)})"
            )
        case And() | Or():
            return _left_nested(p, [spark_simple_string(part, ids) for part in p.parts])
        case Not():
            return f"NOT {spark_simple_string(p.part, ids)}"
        case In():
            items = ",".join(_literal_text(i, quoted=False) for i in p.values)
            body = f"{spark_simple_string(_operand(p.column_expr), ids)} IN ({items})"
            return f"NOT {body}" if p.negated else body
        case IsNull():
            name = "isnotnull" if p.negated else "isnull"
            return f"{name}({spark_simple_string(_operand(p.expr), ids)})"
    raise AssertionError(p)  # pragma: no cover - read_statement_predicate admits no other node


def spark_sql(
    p: Predicate | Column | Literal,
    types: Mapping[str, str],
    backticks: bool,
    long_ctx: bool = False,
) -> str:
    """``Expression.sql`` as Delta <2.4 logged DELETE/OPTIMIZE (and MERGE, unwrapped)."""
    match p:
        case Column():
            name = p.name if not backticks and _BARE.fullmatch(p.name) else f"`{p.name}`"
            return f"{p.qualifier}.{name}" if p.qualifier else name
        case Literal():
            text = _literal_text(p, quoted=True)
            return f"{text}L" if long_ctx and isinstance(p.value, int) else text
        case Compare():
            sides = (p.left, p.right)
            is_long = any(isinstance(s, Column) and types.get(s.name) == "long" for s in sides)
            left, right = (spark_sql(s, types, backticks, is_long) for s in sides)
            return f"(NOT ({left} = {right}))" if p.op == "!=" else f"({left} {p.op} {right})"
        case And() | Or():
            return _left_nested(p, [spark_sql(part, types, backticks) for part in p.parts])
        case Not():
            return f"(NOT {spark_sql(p.part, types, backticks)})"
        case In():
            items = ", ".join(_literal_text(i, quoted=True) for i in p.values)
            body = f"({spark_sql(_operand(p.column_expr), types, backticks)} IN ({items}))"
            return f"(NOT {body})" if p.negated else body
        case IsNull():
            target = spark_sql(_operand(p.expr), types, backticks)
            return f"({target} IS {'NOT ' if p.negated else ''}NULL)"
    raise AssertionError(p)  # pragma: no cover - read_statement_predicate admits no other node


def delta_rs_sql(p: Predicate | Column | Literal, parent: str | None = None) -> str:
    """delta-rs ``fmt_expr_to_sql``: no redundant parentheses, ``IN`` expanded, ``<>`` as ``!=``."""
    match p:
        case Column():
            return p.name
        case Literal():
            return _literal_text(p, quoted=True)
        case Compare():
            return f"{delta_rs_sql(p.left)} {p.op} {delta_rs_sql(p.right)}"
        case And() | Or():
            joiner = "AND" if isinstance(p, And) else "OR"
            text = f" {joiner} ".join(delta_rs_sql(part, joiner) for part in p.parts)
            return f"({text})" if joiner == "OR" and parent in ("AND", "NOT") else text
        case Not():
            return f"NOT {delta_rs_sql(p.part, 'NOT')}"
        case In():
            equal: CompareOp = "!=" if p.negated else "="
            items = tuple(Compare(equal, p.column_expr, v) for v in p.values)
            expanded = And(items) if p.negated else Or(items)
            return delta_rs_sql(expanded if len(items) > 1 else items[0], parent)
        case IsNull():
            return f"{delta_rs_sql(p.expr)} IS {'NOT ' if p.negated else ''}NULL"
    raise AssertionError(p)  # pragma: no cover - read_statement_predicate admits no other node
