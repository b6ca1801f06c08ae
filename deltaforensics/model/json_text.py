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
from typing import Any

import orjson


def loads(text: str) -> Any:
    """``json.loads(text)``, by orjson where that gives the same value."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # NaN, 1e400, "\ud800" (or its own error for invalid JSON)
    return json.loads(text) if _holds_float(value) else value


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
