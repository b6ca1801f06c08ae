"""Reading the log into a replayed history: a command's selection resolved to versions, the
segment for them loaded (the one place storage meets the replay).

:func:`resolve_range` turns a selection (:mod:`deltaforensics.log.selection`) into the versions
to read: version numbers as given, a time window placed on one listing of the log (with the
newest checkpoint decoding meanwhile when the window reaches the end), or the window around the
times the ``--error`` texts were logged. :func:`load` then reads the segment for that range,
falling back to an older checkpoint when one is unreadable; :func:`load_commits` reads the
commit-level facts ``history`` shows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from deltaforensics.engines.base import Engine
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import (
    DeltaForensicsError,
    LogCorruptError,
    TimeWindowError,
    UsageError,
    VersionNotFoundError,
)
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch, prefetch_checkpoint
from deltaforensics.log.commit_names import commits_between
from deltaforensics.log.file_facts import fetch_facts
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.segment import LogSegment, diagnose_listing
from deltaforensics.log.selection import (
    AsOf,
    Between,
    ResolvedRange,
    Selection,
    Versions,
    parse_moment,
    placed_window,
)
from deltaforensics.log.storage import FsspecLogStore, LogStore
from deltaforensics.model.diagnostic_codes import CHECKPOINT_FALLBACK, EMPTY_COMMIT
from deltaforensics.model.diagnostics import Diagnostic, warning
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.replay import Replay, content_diagnostics


def open_store(uri: str, storage_options: Mapping[str, str] | None = None) -> LogStore:
    return FsspecLogStore.from_uri(uri, storage_options)


# A time window's analysis starts from a checkpoint at least this many commits before the
# window: a transaction in it that read an older version has winners before that (a W302
# diagnostic names them), which on a busy table means a job that ran through 250 commits.
WINDOW_LOOKBACK = 250


# A history whose segment (commit files and checkpoint) is smaller than this many bytes is
# loaded with its files' statistics; a larger one without them, and they are read back from
# the log for the rows a rule, an attempt or a what-if asks about (log/file_stats.py). The
# statistics are two thirds of a log's bytes: on benchmarks/' synthetic logs (docs/
# performance.md, issue #23, session 10) the 100,000-commit log (416 MB) holds 192 MB of them
# in its frames and `explain` peaks 185-358 MB higher with them, a 10,000-commit window over a
# 72 MB checkpoint ~250 MB higher, while the 10,000-commit log (42 MB) costs the same either
# way. 64 MB keeps that log, every corpus table and the samples holding them (a what-if layout
# estimate reads every add's statistics, so small race-heavy logs keep their speed) and puts
# the window and the 100,000-commit log above it.
FILE_STATS_BUDGET = 64 * 2**20


def holds_file_stats(listing: LogListing, segment: LogSegment) -> bool:
    """Whether ``segment`` is small enough to load with its files' statistics
    (:data:`FILE_STATS_BUDGET`); a size the listing does not know counts as nothing.

    Summed a slice at a time, and no further than the budget: a local listing reads a
    file's size when asked (:mod:`deltaforensics.log.file_facts`), and asking for all of a
    1,000,000-commit log's would cost the ~10 s its listing saved."""
    names = list(segment.checkpoint.names) if segment.checkpoint is not None else []
    names += [name for _, name in segment.commits]
    total = 0
    for start in range(0, len(names), _SIZES_AT_ONCE):
        part = names[start : start + _SIZES_AT_ONCE]
        fetch_facts(listing.sizes, part)
        total += sum(listing.sizes.get(n) or 0 for n in part)
        if total >= FILE_STATS_BUDGET:
            return False
    return True


_SIZES_AT_ONCE = 4096


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedLog:
    listing: LogListing
    segment: LogSegment
    replay: Replay
    diagnostics: tuple[Diagnostic, ...] = field(default=())


def load(
    store: LogStore,
    *,
    version: int | None = None,
    mode: str = "history",
    engine: Engine | None = None,
    listing: LogListing | None = None,
    window_from: int | None = None,
    prefetched: CheckpointPrefetch | None = None,
) -> LoadedLog:
    """Read the segment for ``version``; an unreadable checkpoint falls back to an older base.

    ``mode="history"`` replays the longest retained chain (for races and lifecycles), or with
    ``window_from`` (a time window's first version) only from a checkpoint shortly before it;
    ``mode="snapshot"`` the cheapest one (newest checkpoint at or below ``version``).
    ``prefetched``: a checkpoint already decoding (:mod:`deltaforensics.log.checkpoint_prefetch`),
    taken by the default engine if the segment starts from it.
    """
    listing = listing or list_log(store)
    exclude: frozenset[tuple[str, ...]] = frozenset()
    extra: list[Diagnostic] = []
    while True:
        build = LogSegment.for_history if mode == "history" else LogSegment.for_version
        try:
            if mode == "history" and window_from is not None:
                segment = LogSegment.for_window(
                    listing, window_from, version, lookback=WINDOW_LOOKBACK, exclude=exclude
                )
            else:
                segment = build(listing, version, exclude=exclude)
        except VersionNotFoundError as err:
            if exclude:
                err.add_note(
                    f"unreadable checkpoint(s): {', '.join(n[0] for n in sorted(exclude))}"
                )
            raise
        # the analysis asks little of the checkpoint files no commit touches: their count,
        # and all of them only for a snapshot, a layout estimate or an overwrite's survivors
        reader = engine or PolarsEngine(
            store,
            with_stats=holds_file_stats(listing, segment),
            defer_untouched=True,
            prefetched=prefetched,
        )
        try:
            frames = reader.scan(segment)
        except LogCorruptError as err:
            cp = segment.checkpoint
            if cp is None or not _concerns(err, cp.names):
                raise
            exclude = exclude | {cp.names}
            extra.append(warning(CHECKPOINT_FALLBACK, f"{err}", cp.version))
            continue
        rep = Replay(store.uri, frames)
        return LoadedLog(
            listing=listing,
            segment=segment,
            replay=rep,
            diagnostics=segment.diagnostics + tuple(extra) + tuple(content_diagnostics(rep)),
        )


