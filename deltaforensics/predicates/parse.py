"""commitInfo predicate strings -> IR. Never raises: what cannot be read becomes ``Unknown``.

Four dialects reach us (semantics doc B.1-B.4, field notes 2.3): JSON arrays of Spark
``simpleString`` text (``(id#12L = 5)``, literals unquoted, ``'name`` for unresolved columns),
Spark ``.sql`` text (0.x-2.3 logs, backticks, ``CAST(0 AS BIGINT)``), delta-rs SQL, and raw
replaceWhere strings. A pre-pass rewrites ``simpleString`` into SQL (quoting the literals Spark
left bare) and sqlglot's Spark reader does the rest; ``_Converter`` maps its tree onto the IR.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, replace

import sqlglot
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
    Unknown,
    walk,
)

_MAX_CHARS = 200_000
_MAX_DEPTH = 40  # sqlglot recurses ~20 frames per parenthesis level
_TRUNCATED = "__deltaforensics_truncated__"

# --- Spark simpleString -> SQL -------------------------------------------------------------
_NAME = r"(?:`(?:[^`]|``)*`|[A-Za-z_][\w$]*)"
_RESOLVED = re.compile(rf"'?{_NAME}(?:\.{_NAME})*#\d+L?(?![\w#])")
_UNRESOLVED = re.compile(rf"(?<![\w'])'{_NAME}(?:\.{_NAME})*")
_EXPR_ID = re.compile(r"#\d+L?$")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_OP = r"(?:<=>|<=|>=|!=|<>|=|<|>)"
_RHS = re.compile(rf"(\s{_OP}\s)([^()\x00']*?)(?=\)|$)")
_LHS = re.compile(rf"(\()([^()\x00']*?)(\s{_OP}\s)")
_IN_LIST = re.compile(r"(\sIN\s\()([^()\x00']*)(\))", re.IGNORECASE)
_LIKE = re.compile(r"(\s(?:I?LIKE|RLIKE)\s)([^\s()\x00']*)", re.IGNORECASE)
_CAST = re.compile(r"(cast\()([^()\x00']*?)(\sas\s)", re.IGNORECASE)
_MORE_FIELDS = re.compile(r"\.\.\. \d+ more fields?")
_BARE_OK = re.compile(
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:L|S|Y|D|F|BD)?|null|true|false", re.I
)


def _normalise_simple_string(text: str) -> tuple[str, frozenset[str]]:
    """Rewrite Spark ``simpleString`` output as SQL; returns it and the literals we quoted."""
    attrs: list[str] = []

    def protect(m: re.Match[str]) -> str:
        attrs.append(_EXPR_ID.sub("", m.group(0)).lstrip("'"))
        return f"\x00{len(attrs) - 1}\x00"

    inferred: set[str] = set()

    def lit(value: str) -> str:
        if _BARE_OK.fullmatch(value):
            return value
        inferred.add(value)
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"

    text = _MORE_FIELDS.sub(f"{_TRUNCATED}()", text)
    text = _UNRESOLVED.sub(protect, _RESOLVED.sub(protect, text))
    text = _RHS.sub(lambda m: m.group(1) + lit(m.group(2)), text)
    text = _LHS.sub(lambda m: m.group(1) + lit(m.group(2)) + m.group(3), text)
    text = _CAST.sub(lambda m: m.group(1) + lit(m.group(2).strip()) + m.group(3), text)
    text = _LIKE.sub(lambda m: m.group(1) + lit(m.group(2)), text)
    text = _IN_LIST.sub(
        lambda m: (
            m.group(1)
            + ", ".join(lit(v.strip()) for v in m.group(2).split(",") if m.group(2).strip())
            + m.group(3)
        ),
        text,
    )
    text = re.sub("\x00(\\d+)\x00", lambda m: attrs[int(m.group(1))], text)
    return text, frozenset(inferred)


def _depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    return deepest


def parse_predicate(text: object) -> Predicate:
    """Parse a predicate as stored in ``operationParameters``: a string (SQL, simpleString, or
    a JSON array of them), an already-decoded list, or None. No predicate reads as TRUE."""
    try:
        return _parse_value(text, nesting=0)
    except Exception as err:  # arbitrary log text must yield a value, never a traceback
        return Unknown(str(text)[:1000], f"internal parser error: {type(err).__name__}")


def _parse_value(value: object, nesting: int) -> Predicate:
    if value is None:
        return TRUE
    if isinstance(value, list | tuple):
        parts = [
            _parse_value(v, nesting + 1)
            if isinstance(v, str)
            else Unknown(json.dumps(v, default=str), "array item is not a string")
            for v in value
        ]
        return _faithful_and(parts)
    if not isinstance(value, str):
        return Unknown(json.dumps(value, default=str), f"predicate is a {type(value).__name__}")
    text = value.strip()
    if not text:
        return TRUE
    if text[0] in '["' and nesting < 2:
        try:
            decoded = json.loads(text)
        except ValueError:
            decoded = None
        if isinstance(decoded, list | str):
            return _parse_value(decoded, nesting + 1)
    return _parse_sql(text)


def _faithful_and(parts: list[Predicate]) -> Predicate:
    """AND the array items without simplifying, so reports show what was written."""
    flat = tuple(q for p in parts for q in (p.parts if isinstance(p, And) else (p,)))
    flat = tuple(p for p in flat if p != TRUE)
    if not flat:
        return TRUE
    return flat[0] if len(flat) == 1 else And(flat)


# --- conjunctions of column-literal comparisons, parsed once per shape ----------------------
# Most recorded conditions are ``col = 'value' AND other = 'value'`` with different values
# (a partition per run): sqlglot parses each *shape* once, with placeholder literals, and the
# values are put back in order. Only texts of this grammar take the shortcut, and only when
# the shape's parse is exactly comparisons of a column with one of the placeholders; anything
# else (a keyword used as a name, a function-like name) goes the general way.
_SIMPLE_OPERAND = r"(?:'[^'\\]*'|(?<![\w.])\d+(?![\w.]))"
_SIMPLE_COMPARISON = rf"[A-Za-z_]\w*\s*(?:=|!=|<>|<=|>=|<|>)\s*{_SIMPLE_OPERAND}"
_SIMPLE_CONJUNCTION = re.compile(
    rf"\s*{_SIMPLE_COMPARISON}(?:\s+AND\s+{_SIMPLE_COMPARISON})*\s*", re.IGNORECASE
)
_BETWEEN_LITERALS = re.compile(f"({_SIMPLE_OPERAND})")  # split: text, literal, ..., text
_STRING_PLACEHOLDER, _NUMBER_PLACEHOLDER = Literal(""), Literal(0)


def _placeholder(literal: str) -> str:
    return "''" if literal[0] == "'" else "0"


def _from_shape(text: str) -> Predicate | None:
    pieces = _BETWEEN_LITERALS.split(text)
    literals = pieces[1::2]
    shape = pieces[0] + "".join(
        _placeholder(literal) + after for literal, after in zip(literals, pieces[2::2], strict=True)
    )
    template = _parse_general(shape)
    parts = template.parts if isinstance(template, And) else (template,)
    if len(parts) != len(literals):
        return None
    out: list[Predicate] = []
    for part, literal in zip(parts, literals, strict=True):
        placeholder = _STRING_PLACEHOLDER if literal[0] == "'" else _NUMBER_PLACEHOLDER
        if not (
            isinstance(part, Compare)
            and isinstance(part.left, Column)
            and part.right == placeholder
        ):
            return None
        value = Literal(literal[1:-1]) if literal[0] == "'" else Literal(int(literal))
        out.append(Compare(part.op, part.left, value))
    return And(tuple(out)) if isinstance(template, And) else out[0]


@functools.lru_cache(maxsize=1 << 16)  # logs repeat the same conditions; results are immutable
def _parse_sql(text: str) -> Predicate:
    if len(text) > _MAX_CHARS:
        return Unknown(text[:1000], f"predicate longer than {_MAX_CHARS} characters")
    # no deeper than it has "(": counting them skips the character loop for nearly every text
    if text.count("(") > _MAX_DEPTH and _depth(text) > _MAX_DEPTH:
        return Unknown(text, f"nested deeper than {_MAX_DEPTH} parentheses")
    if _SIMPLE_CONJUNCTION.fullmatch(text):
        found = _from_shape(text)
        if found is not None:
            return found
    return _parse_general(text)


@functools.lru_cache(maxsize=4096)
def _parse_general(text: str) -> Predicate:
    candidates: list[tuple[str, frozenset[str]]] = []
    if _RESOLVED.search(_STRING.sub("''", text)) or _MORE_FIELDS.search(text):
        candidates.append(_normalise_simple_string(text))
    else:
        candidates.append((text, frozenset()))
        if _UNRESOLVED.search(text):
            candidates.append(_normalise_simple_string(text))
    error = "unparseable"
    for sql, inferred in candidates:
        try:
            tree = sqlglot.parse_one(sql, read="spark")
        except Exception as err:  # sqlglot raises several types on fuzz input
            error = f"{type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}"
            continue
        if not isinstance(tree, exp.Condition) or isinstance(_unparen(tree), exp.Literal):
            return Unknown(text, f"not a predicate ({type(tree).__name__})")
        return _Converter(inferred).predicate(tree)
    return Unknown(text, error)


# --- sqlglot tree -> IR ----------------------------------------------------------------------
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


def _unparen(node: exp.Expr) -> exp.Expr:
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


class _Converter:
    def __init__(self, inferred: frozenset[str]) -> None:
        self.inferred = inferred

    def predicate(self, node: exp.Expr) -> Predicate:
        node = _unparen(node)
        result = self._positive(node)
        if node.args.get("negate"):  # sqlglot may fold NOT into LIKE / IN / BETWEEN
            return _negate(result)
        return result

    def _positive(self, node: exp.Expr) -> Predicate:
        if isinstance(node, exp.And | exp.Or):
            parts = tuple(self.predicate(p) for p in node.flatten())
            return And(parts) if isinstance(node, exp.And) else Or(parts)
        if isinstance(node, exp.Not):
            return self._negated(_unparen(node.this))
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
        node = _unparen(node)
        if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
            parts = [node.args.get(k) for k in ("catalog", "db", "table")]
            qualifier = ".".join(p.sql(dialect="spark") for p in parts if p is not None)
            return Column(node.name, qualifier or None)
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            return Column(node.expression.name, node.this.sql(dialect="spark"))
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
                kinds.add("truncated" if n.name == _TRUNCATED else "udf")
        kind: OpaqueKind = next((k for k in _KIND_ORDER if k in kinds), "expression")
        refs = tuple(
            c
            for c in (self.operand(col) for col in node.find_all(exp.Column) if _outer(col, node))
            if isinstance(c, Column)
        )
        try:
            text = node.sql(dialect="spark").replace(f"{_TRUNCATED.upper()}()", "...")
        except Exception:  # rendering is cosmetic; never lose the predicate over it
            text = "<expression>"
        return Opaque(text, f"{reason} ({kind})", kind, refs)


# --- operationParameters -> what the command read ---------------------------------------------
@dataclass(frozen=True, slots=True)
class ReadPredicateInfo:
    """What one commit's operation read, as far as its ``operationParameters`` tell.

    ``predicate`` is the read predicate the writing engine itself checks (for a Spark MERGE the
    ON condition; for a delta-rs MERGE the derived ``predicate``, TRUE without one).
    ``merge_condition`` is the ON condition, which Delta-Spark's partition extraction uses.
    ``clause_predicates`` are the WHEN MATCHED conditions (TRUE when unconditional); Delta adds
    their target-only parts to the read predicate when ``matched_only``. ``reads`` is False for
    commands that read nothing (blind appends, DDL); their ``predicate`` is FALSE.
    ``whole_table`` means every file at the read version counts as read.
    """

    predicate: Predicate
    source: str
    whole_table: bool
    has_not_matched_by_source: bool = False
    clause_predicates: tuple[Predicate, ...] = ()
    diagnostics: tuple[str, ...] = ()
    operation: str = ""
    reads: bool = True
    matched_only: bool = False
    merge_condition: Predicate | None = None


_PREDICATE_OPS = frozenset({"DELETE", "UPDATE", "OPTIMIZE", "REORG", "COMPUTE STATS"})
_WHOLE_TABLE_OPS = frozenset({"TRUNCATE", "ADD CONSTRAINT"})
_PARAM = "operationParameters.predicate"
_ABSENT: tuple[object, ...] = (None, "", "[]", [])


def _truthy(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _clauses(value: object, diagnostics: list[str], key: str) -> list[Predicate] | None:
    """A clause list (``matchedPredicates`` ...): JSON text or already decoded; None if absent."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
        try:
            value = json.loads(text)
        except ValueError:
            diagnostics.append(f"{key} is not JSON: {text[:200]!r}")
            return None
    if not isinstance(value, list):
        diagnostics.append(f"{key} is not a list")
        return None
    return [
        parse_predicate(item.get("predicate"))
        if isinstance(item, dict)
        else Unknown(str(item), "clause is not an object")
        for item in value
    ]


