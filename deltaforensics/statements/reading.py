"""Statement text -> one sqlglot tree, with every sqlglot failure as a one-line ``ValueError``."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from deltaforensics.model.quiet import quiet_logger

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TOKEN = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: .*?>")


def _one_line(err: Exception) -> str:
    errors = getattr(err, "errors", None)
    if errors and isinstance(errors, list) and isinstance(errors[0], dict):
        e = errors[0]
        where = f" (line {e.get('line')}, column {e.get('col')})" if e.get("line") else ""
        description = _TOKEN.sub(_token_text, str(e.get("description") or "syntax error"))
        return f"{description}{where}"
    first = _ANSI.sub("", str(err)).strip().splitlines()
    return first[0][:200] if first else type(err).__name__


def _token_text(m: re.Match[str]) -> str:
    return "the end of the statement" if m.group(1) == "SENTINEL" else repr(m.group(2))


def parse_tree(text: str) -> exp.Expr:
    try:
        with quiet_logger("sqlglot"):  # it warns of a fallback we report ourselves
            trees = [t for t in sqlglot.parse(text, read="spark") if t is not None]
    except (ParseError, TokenError) as err:
        raise ValueError(
            f"cannot parse the attempted statement as Spark SQL: {_one_line(err)}"
        ) from None
    except Exception as err:  # sqlglot raises assorted errors on odd input
        raise ValueError(
            f"cannot parse the attempted statement as Spark SQL: {type(err).__name__}"
        ) from None
    if not trees:
        raise ValueError("the attempted statement is empty")
    if len(trees) > 1:
        raise ValueError(f"give one statement per --attempt (found {len(trees)})")
    return trees[0]


def parse_condition(text: str) -> exp.Expr:
    """A boolean SQL expression (a WHERE or a replaceWhere)."""
    tree = parse_tree(text)
    if isinstance(tree, exp.Command | exp.Query | exp.Alias):
        raise ValueError(f"not a condition: {text.strip()[:200]!r}")
    return tree
