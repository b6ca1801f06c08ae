"""The constants a statement writes (VALUES, a SELECT list, a PARTITION clause)."""

from __future__ import annotations

from sqlglot import exp

from deltaforensics.statements.model import UNKNOWN, Value


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def cell(node: exp.Expr | None) -> Value:
    """The constant a VALUES/SELECT item writes, or UNKNOWN."""
    while isinstance(node, exp.Paren | exp.Alias):
        node = node.this
    if isinstance(node, exp.Literal):
        if node.is_string:
            return str(node.this)
        num = _number(str(node.this))
        return UNKNOWN if num is None else num
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Neg):
        inner = cell(node.this)
        return -inner if isinstance(inner, int | float) and not isinstance(inner, bool) else UNKNOWN
    if isinstance(node, exp.Cast):
        return cell(node.this)
    return UNKNOWN
