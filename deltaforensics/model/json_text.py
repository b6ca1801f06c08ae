"""JSON texts of the log decoded fast, to exactly the values the standard library gives.

Reconstructing a 100,000-commit history decodes two texts per commit (``commitInfo`` and its
``operationParameters``), and ``json.loads`` was the largest single cost. orjson decodes the
same texts about twice as fast but departs from ``json`` in two ways: it rejects what ``json``
leniently accepts (NaN, Infinity, numbers beyond float range, lone surrogate escapes), and it
silently reads integers outside 64 bits as floats. So its value is kept only when it holds no
float at all (every integer in it was then in range, hence exact); texts it rejects and values
with a float are decoded again by ``json``. :func:`loads` returns what ``json.loads`` returns
and raises what it raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson


def loads(text: str) -> Any:
    """``json.loads(text)``, by orjson where that gives the same value."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # NaN, 1e400, "\ud800" (or its own error for invalid JSON)
    if _MAY_HOLD_FLOAT.search(text) is None:
        return value
    return json.loads(text) if _holds_float(value) else value


# orjson gives a float only for a number with a fraction or an exponent (digits right before
# ``.``, ``e`` or ``E``) or an integer beyond 64 bits (19 digits or more), and a number stands
# at the start of the text or after ``:``, ``[`` or ``,`` and white space. A text with no such
# number holds no float, and walking the decoded value to make sure (the larger cost of
# decoding a 100,000-commit history, issue #23) is skipped. Texts inside strings can match too
# ("x IN (1, 2.5)"): they are walked, as before.
_MAY_HOLD_FLOAT = re.compile(r"(?:^|[:\[,])\s*-?(?:[0-9]+[.eE]|[0-9]{19})")


def _holds_float(value: Any) -> bool:
    """Whether a decoded value has a float anywhere (commit texts rarely do: Delta writes its
    numbers as integers, and Delta-Spark its metrics as strings). Only containers go on the
    stack; the scalars, most of a commit, are looked at where they sit."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind is float
    pending = [value]
    while pending:
        item = pending.pop()
        for inner in item.values() if type(item) is dict else item:
            kind = type(inner)
            if kind is float:
                return True
            if kind is dict or kind is list:
                pending.append(inner)
    return False