def parse_operation_predicates(operation: str | None, params: object) -> ReadPredicateInfo:
    """Interpret ``operation`` + ``operationParameters`` (a dict, or its JSON text) as a read.

    Covers Delta-Spark and delta-rs parameter shapes (semantics doc A.2, B.2, B.4); never raises.
    """
    op = (operation or "").strip().upper()
    notes: list[str] = []
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            notes.append("operationParameters is not JSON")
    p: dict[str, object] = params if isinstance(params, dict) else {}
    raw = p.get("predicate")
    has_predicate = raw not in _ABSENT
    info = ReadPredicateInfo(FALSE, "none", whole_table=False, operation=op, reads=False)

    if op == "MERGE":
        info = _merge(p, op, notes)
    elif op in _PREDICATE_OPS or op.startswith("REORG"):
        pred = parse_predicate(raw) if has_predicate else TRUE
        whole = not has_predicate and op in ("DELETE", "UPDATE")
        info = ReadPredicateInfo(pred, _PARAM if has_predicate else "implicit", whole, operation=op)
    elif op in _WHOLE_TABLE_OPS or (
        op == "STREAMING UPDATE" and str(p.get("outputMode", "")).lower() == "complete"
    ):
        info = ReadPredicateInfo(TRUE, "implicit", whole_table=True, operation=op)
    elif op == "WRITE" or "REPLACE" in op or op.startswith("CREATE"):
        if has_predicate:  # replaceWhere: the user's raw condition
            info = ReadPredicateInfo(parse_predicate(raw), _PARAM, False, operation=op)
        elif _truthy(p.get("isDynamicPartitionOverwrite")):
            notes.append(
                "dynamic partition overwrite reads the partitions it writes; "
                "build them with written_partitions_predicate()"
            )
            info = ReadPredicateInfo(TRUE, "written-partitions", False, operation=op)
        elif str(p.get("mode", "")).lower() == "overwrite" or "REPLACE" in op:
            info = ReadPredicateInfo(TRUE, "implicit", whole_table=True, operation=op)
    elif has_predicate:
        notes.append(f"operation {op or '?'} is not known to read; its predicate was used")
        info = ReadPredicateInfo(parse_predicate(raw), _PARAM, False, operation=op)

    merge_on = () if info.merge_condition is None else (info.merge_condition,)
    for pred in (info.predicate, *merge_on, *info.clause_predicates):
        if any(isinstance(n, Unknown) for n in walk(pred)):
            notes.append(f"predicate not understood, read as the whole table: {pred.to_sql()}")
    if not notes:  # ``replace`` showed in profiles of logs with many distinct predicates
        return info
    return replace(info, diagnostics=info.diagnostics + tuple(dict.fromkeys(notes)))


