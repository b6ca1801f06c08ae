"""Commit files joined into one buffer, checked with numpy and parsed by polars at once: the
fast path of :mod:`deltaforensics.log.commit_reader`.

The checks run over the whole buffer, never per line in Python: every file and every line
starts with ``{``, which files hold an escape polars would mangle or may repeat a key (those
go the exact way, :mod:`deltaforensics.log.commit_fallback`), and the parsed rows equal the
lines. A chunk that fails a check is declined (``None``) and read the general way.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from deltaforensics.log.commit_lines import Blob
from deltaforensics.log.commit_schemas import Schema, without_version
from deltaforensics.log.duplicate_keys import (
    files_with_possible_duplicate_keys,
    newline_positions,
)
from deltaforensics.model.schemas import RAW_ACTION_SCHEMA

_NEWLINE, _OPEN_BRACE, _BACKSLASH = 10, 123, 92

_KEPT_ESCAPES = tuple(b'"/n')  # the escapes polars re-serialises intact

_SCAN_BLOCK = 1 << 24


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


@dataclass(frozen=True, slots=True)
class CleanChunk:
    """A chunk parsed as :func:`read_commits` would parse it on its fast path."""

    raw: pl.DataFrame
    exact: list[int]  # files (indices into the chunk) for the exact path
    total: int  # rows parsed


def parse_clean(joined: JoinedCommits, schema: Schema = RAW_ACTION_SCHEMA) -> CleanChunk | None:
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
    exact = escaped_files(data, ends, stops)
    newlines = newline_positions(data)
    lines, broken = _lines(data, newlines, stops)
    # a key twice in one object: polars would keep the first value, so the exact path reads it
    exact |= files_with_possible_duplicate_keys(data, stops, newlines)
    fast = ~exact
    if np.any(broken & fast):
        return None
    total = int(lines[fast].sum())
    if not total:
        return CleanChunk(pl.DataFrame(schema=schema), np.flatnonzero(exact).tolist(), 0)
    buffer = joined.buffer if not exact.any() else _without(joined.buffer, starts, stops, exact)
    try:
        raw = pl.read_ndjson(io.BytesIO(buffer), schema=without_version(schema))
    except (pl.exceptions.PolarsError, ValueError):
        return None
    if raw.height != total:
        return None
    versions = np.fromiter((v for v, _, _ in joined.blobs), dtype=np.int64, count=len(fast))
    raw = raw.insert_column(0, pl.Series("_v", np.repeat(versions[fast], lines[fast])))
    return CleanChunk(raw, np.flatnonzero(exact).tolist(), total)


def escaped_files(
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
