"""Could a file hold a row matching the predicate? The delta-rs profile of the read check.

delta-rs tests a loser's read predicate against the winner's added files with partition values
*and* min/max statistics (field notes 3.4), so it can accept pairs Delta-Spark rejects. This
module answers the same question conservatively: the expression is FALSE only when partition
values or statistics prove that no row of the file can satisfy the predicate; anything unknown
(missing stats, untyped columns, Opaque leaves, truncated string maxima) means "may match".
Only the statistics the predicate mentions are decoded from the JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import polars as pl

from deltaforensics.predicates.casts import (
    DTYPES,
    ColumnNames,
    cast_scalar,
    common_kind,
    literal_kind,
    typed_expr,
)
from deltaforensics.predicates.ir import (
    And,
    Column,
    Compare,
    FalseExpr,
    In,
    IsNull,
    Literal,
    Or,
    Predicate,
    TrueExpr,
    column_refs,
    is_evaluable,
    negation_normal_form,
)
from deltaforensics.predicates.membership import gather_members
from deltaforensics.predicates.to_polars import to_polars

_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!=", "<=>": "<=>"}
# Delta truncates string statistics (32 characters by default); a truncated maximum need not
# bound the real values, so such a maximum is ignored.
_STRING_PREFIX_LENGTH = 32


def may_match_stats(
    pred: Predicate,
    partition_columns: Sequence[str],
    *,
    types: Mapping[str, str] | None = None,
    name_map: Mapping[str, str] | None = None,
    stats_column: str = "stats",
    partition_struct: str = "partition_values",
    fields: Sequence[str] | None = None,
) -> pl.Expr:
    """A never-null boolean over a files frame: FALSE only if no row of the file can match."""
    ctx = _Stats(pred, partition_columns, types, name_map, stats_column, partition_struct, fields)
    return ctx.may(negation_normal_form(pred))


def stats_path(section: str, physical: str | None) -> str:
    """The JSON path of one statistic: ``$.numRecords`` or ``$.minValues["id"]``."""
    return f"$.{section}" if physical is None else f"$.{section}[{json.dumps(physical)}]"


class _Stats:
    def __init__(
        self,
        pred: Predicate,
        partition_columns: Sequence[str],
        types: Mapping[str, str] | None,
        name_map: Mapping[str, str] | None,
        stats_column: str,
        partition_struct: str,
        fields: Sequence[str] | None,
    ) -> None:
        self.part = {c.lower() for c in partition_columns}
        self.names = ColumnNames(types, name_map, None)
        if fields is None:  # the struct holds the physical partition columns
            fields = [self.names.physical.get(c.lower(), c) for c in partition_columns]
        self.types, self.name_map, self.fields = types, name_map, fields
        self.stats, self.struct = stats_column, partition_struct

    def may(self, p: Predicate) -> pl.Expr:
        if isinstance(p, TrueExpr | FalseExpr):
            return pl.lit(isinstance(p, TrueExpr))
        if isinstance(p, And):
            return pl.all_horizontal([self.may(q) for q in p.parts]) if p.parts else pl.lit(True)
        if isinstance(p, Or):
            gathered, rest = gather_members(p.parts)
            parts = [self.may(q) for q in [*(m.as_in() for m in gathered), *rest]]
            return pl.any_horizontal(parts) if parts else pl.lit(False)
        refs = column_refs(p)
        if all(c.key in self.part for c in refs):  # exact: every row shares these values
            return to_polars(p, self.struct, self.name_map, self.types, self.fields)
        if not is_evaluable(p) or len(refs) != 1:
            return pl.lit(True)
        col = refs[0]
        if isinstance(p, IsNull):
            nulls, rows = self._count("nullCount", col), self._count("numRecords", None)
            return (nulls < rows if p.negated else nulls > 0).fill_null(True)
        if isinstance(p, In) and not p.negated:
            return self._any_equal(col, p.values)
        if isinstance(p, In):
            eqs = [self._compare("!=", col, v) for v in p.values]
            return pl.all_horizontal(eqs) if eqs else pl.lit(True)
        if isinstance(p, Compare) and isinstance(p.right, Literal):
            return self._compare(p.op, col, p.right)
        if isinstance(p, Compare) and isinstance(p.left, Literal):
            return self._compare(_FLIPPED[p.op], col, p.left)
        return pl.lit(True)

    def _path(self, section: str, col: Column | None) -> pl.Expr:
        physical = None if col is None else self.names.physical.get(col.key, col.name)
        return pl.col(self.stats).str.json_path_match(stats_path(section, physical))

    def _count(self, section: str, col: Column | None) -> pl.Expr:
        return self._path(section, col).cast(pl.Int64, strict=False)

    def _compare(self, op: str, col: Column, lit: Literal) -> pl.Expr:
        """May some row have ``col op lit``, given the file's min, max and null count?"""
        if lit.value is None:
            return self.may(IsNull(col)) if op == "<=>" else pl.lit(False)
        own, other = self.names.own_kind(col), literal_kind(lit.value)
        if own is None and other == "lit":
            return pl.lit(True)  # untyped column vs text: min/max order is not knowable
        kind = common_kind(own, other)
        value = cast_scalar(lit.value, kind)
        if value is None:  # the literal is NULL in the comparison type
            return self.may(IsNull(col)) if op == "<=>" else pl.lit(False)
        v = pl.lit(value, dtype=DTYPES[kind])
        lo, hi = self._bounds(col, own, kind)
        bound = {
            "=": (lo <= v) & (hi >= v), "<=>": (lo <= v) & (hi >= v),
            "!=": ~((lo == v) & (hi == v)),
            "<": lo < v, "<=": lo <= v, ">": hi > v, ">=": hi >= v,
        }[op]  # fmt: skip
        return bound.fill_null(True) & ~self._all_null(col)

    def _any_equal(self, col: Column, values: Sequence[Literal]) -> pl.Expr:
        """``_compare("=", col, v)`` for any ``v`` of ``values``, with the file's bounds decoded
        once: a file may match when some value lies between its minimum and its maximum, which
        is when fewer of the sorted values are below the minimum than are at most the maximum
        (an unknown bound does not exclude a value)."""
        own = self.names.own_kind(col)
        by_kind: dict[str, list[object]] = {}
        for lit in values:
            other = literal_kind(lit.value)
            if lit.value is None:
                continue  # never equal: FALSE, nothing to add to the OR
            if own is None and other == "lit":
                return pl.lit(True)  # untyped column vs text: min/max order is not knowable
            kind = common_kind(own, other)
            value = cast_scalar(lit.value, kind)
            if value is not None:  # NULL in the comparison type: never equal
                by_kind.setdefault(kind, []).append(value)
        tests = []
        for kind, found in by_kind.items():
            points = pl.Series(found, dtype=DTYPES[kind]).unique().sort()
            lo, hi = self._bounds(col, own, kind)
            below_min = pl.when(lo.is_not_null()).then(pl.lit(points).search_sorted(lo, "left"))
            up_to_max = pl.when(hi.is_not_null()).then(pl.lit(points).search_sorted(hi, "right"))
            below = below_min.fill_null(0).cast(pl.Int64)
            at_most = up_to_max.fill_null(points.len()).cast(pl.Int64)
            tests.append((at_most > below) & ~self._all_null(col))
        return pl.any_horizontal(tests) if tests else pl.lit(False)

    def _bounds(self, col: Column, own: str | None, kind: str) -> tuple[pl.Expr, pl.Expr]:
        """The file's minimum and maximum of ``col`` in the comparison type; NULL when unknown
        (a truncated string maximum is unknown)."""
        lo_raw, hi_raw = self._path("minValues", col), self._path("maxValues", col)
        if kind == "str":
            hi_raw = pl.when(hi_raw.str.len_chars() < _STRING_PREFIX_LENGTH).then(hi_raw)
        return typed_expr(lo_raw, own, kind), typed_expr(hi_raw, own, kind)

    def _all_null(self, col: Column) -> pl.Expr:
        """Every row of the file is NULL in ``col`` (FALSE when the counts are unknown)."""
        nulls, rows = self._count("nullCount", col), self._count("numRecords", None)
        return (nulls == rows).fill_null(False)
