"""Read predicates as data: small, frozen, hashable nodes.

Why an IR of our own rather than sqlglot trees: commit logs carry predicates in four dialects
(Spark ``simpleString`` with expression ids, Spark ``.sql``, delta-rs SQL, raw replaceWhere
text), and the conflict model needs to split, widen, compare and evaluate them. A closed set of
value types makes those operations total functions that tests can enumerate, and equality and
hashing make de-duplication (Delta's ``ExpressionSet``) trivial.

Column names keep the case they were written in; every consumer matches them
case-insensitively (``Column.key``), as Spark's analyzer does by default.

Over 400 lines because the node types and the functions that must handle every one of them
(``map_columns``, ``negation_normal_form``, ``column_refs``, ``walk``) change together when a
node is added, and most of the package imports both from here.
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

Scalar: typing.TypeAlias = str | int | float | bool | None
CompareOp: typing.TypeAlias = typing.Literal["=", "!=", "<", "<=", ">", ">=", "<=>"]
OpaqueKind: typing.TypeAlias = typing.Literal[
    "nondeterministic", "udf", "subquery", "expression", "truncated"
]
# Delta itself replaces these by TRUE inside AND/OR trees (semantics doc A.6.4); the other kinds
# are deterministic but beyond this tool's evaluator, so they widen for our own reasons.
DELTA_WIDENED_KINDS: frozenset[str] = frozenset({"nondeterministic", "udf", "subquery"})

_BARE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED_WORDS = (
    "all and any as between by case cast distinct else end escape exists false from ilike in "
    "interval is like limit not null on or rlike regexp select some table then true when where "
    "with div current_date current_datetime current_role current_timestamp current_user "
    "session_user connect_by_root if transform"  # sqlglot reads these as functions
)
_RESERVED = frozenset(_RESERVED_WORDS.split())


def quote_identifier(name: str) -> str:
    """Backtick-quote a name unless Spark SQL would read it back unchanged without quotes."""
    if _BARE_NAME.fullmatch(name) and name.lower() not in _RESERVED:
        return name
    return "`" + name.replace("`", "``") + "`"


def quote_string(value: str) -> str:
    """A Spark SQL string literal (backslash escapes, which is what ``read="spark"`` expects)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True, slots=True)
class Column:
    """A column reference; ``qualifier`` is the alias or table name as written (SQL text).

    ``shown``: how a report shows it when that is not its SQL: Spark's expression id kept
    (``order_id#921``), so that a recorded ``order_id#921L = order_id#922L`` does not read as
    the tautology ``order_id = order_id``. Never compared: the model matches by ``name``."""

    name: str
    qualifier: str | None = None
    shown: str | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        """The case-insensitive matching key."""
        return self.name.lower()

    @property
    def table_alias(self) -> str | None:
        """Last part of the qualifier, unquoted and lower-cased (``t`` in ``t.date``)."""
        if self.qualifier is None:
            return None
        last = re.split(r"\.(?=(?:[^`]*`[^`]*`)*[^`]*$)", self.qualifier)[-1]
        return last.strip("`").replace("``", "`").lower()

    def to_sql(self) -> str:
        name = quote_identifier(self.name)
        return f"{self.qualifier}.{name}" if self.qualifier else name

    def columns(self) -> frozenset[str]:
        return frozenset({self.name})


@dataclass(frozen=True, slots=True, eq=False)
class Literal:
    """A constant. ``inferred`` marks text Spark printed unquoted (``(country#12 = US)``): it is
    almost always a string literal, but in a MERGE condition it may be an unresolved column."""

    value: Scalar
    inferred: bool = False

    def _identity(self) -> tuple[object, ...]:
        # 1 == True == 1.0 in Python; a predicate on TRUE must not equal one on 1.
        return (type(self.value), self.value, self.inferred)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Literal) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def to_sql(self) -> str:
        v = self.value
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                return f"CAST('{'NaN' if math.isnan(v) else ('-' if v < 0 else '') + 'Infinity'}' AS DOUBLE)"
            return repr(v)
        return quote_string(v)

    def columns(self) -> frozenset[str]:
        return frozenset()


Operand: typing.TypeAlias = Column | Literal


@dataclass(frozen=True, slots=True)
class TrueExpr:
    """Matches everything: Delta's empty read predicate, and every widening's result."""

    def to_sql(self) -> str:
        return "TRUE"

    def columns(self) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class FalseExpr:
    """Matches nothing: what a transaction that read nothing (a blind append) reads."""

    def to_sql(self) -> str:
        return "FALSE"

    def columns(self) -> frozenset[str]:
        return frozenset()


TRUE = TrueExpr()
FALSE = FalseExpr()


@dataclass(frozen=True, slots=True)
class Compare:
    op: CompareOp
    left: Operand
    right: Operand

    def to_sql(self) -> str:
        return f"{self.left.to_sql()} {self.op} {self.right.to_sql()}"

    def columns(self) -> frozenset[str]:
        return self.left.columns() | self.right.columns()


