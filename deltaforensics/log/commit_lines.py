"""Commit files read line by line: the exact path that recovers or names the problem.

:mod:`deltaforensics.log.commits` parses a whole chunk of commits at once and sends here what
its fast path cannot vouch for (escapes polars would mangle, blank lines, a BOM, a parse
error). Here each line is decoded with :mod:`json` and typed against ``RAW_ACTION_SCHEMA``
field by field, so an error names the file, the line and what is wrong with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.model.schemas import KNOWN_ACTIONS, RAW_ACTION_SCHEMA

MAX_JSON_DEPTH = 64
Blob = tuple[int, str, bytes]  # (version, file name, the file's bytes)


def read_exactly(blobs: Sequence[Blob]) -> pl.DataFrame:
    """Every line of every file decoded on its own; the first bad line raises, named."""
    frames = [_read_one(v, name, data) for v, name, data in blobs]
    return pl.concat(frames, how="vertical") if frames else _empty()


def _empty() -> pl.DataFrame:
    return pl.DataFrame(schema=RAW_ACTION_SCHEMA)


def _read_one(version: int, name: str, data: bytes) -> pl.DataFrame:
    rows: list[dict[str, object]] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogCorruptError(name, f"not UTF-8 text (byte {exc.start})", version) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError:
            raise LogCorruptError(name, f"line {number}: JSON nested too deeply", version) from None
        except ValueError as exc:
            at_end = getattr(exc, "pos", 0) >= len(line.rstrip()) - 1
            what = "truncated JSON" if at_end else "invalid JSON"
            raise LogCorruptError(name, f"line {number}: {what} ({exc})", version) from None
        if not isinstance(obj, dict):
            raise LogCorruptError(name, f"line {number}: not a JSON object", version)
        if _depth(obj) > MAX_JSON_DEPTH:
            raise LogCorruptError(name, f"line {number}: JSON nested too deeply", version)
        try:
            rows.append(_row(version, obj))
        except (TypeError, ValueError) as exc:
            raise LogCorruptError(
                name, f"line {number}: an action has the wrong type: {exc}", version
            ) from None
    try:
        return pl.DataFrame(rows, schema=RAW_ACTION_SCHEMA, orient="row") if rows else _empty()
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LogCorruptError(name, f"an action has the wrong type: {reason}", version) from None


def _as_text(value: object) -> str | None:
    """What a String-typed column holds: strings as-is, anything else as its JSON text."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _as_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return int(value)


def _as_bool(value: object) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {type(value).__name__}")


def _struct(value: object, dtype: pl.Struct) -> dict[str, object] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    out: dict[str, object] = {}
    for f in dtype.fields:
        v = value.get(f.name)
        if isinstance(f.dtype, pl.Struct):
            out[f.name] = _struct(v, f.dtype)
        elif f.dtype == pl.String:
            out[f.name] = _as_text(v)
        elif f.dtype == pl.Boolean:
            out[f.name] = _as_bool(v)
        else:
            out[f.name] = _as_int(v)
    return out


def _row(version: int, obj: dict[str, object]) -> dict[str, object]:
    row: dict[str, object] = {"_v": version}
    for key, dtype in RAW_ACTION_SCHEMA.items():
        if key == "_v":
            continue
        value = obj.get(key)
        row[key] = _struct(value, dtype) if isinstance(dtype, pl.Struct) else _as_text(value)
    return row


def _depth(obj: object, level: int = 0) -> int:
    if level > MAX_JSON_DEPTH:
        return level
    if isinstance(obj, dict):
        return max((_depth(v, level + 1) for v in obj.values()), default=level + 1)
    if isinstance(obj, list):
        return max((_depth(v, level + 1) for v in obj), default=level + 1)
    return level


def unknown_action_lines(version: int, data: bytes) -> list[str]:
    """The raw text of every action line whose key Delta does not define (kept, not dropped)."""
    out: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and not any(k in obj for k in KNOWN_ACTIONS):
            out.append(line)
    return out
