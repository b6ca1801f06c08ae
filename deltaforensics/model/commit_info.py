"""Typed columns derived from raw ``commitInfo`` JSON text, tolerant of writer quirks.

``commitInfo`` is free-form: delta-rs lets callers put any key there with any type, so every
field is extracted as text and cast non-strictly (a ``"4"`` readVersion still reads as 4;
a nonsense value becomes null rather than an error).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence

import polars as pl

# The fields only the history document and the audit's datasets show (``DETAIL_KEYS``): a
# conflict analysis never reads them, and typed for every commit of a long history they are a
# third of the commit table (operationMetrics alone ~120 MB at 1,000,000 commits, issue #23).
_DETAIL_TEXT = ("txnId", "userId", "userName", "clusterId", "userMetadata", "kernelVersion")
_DETAIL_JSON = ("operationMetrics", "job", "notebook", "tags")
_TEXT = ("operation", "isolationLevel", "engineInfo", "clientVersion", *_DETAIL_TEXT)
_INT = ("timestamp", "inCommitTimestamp", "readVersion")
_TIMES = ("timestamp", "inCommitTimestamp")
# The epoch milliseconds a date can show: 0001-01-01 to 9999-12-31 (Python's datetime, ISO
# 8601 without an expanded year). A time outside them (nanoseconds, 2^63) is no time: a writer's
# bug or a hostile log, read as a missing time (issue #32).
EARLIEST_MS = -62_135_596_800_000
LATEST_MS = 253_402_300_799_999


def epoch_ms(value: int | None) -> int | None:
    """``value`` when it is a time a date can show, else ``None``."""
    return value if value is not None and EARLIEST_MS <= value <= LATEST_MS else None


def json_integer(value: object) -> int | None:
    """A JSON value as the commit table reads an integer field: a number, or a number as
    text, through a float (``"4"`` and ``4.0`` are 4); infinity is beyond every integer
    (``2^63``); anything else (``true``, NaN, ``"x"``) is ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(value)
    except ValueError:
        return None
    if math.isnan(number):
        return None
    return int(number) if math.isfinite(number) else int(math.copysign(2**63, number))


_JSON = ("operationParameters", *_DETAIL_JSON)
DETAIL_KEYS = (*_DETAIL_TEXT, *_DETAIL_JSON)

COLUMN_NAMES = {
    "operation": "operation",
    "isolationLevel": "isolation_level",
    "engineInfo": "engine_info",
    "clientVersion": "client_version",
    "txnId": "txn_id",
    "userId": "user_id",
    "userName": "user_name",
    "clusterId": "cluster_id",
    "userMetadata": "user_metadata",
    "kernelVersion": "kernel_version",
    "timestamp": "timestamp",
    "inCommitTimestamp": "in_commit_timestamp",
    "readVersion": "read_version",
    "isBlindAppend": "is_blind_append",
    "operationParameters": "operation_parameters",
    "operationMetrics": "operation_metrics",
    "job": "job",
    "notebook": "notebook",
    "tags": "tags",
}


_KEYS = (*_TEXT, *_INT, "isBlindAppend", *_JSON)
CORE_KEYS = tuple(k for k in _KEYS if k not in DETAIL_KEYS)
# the typed columns in the commit table's order
TYPED_COLUMNS = tuple(COLUMN_NAMES[k] for k in _KEYS)
DETAIL_COLUMNS = tuple(COLUMN_NAMES[k] for k in DETAIL_KEYS)


def _get(key: str) -> pl.Expr:
    return pl.col("commit_info").str.json_path_match(f"$.{key}")


def _typed(get: Callable[[str], pl.Expr], keys: Sequence[str] = _KEYS) -> list[pl.Expr]:
    """The typed fields of ``keys`` (in the table's order), given how to fetch one key's value
    as text."""
    exprs = []
    for key in (k for k in _KEYS if k in keys):
        value = get(key)
        if key in _INT:
            value = value.cast(pl.Float64, strict=False).cast(pl.Int64, strict=False)
            if key in _TIMES:
                value = pl.when(value.is_between(EARLIEST_MS, LATEST_MS)).then(value)
        elif key == "isBlindAppend":
            blind = value.str.to_lowercase()
            value = pl.when(blind == "true").then(True).when(blind == "false").then(False)
            value = value.otherwise(None)
        exprs.append(value.alias(COLUMN_NAMES[key]))
    return exprs


def commit_info_columns(keys: Sequence[str] = _KEYS) -> list[pl.Expr]:
    """Expressions over a ``commit_info`` text column yielding the typed fields of ``keys``."""
    return _typed(_get, keys)


def with_commit_info_columns(frame: pl.DataFrame, keys: Sequence[str] = _KEYS) -> pl.DataFrame:
    """``frame`` plus the typed fields of ``keys``, decoding all ``commit_info`` texts in one
    parse.

    One NDJSON parse with every wanted key read as text (strings unquoted, numbers and booleans
    as their JSON text, objects as JSON text) replaces a ``json_path_match`` pass per key (19);
    the casts are the same. If the texts do not parse as one object per line, the old path runs.
    """
    # polars re-serialises objects read as text without escaping backslashes, tabs or control
    # characters (see log/commit_fallback.py); texts holding such escapes take the exact path below.
    mangled = frame["commit_info"].str.contains(r'\\[^"/n]').any() if frame.height else False
    if frame.height and not mangled:
        # each slice typed as it is parsed: its texts of every key are let go at once
        parts = [_parsed(frame["commit_info"].slice(at, _ROWS_AT_ONCE), keys) for at in
                 range(0, frame.height, _ROWS_AT_ONCE)]  # fmt: skip
        if all(part is not None for part in parts):
            typed = pl.concat([p for p in parts if p is not None], how="vertical")
            return frame.hstack(typed)
    return frame.with_columns(commit_info_columns(keys))


# Texts parsed at a time: the joined text is held twice (as str, then as bytes) while it is
# parsed, ~800 MB for 1,000,000 commits at once (issue #23).
_ROWS_AT_ONCE = 65_536


def _parsed(texts: pl.Series, keys: Sequence[str]) -> pl.DataFrame | None:
    """The typed fields of ``keys`` from one NDJSON parse of ``texts`` with each key read as
    text; ``None`` if they do not parse as one object per line."""
    body = texts.fill_null("{}").str.join("\n").item()
    try:
        parsed = pl.read_ndjson(io.BytesIO(body.encode()), schema=dict.fromkeys(keys, pl.String()))
    except (pl.exceptions.PolarsError, ValueError):
        return None
    return parsed.select(_typed(pl.col, keys)) if parsed.height == texts.len() else None