def load_commits(
    store: LogStore,
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    listing: LogListing | None = None,
    engine: Engine | None = None,
) -> tuple[LogListing, pl.DataFrame, tuple[Diagnostic, ...]]:
    """Commit-level facts for every retained commit in range; needs no checkpoint.

    ``engine`` reads the commits (as a segment without a checkpoint); by default the polars
    engine, without the files' statistics.
    """
    listing = listing or list_log(store)
    latest = listing.latest_version
    lo = 0 if from_version is None else from_version
    hi = latest if to_version is None else to_version
    if to_version is not None and to_version > latest:
        raise VersionNotFoundError(store.uri, to_version, f"the latest version is {latest}")
    wanted = commits_between(listing.commits, lo, hi)
    segment = LogSegment(
        uri=store.uri, end_version=hi, base_version=-1, checkpoint=None, commits=tuple(wanted)
    )
    # the commit table counts and sizes files: their statistics are never read, and the
    # default engine reads the commits in chunks, letting each chunk's bytes go once parsed
    frames = (engine or PolarsEngine(store, with_stats=False)).scan(segment)
    empty = _blank_commits(store, frames, dict(wanted))
    replay = Replay(store.uri, frames)
    found = diagnose_listing(listing, hi, None, frozenset()) + content_diagnostics(replay)
    if empty:
        found.append(
            warning(EMPTY_COMMIT, f"empty commit file(s) at version(s) {empty[:10]}", empty[0])
        )
    return listing, replay.commits, tuple(found)


def _blank_commits(store: LogStore, frames: ActionFrames, names: dict[int, str]) -> list[int]:
    """Versions whose commit file is empty or blank, judged as the default path judges them.

    Only commits that gave no action at all can be blank; their bytes are checked when the
    store can read them (it may not: some logs are reachable only through Spark).
    """
    candidates = _versions_without_actions(frames)
    if not candidates:
        return []
    try:
        blobs = store.read_many([names[v] for v in candidates])
    except DeltaForensicsError:
        return candidates
    return [v for v in candidates if not blobs[names[v]].strip()]


def _versions_without_actions(frames: ActionFrames) -> list[int]:
    """Commits that gave no row in any frame (no line, known or not)."""
    parts = (
        frames.files.filter(pl.col("source") == "commit"),
        frames.commit_infos,
        frames.metadata,
        frames.protocols,
        frames.txns,
        frames.domains,
        frames.cdc,
        frames.unknown,
    )
    seen: set[int] = set()
    for part in parts:
        seen.update(part["version"].unique().to_list())
    return [v for v in frames.commit_versions if v not in seen]


def _concerns(err: LogCorruptError, names: tuple[str, ...]) -> bool:
    """Was the failure in this checkpoint (or one of its sidecars)?"""
    return err.path.startswith("_sidecars/") or any(n in err.path for n in names)


# An --error text without a version: the failed transaction's winners committed before the
# failure was logged, usually within the job's run; a day before covers long jobs, and a few
# minutes after covers a log line written before the commit it reports landed (clock skew).
ERROR_LOOKBACK_MS = 24 * 3_600_000
ERROR_LOOKAHEAD_MS = 15 * 60_000


def resolve_range(
    store: LogStore,
    selection: Selection,
    *,
    error_times: Sequence[int] = (),
    now_ms: int | None = None,
) -> ResolvedRange:
    """The versions ``selection`` names in ``store``'s log.

    ``error_times``: when the ``--error`` texts were logged (:class:`AroundErrors` reads the
    window around them; none, or a text naming its winner's version, reads the whole log)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if isinstance(selection, Versions):
        return ResolvedRange(from_version=selection.from_version, to_version=selection.to_version)
    if isinstance(selection, AsOf):
        if selection.at is None:
            return ResolvedRange(to_version=selection.version)
        return placed_window(store, None, parse_moment(selection.at, "--at", now))
    if isinstance(selection, Between):
        return _between(store, selection, now)
    return _around(store, error_times)  # AroundErrors


def _between(store: LogStore, selection: Between, now: int) -> ResolvedRange:
    since = None if selection.since is None else parse_moment(selection.since, "--since", now)
    until = None if selection.until is None else parse_moment(selection.until, "--until", now)
    if since is not None and until is not None and since > until:
        raise UsageError("--since must not be later than --until")
    # a window to the table's end is bound to start from its newest checkpoint: decoding it
    # starts while the log is listed (log/checkpoint_prefetch.py)
    prefetched = (
        prefetch_checkpoint(
            store, since_ms=since, lookback=WINDOW_LOOKBACK, without_stats_from=FILE_STATS_BUDGET
        )
        if since is not None and until is None
        else None
    )
    return placed_window(store, since, until, prefetched=prefetched)


def _around(store: LogStore, times: Sequence[int]) -> ResolvedRange:
    """The window around the times the ``--error`` texts were logged."""
    if not times:
        return ResolvedRange()
    try:
        window = placed_window(
            store,
            min(times) - ERROR_LOOKBACK_MS,
            max(times) + ERROR_LOOKAHEAD_MS,
            narrowed_by="the --error text",
        )
    except TimeWindowError:  # no commit near the error's time: read the whole log as before
        return ResolvedRange()
    return window