def _merge(p: dict[str, object], op: str, notes: list[str]) -> ReadPredicateInfo:
    matched = _clauses(p.get("matchedPredicates"), notes, "matchedPredicates")
    not_matched = _clauses(p.get("notMatchedPredicates"), notes, "notMatchedPredicates")
    by_source = _clauses(
        p.get("notMatchedBySourcePredicates"), notes, "notMatchedBySourcePredicates"
    )
    if matched is None or not_matched is None:
        notes.append("MERGE clause lists missing (pre-0.8 log?): not treated as matched-only")
    base = ReadPredicateInfo(
        TRUE,
        "implicit",
        whole_table=False,
        has_not_matched_by_source=bool(by_source),
        clause_predicates=tuple(matched or ()),
        operation=op,
        matched_only=bool(matched) and not_matched == [] and not by_source,
    )
    if "mergePredicate" in p:  # delta-rs: its checker reads the derived filter, else everything
        on = parse_predicate(p.get("mergePredicate"))
        if p.get("predicate") in _ABSENT:
            return replace(base, whole_table=True, merge_condition=on)
        return replace(
            base, predicate=parse_predicate(p.get("predicate")), source=_PARAM, merge_condition=on
        )
    condition: Predicate = parse_predicate(p.get("predicate"))
    if p.get("predicate") is None:
        notes.append("MERGE without a predicate parameter: ON condition unknown")
        condition = Unknown("", "MERGE ON condition not recorded")
    return replace(base, predicate=condition, source=_PARAM, merge_condition=condition)
