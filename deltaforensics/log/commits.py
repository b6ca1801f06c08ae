"""Commit NDJSON bytes -> one raw action frame, parsed once with an explicit schema.

Fast path: every file's lines get ``"_v":<version>`` injected (a C-speed ``bytes.replace`` per
file, no per-line Python), the files are joined, and polars parses the buffer once. Blank lines
are harmless because every row carries its own version. Anything odd — a parse error, a line
that did not receive its version — sends the affected files through the exact per-line path
of :mod:`deltaforensics.log.commit_lines`, which either recovers or names the file, line and
problem.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_lines import Blob, read_exactly
from deltaforensics.log.duplicate_keys import (
    files_with_possible_duplicate_keys,
    newline_positions,
)
from deltaforensics.model.actions import check_metadata
from deltaforensics.model.schemas import RAW_ACTION_SCHEMA

# A backslash escape polars does not re-serialise intact when it reads an object into a String
# column (measured: only \", \/ and \n survive); a file holding one takes the exact path.
ESCAPES_POLARS_MANGLES = re.compile(rb'\\[^"/n]')


def _body(data: bytes) -> bytes:
    body = data.strip()
    return body[3:].lstrip() if body.startswith(b"\xef\xbb\xbf") else body


def inject_version(version: int, data: bytes) -> bytes:
    """Prefix every line of one commit file with its version; ``b""`` for an empty file."""
    body = _body(data)
    if not body:
        return b""
    prefix = b'{"_v":%d,' % version
    return prefix + body[1:].replace(b"\n{", b"\n" + prefix) + b"\n"


Schema = Mapping[str, pl.DataType]


def parse_raw(buffer: bytes, schema: Schema = RAW_ACTION_SCHEMA) -> pl.DataFrame:
    if not buffer:
        return pl.DataFrame(schema=schema)
    return pl.read_ndjson(io.BytesIO(buffer), schema=schema)


def _without_version(schema: Schema) -> Schema:
    return {k: v for k, v in schema.items() if k != "_v"}


_SCHEMA_WITHOUT_VERSION = _without_version(RAW_ACTION_SCHEMA)
# The file actions' statistics and tags are most of a log's bytes, and a String column takes
# whatever JSON they hold (the exact path too), so a reader that needs neither (history)
# parses without them and skips no check: 411 MB at 100,000 commits parse ~1 CPU s faster
# and are let go at once (issue #23).
_UNREAD_FILE_FIELDS = ("stats", "tags")
WITHOUT_STATS_SCHEMA: Schema = {
    k: pl.Struct([f for f in v.fields if f.name not in _UNREAD_FILE_FIELDS])
    if k in ("add", "remove") and isinstance(v, pl.Struct)
    else v
    for k, v in RAW_ACTION_SCHEMA.items()
}


def _narrowed(frame: pl.DataFrame, schema: Schema) -> pl.DataFrame:
    """An exact-path frame (``RAW_ACTION_SCHEMA``) with only the fields of ``schema``."""
    if schema is RAW_ACTION_SCHEMA:
        return frame
    columns = []
    for name, dtype in schema.items():
        column = pl.col(name)
        if isinstance(dtype, pl.Struct) and dtype != frame.schema[name]:
            fields = [column.struct.field(f.name) for f in dtype.fields]
            column = pl.when(column.is_not_null()).then(pl.struct(fields)).alias(name)
        columns.append(column)
    return frame.select(columns)


def without_file_stats(frame: pl.DataFrame) -> pl.DataFrame:
    """A raw commit frame (``RAW_ACTION_SCHEMA``) as ``read_commits(..., with_stats=False)``
    returns it: the add and remove actions without ``stats`` and ``tags`` (another engine's
    parse, made to match)."""
    return _narrowed(frame, WITHOUT_STATS_SCHEMA)


def _read_plain(blobs: Sequence[Blob], schema: Schema) -> pl.DataFrame | None:
    """Join the files as they are; the version column comes from per-file line counts.

    Only when every non-empty file starts with ``{`` and so does every line after the first
    (no blank lines, BOM or stray text: one line is one row), and the parsed row count equals
    the line count. Otherwise ``None``, and the files go through ``inject_version`` as before.
    Saves the per-file strip/slice/replace copies (0.33 s -> ~0.1 s for 82 MB in 20k files).
    """
    parts: list[bytes] = []
    counts = np.zeros(len(blobs), dtype=np.int64)
    versions = np.empty(len(blobs), dtype=np.int64)
    for i, (version, _, data) in enumerate(blobs):
        versions[i] = version
        if not data:
            continue
        ends = data.endswith(b"\n")
        lines = data.count(b"\n") + (0 if ends else 1)
        if data[:1] != b"{" or data.count(b"\n{") != lines - 1:
            return None
        counts[i] = lines
        parts.append(data if ends else data + b"\n")
    total = int(counts.sum())
    if not total:
        return None
    try:
        raw = pl.read_ndjson(io.BytesIO(b"".join(parts)), schema=_without_version(schema))
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if raw.height != total:
        return None
    return raw.insert_column(0, pl.Series("_v", np.repeat(versions, counts)))


def read_commits(blobs: Sequence[Blob], *, with_stats: bool = True) -> pl.DataFrame:
    """Parse ``(version, name, bytes)`` commit files into a raw frame (``RAW_ACTION_SCHEMA``,
    or ``WITHOUT_STATS_SCHEMA`` without ``with_stats``)."""
    schema = RAW_ACTION_SCHEMA if with_stats else WITHOUT_STATS_SCHEMA
    joined = join_commits(blobs)
    return _chunk_frame(joined.blobs, _parse_clean(joined, schema), schema)


def read_commit_chunks(
    chunks: Iterable[JoinedCommits],
    every_file: Callable[[], Sequence[Blob]],
    *,
    with_stats: bool = True,
) -> tuple[CommitActions, list[Blob]]:
    """The actions of :func:`read_commits`' frame, over chunks that arrive one by one: each
    chunk is checked, parsed, finished (its odd files read exactly) and normalised on a worker
    thread (numpy and polars, the GIL released) while the caller's iterator reads the next.
    Also returns the files whose lines the assembly keeps verbatim (those with an action Delta
    does not define). A chunk's bytes and raw frame are let go once it is normalised: holding
    them to the end cost several times the log's size (issue #23). A chunk the fast path
    declines sends the whole log the general way, as one read of everything would (polars
    re-serialises some values differently by what else is in the buffer), with ``every_file``
    reading it again: only logs with BOMs, blank lines or stray text pay for that."""
    schema = RAW_ACTION_SCHEMA if with_stats else WITHOUT_STATS_SCHEMA
    parts: list[CommitActions] = []
    kept: list[Blob] = []
    fast_rows = 0

    def finish(blobs: Sequence[Blob], done: tuple[CommitActions, int] | None) -> bool:
        nonlocal fast_rows
        if done is None:
            return False
        part, parsed = done
        fast_rows += parsed
        unknown = set(part.unknown_versions)
        kept.extend(b for b in blobs if b[0] in unknown)
        parts.append(part)
        return True

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="commit-parse") as pool:
        pending: tuple[Sequence[Blob], Future[tuple[CommitActions, int] | None]] | None = None
        clean = True
        for chunk in chunks:
            ahead = (chunk.blobs, pool.submit(_chunk_actions, chunk, schema))
            del chunk  # the worker holds the joined buffer only while it parses it
            if pending is not None and not finish(pending[0], pending[1].result()):
                clean = False
                break
            pending = ahead
        if clean and pending is not None:
            clean = finish(pending[0], pending[1].result())
    if not clean or not fast_rows:
        del parts[:], kept[:]
        blobs = list(every_file())
        return CommitActions.from_raw(_read_in_general(blobs, schema)), blobs
    return CommitActions.joined(parts), kept


def _chunk_actions(joined: JoinedCommits, schema: Schema) -> tuple[CommitActions, int] | None:
    """One chunk's actions and the rows its fast path parsed; ``None`` when it declines."""
    parsed = _parse_clean(joined, schema)
    if parsed is None:
        return None
    raw = _patch_exact(parsed.raw, parsed.exact, joined.blobs, schema)
    return CommitActions.from_raw(raw), parsed.total


def _chunk_frame(blobs: Sequence[Blob], parsed: _Clean | None, schema: Schema) -> pl.DataFrame:
    """One chunk's frame as :func:`_read_in_general` gives it: its fast rows, then its files
    for the exact path read so; a chunk the fast path declined is read the general way."""
    if parsed is None or not parsed.total:
        return _read_in_general(blobs, schema)
    return _patch_exact(parsed.raw, parsed.exact, blobs, schema)


@dataclass(frozen=True, slots=True)
class JoinedCommits:
    """Commit files joined into one buffer as :func:`_read_plain` joins them: each non-empty
    file's bytes, plus a newline where one does not end with one. ``ends[i]`` is where file
    ``i``'s own bytes end, ``stops[i]`` where its part of the buffer ends."""

    blobs: Sequence[Blob]
    buffer: bytes
    lengths: npt.NDArray[np.int64]
    stops: npt.NDArray[np.int64]

    @property
    def starts(self) -> npt.NDArray[np.int64]:
        return self.stops - self.lengths - self.added

    @property
    def added(self) -> npt.NDArray[np.int64]:
        return self.stops - np.concatenate(([0], self.stops[:-1])) - self.lengths

    @property
    def ends(self) -> npt.NDArray[np.int64]:
        return self.starts + self.lengths


def join_commits(blobs: Sequence[Blob]) -> JoinedCommits:
    """One pass of cheap per-file work (no scanning of the bytes): the rest is numpy's."""
    parts: list[bytes] = []
    sizes = np.zeros(len(blobs), dtype=np.int64)
    lengths = np.zeros(len(blobs), dtype=np.int64)
    for i, (_, _, data) in enumerate(blobs):
        if not data:
            continue
        parts.append(data)
        lengths[i] = sizes[i] = len(data)
        if data[-1] != _NEWLINE:
            parts.append(b"\n")
            sizes[i] += 1
    return JoinedCommits(blobs, b"".join(parts), lengths, np.cumsum(sizes))


_NEWLINE, _OPEN_BRACE, _BACKSLASH = 10, 123, 92
_KEPT_ESCAPES = tuple(b'"/n')  # the escapes polars re-serialises intact
_SCAN_BLOCK = 1 << 24


@dataclass(frozen=True, slots=True)
class _Clean:
    """A chunk parsed as :func:`read_commits` would parse it on its fast path."""

    raw: pl.DataFrame
    exact: list[int]  # files (indices into the chunk) for the exact path
    total: int  # rows parsed


def _parse_clean(joined: JoinedCommits, schema: Schema = RAW_ACTION_SCHEMA) -> _Clean | None:
    """The fast path's checks, vectorised over the joined buffer, then one parse.

    ``None`` when anything would send :func:`read_commits` off its plain path (a file not
    starting with ``{``, a line not starting with ``{``, a parse error, a row count that is
    not the line count): the caller then reads every file the general way, which words errors.
    """
    data = np.frombuffer(joined.buffer, dtype=np.uint8)
    starts, ends, stops = joined.starts, joined.ends, joined.stops
    filled = joined.lengths > 0
    if np.any(data[starts[filled]] != _OPEN_BRACE):
        return None
    exact = _escaped_files(data, ends, stops)
    newlines = newline_positions(data)
    lines, broken = _lines(data, newlines, stops)
    # a key twice in one object: polars would keep the first value, so the exact path reads it
    exact |= files_with_possible_duplicate_keys(data, stops, newlines)
    fast = ~exact
    if np.any(broken & fast):
        return None
    total = int(lines[fast].sum())
    if not total:
        return _Clean(pl.DataFrame(schema=schema), np.flatnonzero(exact).tolist(), 0)
    buffer = joined.buffer if not exact.any() else _without(joined.buffer, starts, stops, exact)
    try:
        raw = pl.read_ndjson(io.BytesIO(buffer), schema=_without_version(schema))
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if raw.height != total:
        return None
    versions = np.fromiter((v for v, _, _ in joined.blobs), dtype=np.int64, count=len(fast))
    raw = raw.insert_column(0, pl.Series("_v", np.repeat(versions[fast], lines[fast])))
    return _Clean(raw, np.flatnonzero(exact).tolist(), total)


def _escaped_files(
    data: npt.NDArray[np.uint8], ends: npt.NDArray[np.int64], stops: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Files where ``ESCAPES_POLARS_MANGLES`` matches: a backslash followed, inside the same
    file, by a byte other than ``"``, ``/`` or ``n``. In blocks, to bound the temporaries."""
    found: list[npt.NDArray[np.int64]] = []
    for at in range(0, data.size, _SCAN_BLOCK):
        block = data[at : at + _SCAN_BLOCK + 1]
        where = np.flatnonzero(block[:-1] == _BACKSLASH)
        after = block[where + 1]
        keep = np.ones(where.size, dtype=np.bool_)
        for byte in _KEPT_ESCAPES:
            keep &= after != byte
        found.append(where[keep] + at)
    hits = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    files = np.searchsorted(stops, hits, side="right")
    out = np.zeros(stops.size, dtype=np.bool_)
    out[files[hits + 1 < ends[files]]] = True
    return out


def _lines(
    data: npt.NDArray[np.uint8], newlines: npt.NDArray[np.int64], stops: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Per file: its line count, and whether a line after the first does not start with ``{``
    (a newline that is not the file's last byte and is not followed by ``{``)."""
    files = np.searchsorted(stops, newlines, side="right")
    inner = newlines + 1 < stops[files]
    bad = files[inner][data[newlines[inner] + 1] != _OPEN_BRACE]
    broken = np.zeros(stops.size, dtype=np.bool_)
    broken[bad] = True
    return np.bincount(files, minlength=stops.size).astype(np.int64), broken


def _without(
    buffer: bytes,
    starts: npt.NDArray[np.int64],
    stops: npt.NDArray[np.int64],
    dropped: npt.NDArray[np.bool_],
) -> bytes:
    """The buffer without the parts of the dropped files (copied once, in runs)."""
    view = memoryview(buffer)
    pieces: list[memoryview] = []
    at = 0
    for i in np.flatnonzero(dropped).tolist():
        pieces.append(view[at : int(starts[i])])
        at = int(stops[i])
    pieces.append(view[at:])
    return b"".join(pieces)


def _read_in_general(blobs: Sequence[Blob], schema: Schema = RAW_ACTION_SCHEMA) -> pl.DataFrame:
    """Every case :func:`_parse_clean` declines: BOMs, blank lines, files not starting with a
    JSON object, parse errors. polars re-serialises an object read into a String column without
    escaping backslashes, tabs or control characters inside its string values (measured: only
    ``\\"``, ``\\/`` and ``\\n`` survive), so a file whose JSON holds any other escape (JSON text
    nested in a string, as delta-rs CREATE TABLE writes) is read by the exact path instead; and
    without escaping a quote inside an object key, which is caught in its output
    (:func:`_mangled_key_versions`).
    """
    if any(
        data[:1] != b"{" and (b := _body(data)) and not b.startswith(b"{") for _, _, data in blobs
    ):
        # names the file whose first line is not a JSON object
        return _narrowed(read_exactly(blobs), schema)
    escaped = {i for i, (_, _, data) in enumerate(blobs) if ESCAPES_POLARS_MANGLES.search(data)}
    exact = sorted(escaped | _files_repeating_a_key(blobs, escaped))
    exact_set = set(exact)  # once: `i not in set(exact)` per file was O(files x exact)
    fast = [blob for i, blob in enumerate(blobs) if i not in exact_set] if exact else list(blobs)
    plain = _read_plain(fast, schema)
    if plain is not None:
        raw = plain
    else:
        buffer = b"".join(inject_version(v, data) for v, _, data in fast)
        try:
            raw = parse_raw(buffer, schema)
        except (pl.exceptions.PolarsError, ValueError):
            return _narrowed(read_exactly(blobs), schema)
        if raw["_v"].null_count():
            return _narrowed(read_exactly(blobs), schema)
    return _patch_exact(raw, exact, blobs, schema)


def _files_repeating_a_key(blobs: Sequence[Blob], escaped: set[int]) -> set[int]:
    """Indices of the files (not already escaped) that may repeat a key in one object."""
    others = [i for i in range(len(blobs)) if i not in escaped]
    joined = join_commits([blobs[i] for i in others])
    data = np.frombuffer(joined.buffer, dtype=np.uint8)
    found = files_with_possible_duplicate_keys(data, joined.stops)
    return {others[i] for i in np.flatnonzero(found).tolist()}


def _patch_exact(
    raw: pl.DataFrame, exact: list[int], blobs: Sequence[Blob], schema: Schema = RAW_ACTION_SCHEMA
) -> pl.DataFrame:
    mangled = _mangled_key_versions(raw) | _coerced_versions(raw) | _misshapen_metadata(raw)
    if mangled:  # keys holding a quote, coerced values: those files take the exact path too
        raw = raw.filter(~pl.col("_v").is_in(sorted(mangled)))
        exact = sorted(set(exact) | {i for i, (v, _, _) in enumerate(blobs) if v in mangled})
    if not exact:
        return raw
    patched = pl.concat(
        [raw, _narrowed(read_exactly([blobs[i] for i in exact]), schema)], how="vertical"
    )
    return patched.sort("_v", maintain_order=True)


# In text polars re-serialised from a JSON object, every quote is structural (after `{ [ , :`
# or a space, before `: , } ]`) or escaped. A quote with other neighbours on both sides is one
# that polars failed to escape: it does so for quotes inside object *keys* (measured, 2.1).
# Nor does it escape a newline in a key (`{"\n": ""}` comes back with a raw line break, which
# valid JSON text never holds: in a value polars writes `\n`).
_UNESCAPED_IN_KEY = r'[^\\{\[:,\s]"[^:,}\]]|\n'
_OBJECT_TEXT = ("commitInfo", "metaData", "protocol", "checkpointMetadata")
_OBJECT_FIELDS = (("add", "partitionValues"), ("add", "tags"), ("remove", "partitionValues"))


def _mangled_key_versions(raw: pl.DataFrame) -> set[int]:
    """Versions whose objects polars re-serialised with an unescaped quote or newline in a key."""
    if raw.is_empty():
        return set()
    texts = [pl.col(c) for c in _OBJECT_TEXT if c in raw.columns]
    texts += [
        pl.col(a).struct.field(f)
        for a, f in _OBJECT_FIELDS
        if isinstance(kind := raw.schema.get(a), pl.Struct) and f in {x.name for x in kind.fields}
    ]
    hit = pl.any_horizontal(t.str.contains(_UNESCAPED_IN_KEY).fill_null(False) for t in texts)
    return set(raw.select(pl.col("_v").filter(hit))["_v"].unique().to_list())


def _misshapen_metadata(raw: pl.DataFrame) -> set[int]:
    """Versions whose metaData has a field of the wrong shape (``partitionColumns`` a string,
    ``configuration`` a list): the exact path names file, line and field. A log has a few
    metaData actions, each decoded here once."""
    if "metaData" not in raw.columns or raw.schema["metaData"] != pl.String:
        return set()
    found = set()
    for version, text in (
        raw.filter(pl.col("metaData").is_not_null()).select("_v", "metaData").iter_rows()
    ):
        try:
            doc = json.loads(text)
            if isinstance(doc, dict):
                check_metadata(doc)
        except ValueError:
            found.add(version)
    return found


def _coerced_versions(raw: pl.DataFrame) -> set[int]:
    """Versions where polars may have coerced a file action's field into a String column that
    the exact path would refuse: no path, a path or partition values read from a list or object
    text where a string or a flat object belongs, a path read from a number or a boolean (issue
    #32). A real path starting with ``[``, one that is all digits, or a partition value holding
    a bracket lands here too, and the exact path reads it unchanged."""
    hits: list[pl.Expr] = []
    for kind in ("add", "remove"):
        if kind not in raw.columns or raw.schema[kind] == pl.Null:
            continue
        action = pl.col(kind)
        path = action.struct.field("path")
        pv = action.struct.field("partitionValues")
        flat_object = pv.str.contains(r"^\{[^{\[]*$")  # a JSON object with no list or object inside
        hits.append(
            action.is_not_null()
            & (
                path.is_null()
                | path.str.contains(r"^([\[{]|-?[0-9][0-9.eE+-]*$|true$|false$)")
                | ~flat_object.fill_null(True)
            )
        )
    if not hits or raw.is_empty():
        return set()
    found = raw.select(pl.col("_v").filter(pl.any_horizontal(hits)))["_v"]
    return set(found.unique().to_list())
