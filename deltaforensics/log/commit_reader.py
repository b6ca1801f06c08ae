"""Commit NDJSON bytes -> one raw action frame, parsed once with an explicit schema: the
readers of commit files every engine uses (:func:`read_commits`, :func:`read_commit_chunks`).

Fast path: every file's lines get ``"_v":<version>`` injected (a C-speed ``bytes.replace`` per
file, no per-line Python), the files are joined, and polars parses the buffer once. Blank lines
are harmless because every row carries its own version. Anything odd — a parse error, a line
that did not receive its version — sends the affected files through the exact per-line path
of :mod:`deltaforensics.log.commit_lines`, which either recovers or names the file, line and
problem. The fast path's checks are :mod:`.joined_commits`, the general way and the exact
path's patching :mod:`.commit_fallback`, the schemas :mod:`.commit_schemas`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import polars as pl

from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_fallback import patch_exact, read_in_general
from deltaforensics.log.commit_lines import Blob
from deltaforensics.log.commit_schemas import WITHOUT_STATS_SCHEMA, Schema
from deltaforensics.log.joined_commits import CleanChunk, JoinedCommits, join_commits, parse_clean
from deltaforensics.model.schemas import RAW_ACTION_SCHEMA


def read_commits(blobs: Sequence[Blob], *, with_stats: bool = True) -> pl.DataFrame:
    """Parse ``(version, name, bytes)`` commit files into a raw frame (``RAW_ACTION_SCHEMA``,
    or ``WITHOUT_STATS_SCHEMA`` without ``with_stats``)."""
    schema = RAW_ACTION_SCHEMA if with_stats else WITHOUT_STATS_SCHEMA
    joined = join_commits(blobs)
    return _chunk_frame(joined.blobs, parse_clean(joined, schema), schema)


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
        return CommitActions.from_raw(read_in_general(blobs, schema)), blobs
    return CommitActions.joined(parts), kept


def _chunk_actions(joined: JoinedCommits, schema: Schema) -> tuple[CommitActions, int] | None:
    """One chunk's actions and the rows its fast path parsed; ``None`` when it declines."""
    parsed = parse_clean(joined, schema)
    if parsed is None:
        return None
    raw = patch_exact(parsed.raw, parsed.exact, joined.blobs, schema)
    return CommitActions.from_raw(raw), parsed.total


def _chunk_frame(blobs: Sequence[Blob], parsed: CleanChunk | None, schema: Schema) -> pl.DataFrame:
    """One chunk's frame as :func:`read_in_general` gives it: its fast rows, then its files
    for the exact path read so; a chunk the fast path declined is read the general way."""
    if parsed is None or not parsed.total:
        return read_in_general(blobs, schema)
    return patch_exact(parsed.raw, parsed.exact, blobs, schema)
