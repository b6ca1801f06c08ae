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
    numbers as integers, and Delta-Spark its metrics as strings)."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is float:
            return True
    return False
