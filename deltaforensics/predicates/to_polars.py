"""IR -> ``pl.Expr`` over partition values, plus the naive evaluator the tests hold it to.

Both evaluators share one definition of every cast and of the comparison type
(:mod:`.casts`), and SQL's three-valued logic: a row matches only when the predicate is TRUE.
``Opaque``/``Unknown`` leaves evaluate to "may match" — TRUE when counted positively, FALSE
under an odd number of NOTs — so ``NOT (udf(x))`` is not read as FALSE.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import polars as pl

from deltaforensics.predicates.casts import (
    DTYPES,
    ColumnNames,
    Value,
    cast_scalar,
    common_kind,
    literal_kind,
    own_kind_or_text,
    typed_expr,
    typed_value,
)
from deltaforensics.predicates.ir import (
    And,
    Column,
    Compare,
    FalseExpr,
    In,
    IsNull,
    Like,
    Literal,
    Not,
    Operand,
    Or,
    Predicate,
    TrueExpr,
    any_of,
)
from deltaforensics.predicates.membership import Members, gather_members


def like_regex(pattern: str) -> str:
    """LIKE pattern -> regex body valid in both Python ``re`` and Rust ``regex``."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            i += 1
            ch = pattern[i]
            out.append("\\" + ch if ch in "\\.+*?()|[]{}^$#&-~" else ch)
        elif ch in "%_":
            out.append(".*" if ch == "%" else ".")
        else:
            out.append("\\" + ch if ch in "\\.+*?()|[]{}^$#&-~" else ch)
        i += 1
    return "".join(out)


def to_polars(
    pred: Predicate,
    partition_struct: str = "partition_values",
    name_map: Mapping[str, str] | None = None,
    types: Mapping[str, str] | None = None,
    fields: Sequence[str] | None = None,
) -> pl.Expr:
    """A boolean expression, TRUE exactly for rows where ``pred`` is TRUE on the partition values.

    ``partition_struct`` holds physical partition columns as strings ("" = null); ``name_map``
    maps logical -> physical names and ``types`` logical names -> Delta type names. With
    ``fields`` (the struct's field names) names also match case-insensitively, and a column
    missing from the struct counts as "may match" instead of failing at collect time."""
    names = ColumnNames(types, name_map, fields)
    return _Polars(partition_struct, names).expr(pred, positive=True).fill_null(False)


def _constant(value: bool) -> pl.Expr:
    """A constant as a column of the frame's length: polars 2.1 fails to filter a frame of
    20,000+ rows by an expression made of literals only ("filter predicate length of 2")."""
    return pl.repeat(value, pl.len())


class _Polars:
    def __init__(self, struct: str, names: ColumnNames) -> None:
        self.struct, self.names = struct, names

    def raw(self, col: Column) -> pl.Expr | None:
        name = self.names.field(col)
        if name is None:
            return None
        f = pl.col(self.struct).struct.field(name)
        return pl.when(f != "").then(f)

    def value(self, o: Operand, kind: str) -> pl.Expr | None:
        if isinstance(o, Literal):
            return pl.lit(cast_scalar(o.value, kind), dtype=DTYPES[kind])
        raw = self.raw(o)
        return None if raw is None else typed_expr(raw, self.names.own_kind(o), kind)

    def kind(self, o: Operand) -> str | None:
        return literal_kind(o.value) if isinstance(o, Literal) else self.names.own_kind(o)

    def expr(self, p: Predicate, positive: bool) -> pl.Expr:
        maybe = _constant(positive)  # Opaque, Unknown, or a column we cannot see
        if isinstance(p, TrueExpr | FalseExpr):
            return _constant(isinstance(p, TrueExpr))
        if isinstance(p, And):
            exprs = [self.expr(q, positive) for q in p.parts]
            return pl.all_horizontal(exprs) if exprs else _constant(True)
        if isinstance(p, Or):
            gathered, rest = gather_members(p.parts)
            exprs = [self.members(m, positive) for m in gathered]
            exprs += [self.expr(q, positive) for q in rest]
            return pl.any_horizontal(exprs) if exprs else _constant(False)
        if isinstance(p, Not):
            return ~self.expr(p.part, not positive)
        if isinstance(p, In):
            eq = any_of(*(Compare("=", p.column_expr, v) for v in p.values))
            return self.expr(Not(eq) if p.negated else eq, positive)
        if isinstance(p, Compare):
            kind = common_kind(self.kind(p.left), self.kind(p.right))
            left, right = self.value(p.left, kind), self.value(p.right, kind)
            if left is None or right is None:
                return maybe
            return _compare_expr(p.op, left, right)
        if isinstance(p, IsNull):
            v = self.value(p.expr, own_kind_or_text(self.kind(p.expr)))
            return maybe if v is None else (v.is_not_null() if p.negated else v.is_null())
        if isinstance(p, Like):
            s = self.value(p.expr, "str")
            if s is None:
                return maybe
            flags = "(?is)" if p.case_insensitive else "(?s)"
            hit = s.str.contains(f"{flags}^{like_regex(p.pattern)}$")
            return ~hit if p.negated else hit
        return maybe

    def members(self, m: Members, positive: bool) -> pl.Expr:
        """``column = v1 OR column = v2 …`` as one membership test per comparison type; a value
        that is NULL in its comparison type stays an equality (it makes the OR NULL, not FALSE)."""
        raw = self.raw(m.column)
        if raw is None:
            return _constant(positive)
        own = self.names.own_kind(m.column)
        by_kind: dict[str, list[Value]] = {}
        tests: list[pl.Expr] = []
        for lit in m.values:
            kind = common_kind(own, literal_kind(lit.value))
            value = cast_scalar(lit.value, kind)
            if value is None:
                tests.append(self.expr(Compare("=", m.column, lit), positive))
            else:
                by_kind.setdefault(kind, []).append(value)
        for kind, values in by_kind.items():
            allowed = pl.lit(pl.Series(values, dtype=DTYPES[kind])).implode()
            tests.append(typed_expr(raw, own, kind).is_in(allowed))
        return pl.any_horizontal(tests)


