"""The ``Conflicting commit: {json}`` part of a Delta-Spark or Databricks conflict message.

The JSON is the winner's ``commitInfo`` as Jackson wrote it, on one line, usually followed by
``\\nRefer to <docLink> for more details.`` Shapes seen (semantics doc A.7, F.6):

- OSS ≥ 4.1: ``"version"`` first, ``operationParameters`` values as on disk (JSON text in strings).
- OSS < 4.1 and Databricks (e.g. DBR 14.3): ``operationParameters`` *double-decoded*, so arrays
  and objects appear as real JSON (``"predicate":["(id#1 = 2)"]``); DBR may omit ``"version"``.
- Inside a JSON log record or an ``.ipynb`` output the whole message is escaped (``{\\"timestamp\\"…``).
- Truncated by a log shipper: the JSON does not close; the top-level fields that survive are
  recovered by pattern and the result is marked incomplete.

``normalize_operation_parameters`` gives one shape for all of them: every value a string (arrays
and objects as compact JSON text, booleans and numbers as their JSON text) or None — the shape
delta-rs writes and most Delta-Spark values have on disk. Apply it to a commit read from the log
before comparing parameters with a parsed message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

MARKER = "Conflicting commit:"
MAX_SALVAGE_CHARS = 20_000
MAX_JSON_CHARS = 1_000_000  # decode a bounded slice: json's error path counts lines up to the error

_DECODER = json.JSONDecoder()
_ESCAPED_BODY = re.compile(r'(?:[^"\\\n]|\\.)*')
_PRE_KEYS = {
    "version": "int",
    "inCommitTimestamp": "int",
    "timestamp": "int",
    "userId": "str",
    "userName": "str",
    "operation": "str",
}
_POST_KEYS = {
    "readVersion": "int",
    "isolationLevel": "str",
    "isBlindAppend": "bool",
    "clusterId": "str",
    "txnId": "str",
    "engineInfo": "str",
}
_VALUE = {
    "int": r"(-?\d{1,19})(?!\d)",
    "str": r'"((?:[^"\\\n]|\\.){0,2000})"',
    "bool": r"(true|false)\b",
}


ParamsForm = Literal["decoded", "on-disk"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedCommit:
    """A conflicting commit found in a message, with where it sits in the text."""

    commit: dict[str, object]
    start: int
    end: int
    complete: bool
    params_form: ParamsForm | None


def find_conflicting_commit(text: str, start: int, limit: int) -> ParsedCommit | None:
    """The first ``Conflicting commit:`` between ``start`` and ``limit``, parsed; None if absent."""
    marker = text.find(MARKER, start, limit)
    if marker < 0:
        return None
    pos = marker + len(MARKER)
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if not text.startswith("{", pos):
        return None
    obj, end = _decode(text, pos)
    if obj is None and text.startswith('{\\"', pos):
        obj, end = _decode_escaped(text, pos)
    complete = obj is not None
    if obj is None:
        obj = _salvage(text, pos)
        end = _line_end(text, pos)
        if not obj:
            return None
    raw_params = obj.get("operationParameters")
    params, _ = normalize_operation_parameters(raw_params)
    commit = dict(obj)
    if params is not None:
        commit["operationParameters"] = params
    return ParsedCommit(
        commit=commit, start=marker, end=end, complete=complete, params_form=params_form(raw_params)
    )


def normalize_operation_parameters(params: object) -> tuple[dict[str, str | None] | None, bool]:
    """``operationParameters`` with every value a string or None; True if any was decoded JSON."""
    if not isinstance(params, dict):
        return None, False
    out: dict[str, str | None] = {}
    decoded = False
    for key, value in params.items():
        if value is None or isinstance(value, str):
            out[str(key)] = value
        elif isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        else:
            decoded = decoded or isinstance(value, list | dict)
            out[str(key)] = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return out, decoded


def params_form(params: object) -> ParamsForm | None:
    """How ``operationParameters`` arrays/objects were rendered: decoded (OSS < 4.1, DBR) or as
    JSON text like on disk (OSS >= 4.1); None when no value is an array or object either way."""
    if not isinstance(params, dict):
        return None
    if any(isinstance(v, list | dict) for v in params.values()):
        return "decoded"
    for value in params.values():
        text = value.strip() if isinstance(value, str) else ""
        if text[:1] in ("[", "{") and isinstance(_decode_any(text), list | dict):
            return "on-disk"
    return None


def _decode_any(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _decode(text: str, pos: int) -> tuple[dict[str, object] | None, int]:
    try:
        obj, end = _DECODER.raw_decode(text[pos : pos + MAX_JSON_CHARS])
    except (ValueError, RecursionError):  # not JSON, truncated, or absurdly nested
        return None, pos
    return (obj, pos + end) if isinstance(obj, dict) else (None, pos)


def _decode_escaped(text: str, pos: int) -> tuple[dict[str, object] | None, int]:
    """The JSON inside an escaped string (a JSON log record): unescape, then decode."""
    body = _ESCAPED_BODY.match(text, pos)
    if body is None:
        return None, pos
    try:
        unescaped = json.loads(f'"{body.group(0)}"')
    except (ValueError, RecursionError):
        return None, pos
    obj, end = _decode(unescaped, 0)
    if obj is None:
        return None, pos
    escaped_len = len(json.dumps(unescaped[:end], ensure_ascii=False)) - 2
    return obj, min(pos + escaped_len, body.end())


def _line_end(text: str, pos: int) -> int:
    newline = text.find("\n", pos, pos + MAX_SALVAGE_CHARS)
    return newline if newline >= 0 else min(len(text), pos + MAX_SALVAGE_CHARS)


def _salvage(text: str, pos: int) -> dict[str, object]:
    """Top-level fields of a JSON that does not parse (truncated), by their ``commitInfo`` order.

    Delta-Spark writes ``version … operation`` before ``operationParameters`` and ``readVersion …
    txnId`` after it, so each group is searched only on its side: a RESTORE's
    ``operationParameters.version`` is not mistaken for the winner's version.
    """
    segment = text[pos : _line_end(text, pos)]
    if '\\"' in segment:
        segment = segment.replace('\\"', '"')
    split = segment.find('"operationParameters"')
    before, after = (segment[:split], segment[split:]) if split >= 0 else (segment, segment)
    found: dict[str, object] = {}
    for keys, part in ((_PRE_KEYS, before), (_POST_KEYS, after)):
        for key, kind in keys.items():
            m = re.search(rf'"{key}"\s*:\s*{_VALUE[kind]}', part)
            if m:
                found[key] = _scalar(m.group(1), kind)
    return found


def _scalar(raw: str, kind: str) -> object:
    if kind == "int":
        return int(raw)
    if kind == "bool":
        return raw == "true"
    try:
        return str(json.loads(f'"{raw}"'))
    except ValueError:
        return raw
