"""commitInfo predicate strings -> IR. Never raises: what cannot be read becomes ``Unknown``.

Four dialects reach us (semantics doc B.1-B.4, field notes 2.3): JSON arrays of Spark
``simpleString`` text (``(id#12L = 5)``, literals unquoted, ``'name`` for unresolved columns),
Spark ``.sql`` text (0.x-2.3 logs, backticks, ``CAST(0 AS BIGINT)``), delta-rs SQL, and raw
replaceWhere strings. A pre-pass rewrites ``simpleString`` into SQL (quoting the literals Spark
left bare, :mod:`.simple_string`) and sqlglot's Spark reader does the rest; :mod:`.from_sqlglot`
maps its tree onto the IR. What a whole ``operationParameters`` read is :mod:`.operations`.
"""

from __future__ import annotations

import functools
import json
import re

import sqlglot
from sqlglot import exp

from deltaforensics.predicates.from_sqlglot import Converter, unparen
from deltaforensics.predicates.ir import (
    TRUE,
    And,
    Column,
    Compare,
    Literal,
    Predicate,
    Unknown,
)
from deltaforensics.predicates.simple_string import sql_candidates

_MAX_CHARS = 200_000
_MAX_DEPTH = 40  # sqlglot recurses ~20 frames per parenthesis level


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
    error = "unparseable"
    for sql, inferred in sql_candidates(text):
        try:
            tree = sqlglot.parse_one(sql, read="spark")
        except Exception as err:  # sqlglot raises several types on fuzz input
            error = f"{type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}"
            continue
        if not isinstance(tree, exp.Condition) or isinstance(unparen(tree), exp.Literal):
            return Unknown(text, f"not a predicate ({type(tree).__name__})")
        return Converter(inferred).predicate(tree)
    return Unknown(text, error)
