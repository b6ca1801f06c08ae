"""IR -> ``pl.Expr`` over partition values, plus the naive evaluator the tests hold it to.

Why typed comparisons: the log stores partition values as strings, but Delta evaluates read
predicates on values cast to the partition schema, so ``id < 10`` must not compare ``"9"`` with
``"10"`` as text. Both evaluators share one definition of every cast (``parse_text`` is the
reference; ``parse_expr`` is its polars twin, built from the same regular expressions), one
rule for the comparison type (``common_kind``), and SQL's three-valued logic: a row matches only
when the predicate is TRUE. ``Opaque``/``Unknown`` leaves evaluate to "may match" — TRUE when
counted positively, FALSE under an odd number of NOTs — so ``NOT (udf(x))`` is not read as FALSE.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import polars as pl

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
    Scalar,
    TrueExpr,
    any_of,
)

Value = str | int | float | bool | date | datetime | None
_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_NUMERIC = frozenset({*_INT_BITS, "float"})
_DELTA_KINDS = {
    "string": "str", "byte": "int8", "tinyint": "int8", "short": "int16", "smallint": "int16",
    "integer": "int32", "int": "int32", "long": "int64", "bigint": "int64", "float": "float",
    "double": "float", "boolean": "bool", "date": "date", "timestamp": "timestamp",
    "timestamp_ntz": "timestamp",
}  # fmt: skip
_WS = " \t\n\r"
_INT_RE = "[+-]?[0-9]+"
_FLOAT_RE = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_DATE_RE = "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
_TS_RE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}(?::[0-5][0-9](?:\.[0-9]{1,6})?)?)?"
_TRUE_WORDS = ("t", "true", "y", "yes", "1")  # Spark's string -> boolean cast
_FALSE_WORDS = ("f", "false", "n", "no", "0")
_DTYPES: dict[str, pl.DataType] = {
    "str": pl.String(), "int64": pl.Int64(), "float": pl.Float64(), "bool": pl.Boolean(),
    "date": pl.Date(), "timestamp": pl.Datetime("us"),
}  # fmt: skip


def kind_of_type(delta_type: str | None) -> str | None:
    """Delta primitive type name -> comparison kind; None when the type is not known."""
    if delta_type is None:
        return None
    name = delta_type.strip().lower()
    return "float" if name.startswith("decimal") else _DELTA_KINDS.get(name, "str")


def literal_kind(value: Scalar) -> str | None:
    """A string literal is "lit": it takes whatever type the other side has (Spark coercion)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if -(2**63) <= value < 2**63 else "float"
    return "float" if isinstance(value, float) else ("lit" if isinstance(value, str) else None)


def common_kind(a: str | None, b: str | None) -> str:
    """The type both sides are cast to before comparing; None = a column of unknown type."""
    if a == "lit":
        a, b = b, a
    if b == "lit":
        return "int64" if a in _INT_BITS else (a if a not in (None, "lit") else "str")
    a, b = a or "str", b or "str"
    if a == b:
        return "int64" if a in _INT_BITS else a
    if a in _NUMERIC and b in _NUMERIC:
        return "float" if "float" in (a, b) else "int64"
    if {a, b} == {"date", "timestamp"}:
        return "timestamp"
    if "str" in (a, b):
        other = b if a == "str" else a
        return "float" if other in _INT_BITS else other
    return "str"


def _in_range(value: int, kind: str) -> bool:
    bits = _INT_BITS[kind]
    return -(1 << (bits - 1)) <= value < 1 << (bits - 1)


def parse_text(text: str | None, kind: str) -> Value:
    """Cast one string the way the polars expressions do (reference implementation)."""
    if text is None or kind == "str":
        return text
    t = text.strip(_WS)
    if kind in _INT_BITS:
        return int(t) if re.fullmatch(_INT_RE, t) and _in_range(int(t), kind) else None
    if kind == "float":
        return float(t) if re.fullmatch(_FLOAT_RE, t) else None
    if kind == "bool":
        low = t.lower()
        return True if low in _TRUE_WORDS else (False if low in _FALSE_WORDS else None)
    try:
        if kind == "date":
            ok = re.fullmatch(_DATE_RE, t) and not t.startswith("0000")
            return datetime.strptime(t, "%Y-%m-%d").date() if ok else None
        t = t.replace("T", " ", 1).removesuffix("Z")
        if not re.fullmatch(_TS_RE, t) or t.startswith("0000"):
            return None
        full = t + (" 00:00:00" if len(t) == 10 else ":00" if len(t) == 16 else "")
        stamp = datetime.strptime(full[:19], "%Y-%m-%d %H:%M:%S")
        return stamp.replace(microsecond=int(full[20:].ljust(6, "0") or 0))
    except ValueError:
        return None


def parse_expr(raw: pl.Expr, kind: str) -> pl.Expr:
    """The polars twin of ``parse_text`` for a String expression."""
    if kind == "str":
        return raw
    t = raw.str.strip_chars(_WS)
    if kind in _INT_BITS:
        bits = _INT_BITS[kind]
        v = pl.when(t.str.contains(f"^{_INT_RE}$")).then(t).cast(pl.Int64, strict=False)
        return pl.when(v.is_between(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)).then(v)
    if kind == "float":
        return pl.when(t.str.contains(f"^{_FLOAT_RE}$")).then(t).cast(pl.Float64, strict=False)
    if kind == "bool":
        low = t.str.to_lowercase()
        return pl.when(low.is_in(_TRUE_WORDS)).then(True).when(low.is_in(_FALSE_WORDS)).then(False)
    if kind == "date":
        ok = t.str.contains(f"^{_DATE_RE}$") & ~t.str.starts_with("0000")
        return pl.when(ok).then(t).str.to_date("%Y-%m-%d", strict=False)
    t = t.str.replace("T", " ", literal=True, n=1).str.strip_suffix("Z")
    ok = t.str.contains(f"^{_TS_RE}$") & ~t.str.starts_with("0000")
    n = t.str.len_chars()
    full = pl.when(n == 10).then(t + " 00:00:00").when(n == 16).then(t + ":00").otherwise(t)
    return (
        pl.when(ok).then(full).str.to_datetime("%Y-%m-%d %H:%M:%S%.f", time_unit="us", strict=False)
    )