@dataclass(frozen=True, slots=True)
class In:
    column_expr: Operand
    values: tuple[Literal, ...]
    negated: bool = False

    def to_sql(self) -> str:
        items = ", ".join(v.to_sql() for v in self.values)
        return f"{self.column_expr.to_sql()} {'NOT IN' if self.negated else 'IN'} ({items})"

    def columns(self) -> frozenset[str]:
        return self.column_expr.columns()


@dataclass(frozen=True, slots=True)
class IsNull:
    expr: Operand
    negated: bool = False

    def to_sql(self) -> str:
        return f"{self.expr.to_sql()} IS {'NOT NULL' if self.negated else 'NULL'}"

    def columns(self) -> frozenset[str]:
        return self.expr.columns()


@dataclass(frozen=True, slots=True)
class Like:
    """SQL LIKE with ``\\`` as escape character (Spark's default)."""

    expr: Operand
    pattern: str
    negated: bool = False
    case_insensitive: bool = False

    def to_sql(self) -> str:
        op = ("NOT " if self.negated else "") + ("ILIKE" if self.case_insensitive else "LIKE")
        return f"{self.expr.to_sql()} {op} {quote_string(self.pattern)}"

    def columns(self) -> frozenset[str]:
        return self.expr.columns()


@dataclass(frozen=True, slots=True)
class Opaque:
    """A sub-predicate we keep but cannot evaluate (UDF, subquery, rand(), arithmetic...).

    ``kind`` says why; kinds in ``DELTA_WIDENED_KINDS`` are widened to TRUE by Delta itself."""

    text: str
    reason: str
    kind: OpaqueKind = "expression"
    refs: tuple[Column, ...] = ()

    def to_sql(self) -> str:
        return self.text

    def columns(self) -> frozenset[str]:
        return frozenset(c.name for c in self.refs)


@dataclass(frozen=True, slots=True)
class Unknown:
    """Cannot tell what was read: treat it as reading everything."""

    text: str
    reason: str

    def to_sql(self) -> str:
        return f"UNKNOWN({quote_string(self.text)})"

    def columns(self) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple[Predicate, ...]

    def to_sql(self) -> str:
        return _joined(self.parts, "AND", Or)

    def columns(self) -> frozenset[str]:
        return _columns_of(self.parts)


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple[Predicate, ...]

    def to_sql(self) -> str:
        return _joined(self.parts, "OR", And)

    def columns(self) -> frozenset[str]:
        return _columns_of(self.parts)


@dataclass(frozen=True, slots=True)
class Not:
    part: Predicate

    def to_sql(self) -> str:
        return f"NOT ({self.part.to_sql()})"

    def columns(self) -> frozenset[str]:
        return self.part.columns()


Predicate: typing.TypeAlias = (
    TrueExpr | FalseExpr | Compare | In | IsNull | Like | Opaque | Unknown | And | Or | Not
)
Leaf: typing.TypeAlias = TrueExpr | FalseExpr | Compare | In | IsNull | Like | Opaque | Unknown


def _joined(parts: tuple[Predicate, ...], keyword: str, wrapped: type[And] | type[Or]) -> str:
    """``parts`` joined by AND or OR, the other connective in parentheses; with no parts, the
    connective's identity (TRUE for AND, FALSE for OR)."""
    if not parts:
        return "TRUE" if keyword == "AND" else "FALSE"
    return f" {keyword} ".join(
        f"({p.to_sql()})" if isinstance(p, wrapped) else p.to_sql() for p in parts
    )


def _columns_of(parts: tuple[Predicate, ...]) -> frozenset[str]:
    return frozenset().union(*(p.columns() for p in parts))


def conjuncts(p: Predicate) -> tuple[Predicate, ...]:
    """The top-level AND parts (nested ANDs flattened); TRUE has none."""
    if isinstance(p, TrueExpr):
        return ()
    if isinstance(p, And):
        return tuple(q for part in p.parts for q in conjuncts(part))
    return (p,)


def all_of(*parts: Predicate) -> Predicate:
    """AND with flattening, TRUE/FALSE folding and de-duplication (order kept)."""
    return _connected(parts, And, absorbing=FALSE, identity=TRUE)


def any_of(*parts: Predicate) -> Predicate:
    """OR with flattening, TRUE/FALSE folding and de-duplication (order kept)."""
    return _connected(parts, Or, absorbing=TRUE, identity=FALSE)


def _connected(
    parts: Iterable[Predicate],
    connective: type[And] | type[Or],
    *,
    absorbing: TrueExpr | FalseExpr,
    identity: TrueExpr | FalseExpr,
) -> Predicate:
    """``parts`` under ``connective``: nested ones flattened, ``identity`` dropped, the whole
    ``absorbing`` as soon as a part is."""
    absorbs, neutral = type(absorbing), type(identity)
    flat: list[Predicate] = []
    for p in parts:
        for q in p.parts if isinstance(p, connective) else (p,):
            if isinstance(q, absorbs):
                return absorbing
            if not isinstance(q, neutral):
                flat.append(q)
    unique = tuple(dict.fromkeys(flat))
    if not unique:
        return identity
    return unique[0] if len(unique) == 1 else connective(unique)


