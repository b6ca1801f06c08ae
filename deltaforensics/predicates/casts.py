"""One definition of every cast a read predicate's comparison needs, for both evaluators.

Why typed comparisons: the log stores partition values as strings, but Delta evaluates read
predicates on values cast to the partition schema, so ``id < 10`` must not compare ``"9"`` with
``"10"`` as text. ``parse_text`` is the reference cast; ``parse_expr`` is its polars twin, built
from the same regular expressions; ``common_kind`` is the one rule for the comparison type.
:mod:`.to_polars` and :mod:`.stats` build their expressions from these.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import polars as pl

from deltaforensics.predicates.ir import Column, Scalar

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
DTYPES: dict[str, pl.DataType] = {
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
        return parse_expr(raw, own).cast(DTYPES[kind])
    if own == "date" and kind == "timestamp":
        return parse_expr(raw, "date").cast(pl.Datetime("us"))
    return parse_expr(raw, kind)


class ColumnNames:
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


def own_kind_or_text(kind: str | None) -> str:
    """IS NULL looks at a value in its own type: a cast that fails is NULL, as in Spark."""
    return "str" if kind in (None, "lit") else ("int64" if kind in _INT_BITS else kind)
