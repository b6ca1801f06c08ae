"""Commit files read line by line: the exact path that recovers or names the problem.

:mod:`deltaforensics.log.commit_reader` parses a whole chunk of commits at once and sends here
what its fast path cannot vouch for (escapes polars would mangle, blank lines, a BOM, a parse
error). Here each line is decoded with :mod:`json` and typed against ``RAW_ACTION_SCHEMA``
field by field, so an error names the file, the line and what is wrong with it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.model.actions import check_metadata
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
            obj = json.loads(line, object_pairs_hook=_no_duplicate_keys)
        except DuplicateKeyError as exc:
            raise LogCorruptError(name, f"line {number}: {exc}", version) from None
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
        if "\\u" in line and (lone := _lone_surrogate(obj)):
            # JSON may escape half a surrogate pair; no UTF-8 text holds it. serde_json
            # (delta-rs) refuses the line, Jackson keeps a broken string: refused, named
            what = f"line {number}: a lone surrogate (\\u{ord(lone):04x}) is not Unicode text"
            raise LogCorruptError(name, what, version)
        try:
            rows.append(_row(version, obj))
        except (TypeError, ValueError) as exc:
            raise LogCorruptError(name, f"line {number}: wrong type: {exc}", version) from None
    try:
        return pl.DataFrame(rows, schema=RAW_ACTION_SCHEMA, orient="row") if rows else _empty()
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LogCorruptError(name, f"an action has the wrong type: {reason}", version) from None


class DuplicateKeyError(ValueError):
    """A JSON object with one key twice: Jackson keeps the last, polars and :mod:`json` differ,
    delta-rs rejects the line. Readers disagree, so no answer is right: the line is refused."""


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKeyError(f"key {key!r} appears twice in one object")
    return out


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FILE_ACTIONS = ("add", "remove")


def _as_text(value: object) -> str | None:
    """What a String-typed column holds: strings as-is, anything else as its JSON text."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _as_int(value: object, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{field}: expected a number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise TypeError(f"{field}: {value} is not a finite number")
    if not INT64_MIN <= value <= INT64_MAX:
        raise TypeError(f"{field}: {value} is beyond a 64-bit integer")
    return int(value)


def _as_bool(value: object, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"{field}: expected true or false, got {type(value).__name__}")


def _struct(value: object, dtype: pl.Struct, where: str) -> dict[str, object] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
    out: dict[str, object] = {}
    for f in dtype.fields:
        v = value.get(f.name)
        field = f"{where}.{f.name}"
        if isinstance(f.dtype, pl.Struct):
            out[f.name] = _struct(v, f.dtype, field)
        elif f.dtype == pl.String:
            out[f.name] = _as_text(v)
        elif f.dtype == pl.Boolean:
            out[f.name] = _as_bool(v, field)
        else:
            out[f.name] = _as_int(v, field)
    if where in FILE_ACTIONS:
        _check_file_action(where, value)
    return out


def _check_file_action(kind: str, value: dict[str, object]) -> None:
    """What Delta requires of an add or remove and a coercion would hide: a string path (a
    number too: Jackson would read ``5`` as ``"5"``, delta-rs refuses it; issue #32 refuses it
    in every command), and partition values that are an object of scalars (Jackson reads them
    as a string map)."""
    path = value.get("path")
    if not isinstance(path, str):
        name = type(path).__name__
        got = "missing" if path is None else f"{a_or_an(name)} {name}, expected a string"
        raise TypeError(f"{kind}.path: {got}")
    pv = value.get("partitionValues")
    if pv is None:
        return
    if not isinstance(pv, dict):
        raise TypeError(f"{kind}.partitionValues: a {type(pv).__name__}, expected an object")
    for column, v in pv.items():
        if isinstance(v, dict | list):
            raise TypeError(
                f"{kind}.partitionValues.{column}: a {type(v).__name__}, expected a value"
            )


def _row(version: int, obj: dict[str, object]) -> dict[str, object]:
    row: dict[str, object] = {"_v": version}
    for key, dtype in RAW_ACTION_SCHEMA.items():
        if key == "_v":
            continue
        value = obj.get(key)
        if key == "metaData" and isinstance(value, dict):
            check_metadata(value)
        row[key] = _struct(value, dtype, key) if isinstance(dtype, pl.Struct) else _as_text(value)
    return row


def a_or_an(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def _lone_surrogate(obj: object) -> str | None:
    """The first lone surrogate in any key or string of ``obj``, if any."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return str(exc.object[exc.start])
    return None


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