def _compare_expr(op: str, a: pl.Expr, b: pl.Expr) -> pl.Expr:
    if op == "<=>":
        return a.eq_missing(b)
    return {
        "=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
    }[op]  # fmt: skip


# --- the naive reference ---------------------------------------------------------------------
def evaluate(
    pred: Predicate, row: Mapping[str, str | None], types: Mapping[str, str] | None = None
) -> bool | None:
    """Three-valued, row-at-a-time evaluation over logical column names ("" = null)."""
    return _Naive(row, ColumnNames(types, None, list(row))).eval(pred, positive=True)


class _Naive:
    def __init__(self, row: Mapping[str, str | None], names: ColumnNames) -> None:
        self.row, self.names = row, names

    def value(self, o: Operand, kind: str) -> tuple[bool, Value]:
        if isinstance(o, Literal):
            return True, cast_scalar(o.value, kind)
        name = self.names.field(o)
        if name is None:
            return False, None
        return True, typed_value(self.row[name] or None, self.names.own_kind(o), kind)

    def kind(self, o: Operand) -> str | None:
        return literal_kind(o.value) if isinstance(o, Literal) else self.names.own_kind(o)

    def eval(self, p: Predicate, positive: bool) -> bool | None:
        maybe = positive
        if isinstance(p, TrueExpr | FalseExpr):
            return isinstance(p, TrueExpr)
        if isinstance(p, And | Or):
            results = [self.eval(q, positive) for q in p.parts]
            decisive = isinstance(p, Or)  # the value that settles the connective
            if decisive in results:
                return decisive
            return None if None in results else not decisive
        if isinstance(p, Not):
            inner = self.eval(p.part, not positive)
            return None if inner is None else not inner
        if isinstance(p, In):
            eq = any_of(*(Compare("=", p.column_expr, v) for v in p.values))
            return self.eval(Not(eq) if p.negated else eq, positive)
        if isinstance(p, Compare):
            k = common_kind(self.kind(p.left), self.kind(p.right))
            (ok_l, a), (ok_r, b) = self.value(p.left, k), self.value(p.right, k)
            return _compare_values(p.op, a, b) if ok_l and ok_r else maybe
        if isinstance(p, IsNull):
            ok, v = self.value(p.expr, own_kind_or_text(self.kind(p.expr)))
            return ((v is not None) if p.negated else (v is None)) if ok else maybe
        if isinstance(p, Like):
            ok, s = self.value(p.expr, "str")
            if not ok or s is None:
                return maybe if not ok else None
            flags = re.IGNORECASE | re.DOTALL if p.case_insensitive else re.DOTALL
            return (re.fullmatch(like_regex(p.pattern), str(s), flags) is not None) != p.negated
        return maybe


def _compare_values(op: str, a: Value, b: Value) -> bool | None:
    if op == "<=>":
        return a == b if a is not None and b is not None else (a is None and b is None)
    if a is None or b is None:
        return None
    x, y = a, b  # both share the comparison type by construction
    return {
        "=": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y,  # type: ignore[operator]
    }[op]  # fmt: skip
