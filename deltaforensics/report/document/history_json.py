"""The ``history`` document's commit rows as JSON text, built column by column.

A history has a row per retained commit (100,000 and more), and writing it through
``json.dumps(indent=2)`` meant a dict per row and Python's pure-Python encoder (the C encoder
does not indent): at 100,000 commits that cost more CPU than reading the log (issue #23).
Here each field is encoded once per column (integers, booleans and the ISO time by polars,
strings by the C string encoder, the JSON-valued fields once per distinct text) and the rows
are laid out by one ``concat_str``, in exactly the bytes ``json.dumps(doc, indent=2)`` writes.
Every other form of the document (the dicts the tables, ``--redact`` and the Python API read)
is decoded from this text, so the two cannot drift.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

if TYPE_CHECKING:
    from deltaforensics.report.document.entry import JsonValue

R = TypeVar("R")

# where a commit row sits in the document: {"commits": [ {row} ]} -> keys at depth 3
_ROW_INDENT = " " * 4
_KEY_INDENT = " " * 6
# the epoch milliseconds polars' ISO form agrees on with ``datetime.fromtimestamp(ms / 1000)``:
# up to 2**32 s a float's error stays under half a microsecond, so both land on the same
# millisecond; times outside (and nulls) take :func:`iso` itself
_ISO_RANGE = (0, 2**32 * 1000)

TEXT_FIELDS = (
    "operation",
    "isolation_level",
    "engine_info",
    "client_version",
    "txn_id",
    "user_id",
    "user_name",
    "cluster_id",
    "user_metadata",
)
INT_FIELDS = (
    "version",
    "timestamp",
    "in_commit_timestamp",
    "read_version",
    "num_added_files",
    "num_removed_files",
    "bytes_added",
    "bytes_removed",
)
BOOL_FIELDS = ("is_blind_append", "changes_metadata", "changes_protocol", "has_commit_info")
JSON_FIELDS = ("operation_parameters", "job", "notebook")


def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds and ``Z``; ``None`` when out of range."""
    if ms is None:
        return None
    try:
        return (
            datetime.fromtimestamp(ms / 1000, tz=UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z")
        )
    except (OverflowError, OSError, ValueError):
        return None


def json_or_text(text: str | None) -> JsonValue:
    """A JSON-valued commitInfo field as its value; text that is not JSON stays text."""
    if text is None:
        return None
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value


def commit_rows_json(commits: pl.DataFrame, fields: Sequence[str]) -> list[str]:
    """Each row of the commit frame (``Replay.commits``) as the JSON text of its history row
    (keys ``fields``, in order), indented as the row of the document's ``commits`` list."""
    return commit_rows_text(commits, fields).to_list()


def commit_rows_text(commits: pl.DataFrame, fields: Sequence[str]) -> pl.Series:
    """:func:`commit_rows_json` as a polars column (the text stays in one buffer)."""
    if not commits.height:
        return pl.Series("row", [], dtype=pl.String)
    encoded = _encoded_columns(commits)
    parts: list[pl.Expr] = []
    for i, name in enumerate(fields):
        head = _ROW_INDENT + "{\n" if i == 0 else ",\n"
        parts += [pl.lit(f"{head}{_KEY_INDENT}{encode_basestring_ascii(name)}: "), encoded[name]]
    parts.append(pl.lit(f"\n{_ROW_INDENT}}}"))
    return commits.select(pl.concat_str(parts).alias("row"))["row"]


def rows_array_chunks(rows: pl.Series, slice_rows: int) -> Iterator[str]:
    """The JSON array of ``rows`` (each already indented as an element at depth 2) as the
    document writes it, a slice of rows at a time: the whole text is never one string."""
    yield "[\n"
    for start in range(0, rows.len(), slice_rows):
        yield (",\n" if start else "") + ",\n".join(rows.slice(start, slice_rows).to_list())
    yield "\n  ]"


def document_json_chunks(
    head: Mapping[str, JsonValue], own: Mapping[str, Callable[[], Iterable[str]]]
) -> Iterator[str]:
    """``json.dumps(head, indent=2, default=str)`` in pieces, the value of each key in ``own``
    written by its function instead (a large array, rendered column-wise)."""
    yield "{\n"
    for i, (key, value) in enumerate(head.items()):
        yield ",\n" if i else ""
        yield f"  {encode_basestring_ascii(key)}: "
        if key in own:
            yield from own[key]()
        else:
            yield json.dumps(value, indent=2, default=str).replace("\n", "\n  ")
    yield "\n}"


def _encoded_columns(commits: pl.DataFrame) -> dict[str, pl.Expr]:
    """Every field as an expression giving its JSON text (``null`` for a null)."""
    ts = pl.coalesce("in_commit_timestamp", "timestamp")
    out: dict[str, pl.Expr] = {
        name: pl.col(name).cast(pl.String).fill_null("null") for name in INT_FIELDS
    }
    out["timestamp"] = ts.cast(pl.String).fill_null("null")
    out["timestamp_iso"] = _iso_column(commits, ts)
    for name in BOOL_FIELDS:
        flag = pl.col(name).cast(pl.Boolean)
        known = pl.when(flag).then(pl.lit("true")).otherwise(pl.lit("false"))
        out[name] = pl.when(flag.is_null()).then(pl.lit("null")).otherwise(known)
    for name in TEXT_FIELDS:
        out[name] = _mapped(commits[name], encode_basestring_ascii)
    for name in JSON_FIELDS:
        out[name] = _mapped(commits[name], _json_value_text)
    return out


def _mapped(column: pl.Series, encode: Callable[[str], str]) -> pl.Expr:
    """``column`` with each distinct non-null text encoded once (``null`` for a null): most
    fields repeat a few values (operation, engine), the rest cost one call per commit."""
    distinct = column.cast(pl.String).drop_nulls().unique()
    if not distinct.len():
        return pl.lit("null")
    texts = distinct.to_list()
    return (
        pl.col(column.name)
        .cast(pl.String)
        .replace_strict(texts, [encode(t) for t in texts], default="null", return_dtype=pl.String)
    )


def _iso_column(commits: pl.DataFrame, ts: pl.Expr) -> pl.Expr:
    """``iso`` of each row's time as JSON text: by polars inside ``_ISO_RANGE``, else by
    :func:`iso` row by row (a time before 1970 or after 2106, or beyond ``datetime``)."""
    low, high = _ISO_RANGE
    inside = ts.is_between(low, high, closed="left")
    quick = '"' + pl.from_epoch(ts, time_unit="ms").dt.strftime("%Y-%m-%dT%H:%M:%S%.3f") + 'Z"'
    outside = commits.select(ts.filter(ts.is_not_null() & ~inside).unique().alias("t"))["t"]
    if not outside.len():
        return pl.when(inside).then(quick).otherwise(pl.lit("null"))
    slow = {t: _text(iso(t)) for t in outside.to_list()}
    mapped = ts.replace_strict(
        list(slow), list(slow.values()), default="null", return_dtype=pl.String
    )
    return pl.when(inside).then(quick).otherwise(mapped)


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring_ascii(value)


def _json_value_text(text: str) -> str:
    """A JSON-valued field's raw text as ``json.dumps(json_or_text(text), indent=2)`` writes
    it at a row's field: a flat object of strings, integers, booleans and nulls (what every
    writer records) directly, anything else through :mod:`json` itself."""
    value = json_or_text(text)
    if isinstance(value, dict) and all(type(v) in _SCALARS for v in value.values()):
        if not value:
            return "{}"
        inner = _KEY_INDENT + "  "
        body = ",\n".join(
            f"{inner}{encode_basestring_ascii(k)}: {_scalar(v)}" for k, v in value.items()
        )
        return "{\n" + body + "\n" + _KEY_INDENT + "}"
    return json.dumps(value, indent=2, default=str).replace("\n", "\n" + _KEY_INDENT)


_SCALARS = frozenset({str, int, bool, type(None)})


def _scalar(value: str | int | bool | None) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    return encode_basestring_ascii(value)


def commit_rows(texts: Sequence[str], row: Callable[..., R]) -> list[R]:
    """The rows as ``row`` builds them from their fields, decoded from their JSON text (one C
    parse for them all)."""
    if not texts:
        return []
    decoded: list[dict[str, Any]] = json.loads("[" + ",".join(texts) + "]")
    return [row(**r) for r in decoded]
