"""sqlglot's tree of a predicate -> the IR (:mod:`deltaforensics.predicates.ir`).

What the IR cannot express exactly becomes an ``Opaque`` leaf that keeps its SQL text, the
columns it mentions and why (nondeterministic, subquery, UDF, truncated, expression); casts
Spark's analyser inserted for type coercion are unwrapped.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sqlglot import exp

from deltaforensics.predicates.ir import (
    FALSE,
    TRUE,
    And,
    Column,
    Compare,
    CompareOp,
    In,
    IsNull,
    Like,
    Literal,
    Not,
    Opaque,
    OpaqueKind,
    Operand,
    Or,
    Predicate,
    quote_identifier,
)
from deltaforensics.predicates.simple_string import EXPR_ID_MARK, TRUNCATED, unmark

_COMPARE: dict[type[exp.Expr], CompareOp] = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.NullSafeEQ: "<=>",
}
_NONDETERMINISTIC_NAMES = (
    "rand randn random uuid shuffle monotonically_increasing_id spark_partition_id "
    "input_file_name input_file_block_start input_file_block_length randstr uniform"
)
_NONDETERMINISTIC = frozenset(_NONDETERMINISTIC_NAMES.split())
_KIND_ORDER: tuple[OpaqueKind, ...] = ("nondeterministic", "subquery", "udf", "truncated")


def unparen(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _outer(col: exp.Expr, root: exp.Expr) -> bool:
    """False for columns of a subquery's own FROM (they are not the table's columns)."""
    node = col.parent
    while node is not None and node is not root:
        if isinstance(node, exp.Query):
            return False
        node = node.parent
    return True


def _negate(p: Predicate) -> Predicate:
    if isinstance(p, In | IsNull | Like):
        return replace(p, negated=not p.negated)
    return Not(p)


def _number(text: str) -> int | float | None:
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return None


class Converter:
    def __init__(self, inferred: frozenset[str]) -> None:
        self.inferred = inferred

    def predicate(self, node: exp.Expr) -> Predicate:
        node = unparen(node)
        result = self._positive(node)
        if node.args.get("negate"):  # sqlglot may fold NOT into LIKE / IN / BETWEEN
            return _negate(result)
        return result

    def _positive(self, node: exp.Expr) -> Predicate:
        if isinstance(node, exp.And | exp.Or):
            parts = tuple(self.predicate(p) for p in node.flatten())
            return And(parts) if isinstance(node, exp.And) else Or(parts)
        if isinstance(node, exp.Not):
            return self._negated(unparen(node.this))
        if type(node) in _COMPARE or isinstance(node, exp.NullSafeNEQ):
            left, right = self.operand(node.this), self.operand(node.expression)
            if left is None or right is None:
                return self.opaque(node, "comparison of an expression we do not evaluate")
            if isinstance(node, exp.NullSafeNEQ):
                return Not(Compare("<=>", left, right))
            return Compare(_COMPARE[type(node)], left, right)
        if isinstance(node, exp.In):
            return self._in(node)
        if isinstance(node, exp.Is):
            target, what = self.operand(node.this), node.expression
            if target is not None and isinstance(what, exp.Null):
                return IsNull(target)
            if target is not None and isinstance(what, exp.Boolean):
                return Compare("<=>", target, Literal(bool(what.this)))
        if isinstance(node, exp.Between):
            x, lo, hi = (self.operand(node.args.get(k)) for k in ("this", "low", "high"))
            if x is not None and lo is not None and hi is not None:
                return And((Compare(">=", x, lo), Compare("<=", x, hi)))
        if isinstance(node, exp.Like | exp.ILike):
            target, pattern = self.operand(node.this), self.operand(node.expression)
            if (
                target is not None
                and isinstance(pattern, Literal)
                and isinstance(pattern.value, str)
            ):
                return Like(target, pattern.value, case_insensitive=isinstance(node, exp.ILike))
        if isinstance(node, exp.Anonymous) and node.name.lower() in ("isnull", "isnotnull"):
            args = node.expressions
            target = self.operand(args[0]) if len(args) == 1 else None
            if target is not None:
                return IsNull(target, negated=node.name.lower() == "isnotnull")
        if isinstance(node, exp.Boolean):
            return TRUE if node.this else FALSE
        if isinstance(node, exp.Column):  # a boolean column used as a condition
            col = self.operand(node)
            if col is not None:
                return Compare("=", col, Literal(True))
        if isinstance(node, exp.Null):
            return Compare("=", Literal(None), Literal(None))
        return self.opaque(node, "expression we do not evaluate")

    def _negated(self, inner: exp.Expr) -> Predicate:
        return _negate(self.predicate(inner))

    def _in(self, node: exp.In) -> Predicate:
        target = self.operand(node.this)
        values = [self.operand(v) for v in node.expressions]
        if node.args.get("query") is not None or node.args.get("unnest") is not None:
            return self.opaque(node, "IN over a subquery")
        if target is None or not all(isinstance(v, Literal) for v in values):
            return self.opaque(node, "IN list with non-literal items")
        return In(target, tuple(v for v in values if isinstance(v, Literal)))

    def operand(self, node: exp.Expr | None) -> Operand | None:
        if node is None:
            return None
        node = unparen(node)
        if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
            parts = [node.args.get(k) for k in ("catalog", "db", "table")]
            qualifier = ".".join(p.sql(dialect="spark") for p in parts if p is not None)
            return _column(node.name, unmark(qualifier) or None)
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            return _column(node.expression.name, unmark(node.this.sql(dialect="spark")))
        if isinstance(node, exp.Literal):
            if node.is_string:
                return Literal(node.this, inferred=node.this in self.inferred)
            num = _number(node.this)
            return None if num is None else Literal(num)
        if isinstance(node, exp.Boolean):
            return Literal(bool(node.this))
        if isinstance(node, exp.Null):
            return Literal(None)
        if isinstance(node, exp.Neg):
            inner = self.operand(node.this)
            if isinstance(inner, Literal) and type(inner.value) in (int, float):
                return Literal(-inner.value)  # type: ignore[operator]
            return None
        if isinstance(node, exp.Cast):  # TryCast is a subclass
            return self._cast(self.operand(node.this), node.to)
        if isinstance(node, exp.Concat) and all(
            isinstance(e, exp.Literal) and e.is_string for e in node.expressions
        ):
            return Literal("".join(e.this for e in node.expressions))
        return None

    @staticmethod
    def _cast(inner: Operand | None, to: exp.DataType) -> Operand | None:
        """Spark's analyzer inserts casts for type coercion; the column or value stays the same
        for matching purposes, so unwrap them (``cast(id#482 as bigint)``, ``CAST(0 AS BIGINT)``)."""
        if not isinstance(inner, Literal) or inner.value is None:
            return inner
        value = inner.value
        if to.is_type(*exp.DataType.NUMERIC_TYPES) and not isinstance(value, bool):
            num = _number(str(value).strip())
            if num is None:
                return None
            if to.is_type(*exp.DataType.INTEGER_TYPES) and isinstance(num, float):
                return Literal(int(num)) if num.is_integer() else None
            return Literal(float(num) if to.is_type(*exp.DataType.REAL_TYPES) else num)
        if to.is_type(*exp.DataType.TEXT_TYPES, *exp.DataType.TEMPORAL_TYPES):
            return Literal(value if isinstance(value, str) else str(value), inner.inferred)
        return inner

    def opaque(self, node: exp.Expr, reason: str) -> Opaque:
        kinds: set[OpaqueKind] = set()
        for n in node.walk():
            if isinstance(n, exp.Rand | exp.Randn | exp.Uuid) or (
                isinstance(n, exp.Anonymous) and n.name.lower() in _NONDETERMINISTIC
            ):
                kinds.add("nondeterministic")
            elif isinstance(n, exp.Subquery | exp.Query | exp.Exists):
                kinds.add("subquery")
            elif isinstance(n, exp.Anonymous):
                kinds.add("truncated" if n.name == TRUNCATED else "udf")
        kind: OpaqueKind = next((k for k in _KIND_ORDER if k in kinds), "expression")
        refs = tuple(
            c
            for c in (self.operand(col) for col in node.find_all(exp.Column) if _outer(col, node))
            if isinstance(c, Column)
        )
        try:
            text = unmark(node.sql(dialect="spark").replace(f"{TRUNCATED.upper()}()", "..."))
        except Exception:  # rendering is cosmetic; never lose the predicate over it
            text = "<expression>"
        return Opaque(text, f"{reason} ({kind})", kind, refs)


def _column(name: str, qualifier: str | None) -> Column:
    """A column; a name carrying an expression id (``order_id__dfid921__``, from Spark's
    ``order_id#921L``) is ``order_id``, shown as ``order_id#921``."""
    marked = EXPR_ID_MARK.match(name)
    if marked is None:
        return Column(name, qualifier)
    plain = marked.group(1)
    return Column(plain, qualifier, shown=f"{quote_identifier(plain)}#{marked.group(2)}")