def walk(p: Predicate) -> Iterator[Predicate]:
    """Every node of the tree, parents first."""
    yield p
    if isinstance(p, And | Or):
        for part in p.parts:
            yield from walk(part)
    elif isinstance(p, Not):
        yield from walk(p.part)


def column_refs(p: Predicate) -> tuple[Column, ...]:
    """Every column reference with its qualifier, in order of appearance."""
    if isinstance(p, Compare):  # the usual conjunct: no tree to walk
        return _compared_columns(p)
    refs: list[Column] = []
    for node in walk(p):
        if isinstance(node, Compare):
            refs += _compared_columns(node)
        elif isinstance(node, In):
            refs += [node.column_expr] if isinstance(node.column_expr, Column) else []
        elif isinstance(node, IsNull | Like):
            refs += [node.expr] if isinstance(node.expr, Column) else []
        elif isinstance(node, Opaque):
            refs += node.refs
    return tuple(refs)


def _compared_columns(p: Compare) -> tuple[Column, ...]:
    left, right = p.left, p.right
    if isinstance(left, Column):
        return (left, right) if isinstance(right, Column) else (left,)
    return (right,) if isinstance(right, Column) else ()


def is_evaluable(p: Predicate) -> bool:
    """False if any node is Opaque or Unknown: evaluation would have to guess."""
    return not any(isinstance(node, Opaque | Unknown) for node in walk(p))


@dataclass(frozen=True, slots=True)
class _ShownColumn(Column):
    """A column printed as a report shows it (only inside :func:`shown_sql`)."""

    text: str = ""

    def to_sql(self) -> str:
        return self.text


def shown_sql(p: Predicate, target_alias: str | None = None) -> str:
    """``p`` as a report shows it: each column with its expression id when the log recorded
    one (``order_id#921 = order_id#922``), an unqualified column qualified by ``target_alias``
    when the statement's aliases are known (``t.order_id = s.order_id``). Not SQL to run:
    :meth:`to_sql` is that."""

    def shown(c: Column) -> Column:
        base = c.shown or quote_identifier(c.name)
        qualifier = c.qualifier or target_alias
        return _ShownColumn(c.name, c.qualifier, text=f"{qualifier}.{base}" if qualifier else base)

    return map_columns(p, shown).to_sql()


def map_columns(p: Predicate, fn: typing.Callable[[Column], Column]) -> Predicate:
    """The same tree with every column reference replaced by ``fn(column)``."""

    def op(o: Operand) -> Operand:
        return fn(o) if isinstance(o, Column) else o

    if isinstance(p, And | Or):
        return type(p)(tuple(map_columns(q, fn) for q in p.parts))
    if isinstance(p, Not):
        return Not(map_columns(p.part, fn))
    if isinstance(p, Compare):
        return Compare(p.op, op(p.left), op(p.right))
    if isinstance(p, In):
        return In(op(p.column_expr), p.values, p.negated)
    if isinstance(p, IsNull):
        return IsNull(op(p.expr), p.negated)
    if isinstance(p, Like):
        return Like(op(p.expr), p.pattern, p.negated, p.case_insensitive)
    if isinstance(p, Opaque):
        return Opaque(p.text, p.reason, p.kind, tuple(fn(c) for c in p.refs))
    return p


_NEGATED_OP: dict[str, CompareOp] = {
    "=": "!=",
    "!=": "=",
    "<": ">=",
    ">=": "<",
    ">": "<=",
    "<=": ">",
}


def negation_normal_form(p: Predicate) -> Predicate:
    """Push NOT down to the leaves. Exact under SQL's three-valued logic (De Morgan holds, and
    ``NOT (a < b)`` is ``a >= b`` whenever both are non-null and NULL otherwise); a NOT that
    cannot be pushed (over ``<=>``, Opaque, Unknown) stays on its leaf."""
    if isinstance(p, And | Or):
        return type(p)(tuple(negation_normal_form(q) for q in p.parts))
    if not isinstance(p, Not):
        return p
    inner = p.part
    if isinstance(inner, Not):
        return negation_normal_form(inner.part)
    if isinstance(inner, And | Or):
        flipped = Or if isinstance(inner, And) else And
        return flipped(tuple(negation_normal_form(Not(q)) for q in inner.parts))
    if isinstance(inner, TrueExpr | FalseExpr):
        return FALSE if isinstance(inner, TrueExpr) else TRUE
    if isinstance(inner, Compare) and inner.op in _NEGATED_OP:
        return Compare(_NEGATED_OP[inner.op], inner.left, inner.right)
    if isinstance(inner, In | IsNull | Like):
        return replace(inner, negated=not inner.negated)
    return p