def cast_scalar(value: Scalar, kind: str) -> Value:
    """A literal in the comparison type (shared by both evaluators, so never a source of drift)."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_text(value, kind)
    if kind == "str":
        return ("true" if value else "false") if isinstance(value, bool) else str(value)
    if kind == "bool":
        return bool(value)
    if kind == "float":
        try:
            return float(value)
        except OverflowError:
            return math.copysign(math.inf, value)
    if kind in _INT_BITS and not isinstance(value, float):
        return int(value)
    return None


def typed_value(raw: str | None, own: str | None, kind: str) -> Value:
    """A column's raw string in the comparison type (Python side)."""
    if own in _INT_BITS and kind in ("int64", "float"):
        v = parse_text(raw, own)
        return v if v is None or kind == "int64" else float(v)  # type: ignore[arg-type]
    if own == "date" and kind == "timestamp":
        d = parse_text(raw, "date")
        return None if not isinstance(d, date) else datetime(d.year, d.month, d.day)
    return parse_text(raw, kind)


def typed_expr(raw: pl.Expr, own: str | None, kind: str) -> pl.Expr:
    """A column's raw string in the comparison type (polars side)."""
    if own in _INT_BITS and kind in ("int64", "float"):
        return parse_expr(raw, own).cast(_DTYPES[kind])
    if own == "date" and kind == "timestamp":
        return parse_expr(raw, "date").cast(pl.Datetime("us"))
    return parse_expr(raw, kind)


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


class _Names:
    """Case-insensitive lookups of types, physical names and available fields."""

    def __init__(
        self,
        types: Mapping[str, str] | None,
        name_map: Mapping[str, str] | None,
        fields: Sequence[str] | None,
    ) -> None:
        self.types = {k.lower(): v for k, v in (types or {}).items()}
        self.physical = {k.lower(): v for k, v in (name_map or {}).items()}
        self.fields = None if fields is None else {f.lower(): f for f in fields}

    def own_kind(self, col: Column) -> str | None:
        return kind_of_type(self.types.get(col.key))

    def field(self, col: Column) -> str | None:
        name = self.physical.get(col.key, col.name)
        return name if self.fields is None else self.fields.get(name.lower())


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
    names = _Names(types, name_map, fields)
    return _Polars(partition_struct, names).expr(pred, positive=True).fill_null(False)


def _constant(value: bool) -> pl.Expr:
    """A constant as a column of the frame's length: polars 2.1 fails to filter a frame of
    20,000+ rows by an expression made of literals only ("filter predicate length of 2")."""
    return pl.repeat(value, pl.len())


class _Polars:
    def __init__(self, struct: str, names: _Names) -> None:
        self.struct, self.names = struct, names

    def raw(self, col: Column) -> pl.Expr | None:
        name = self.names.field(col)
        if name is None:
            return None
        f = pl.col(self.struct).struct.field(name)
        return pl.when(f != "").then(f)

    def value(self, o: Operand, kind: str) -> pl.Expr | None:
        if isinstance(o, Literal):
            return pl.lit(cast_scalar(o.value, kind), dtype=_DTYPES[kind])
        raw = self.raw(o)
        return None if raw is None else typed_expr(raw, self.names.own_kind(o), kind)

    def kind(self, o: Operand) -> str | None:
        return literal_kind(o.value) if isinstance(o, Literal) else self.names.own_kind(o)

    def expr(self, p: Predicate, positive: bool) -> pl.Expr:
        maybe = _constant(positive)  # Opaque, Unknown, or a column we cannot see
        if isinstance(p, TrueExpr | FalseExpr):
            return _constant(isinstance(p, TrueExpr))
        if isinstance(p, And | Or):
            exprs = [self.expr(q, positive) for q in p.parts]
            if not exprs:
                return _constant(isinstance(p, And))
            return pl.all_horizontal(exprs) if isinstance(p, And) else pl.any_horizontal(exprs)
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
            v = self.value(p.expr, _own_or_text(self.kind(p.expr)))
            return maybe if v is None else (v.is_not_null() if p.negated else v.is_null())
        if isinstance(p, Like):
            s = self.value(p.expr, "str")
            if s is None:
                return maybe
            flags = "(?is)" if p.case_insensitive else "(?s)"
            hit = s.str.contains(f"{flags}^{like_regex(p.pattern)}$")
            return ~hit if p.negated else hit
        return maybe


def _own_or_text(kind: str | None) -> str:
    """IS NULL looks at a value in its own type: a cast that fails is NULL, as in Spark."""
    return "str" if kind in (None, "lit") else ("int64" if kind in _INT_BITS else kind)


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
    return _Naive(row, _Names(types, None, list(row))).eval(pred, positive=True)


class _Naive:
    def __init__(self, row: Mapping[str, str | None], names: _Names) -> None:
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
            ok, v = self.value(p.expr, _own_or_text(self.kind(p.expr)))
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
