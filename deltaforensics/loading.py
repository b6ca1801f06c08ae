"""Reading the log into a replayed history (the one place storage meets the replay).

:func:`load` reads the segment for a range of versions (one a selection resolved to, in
:mod:`deltaforensics.log.selection`), falling back to an older checkpoint when one is
unreadable; :func:`load_commits` reads the commit-level facts ``history`` shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl

from deltaforensics.engines.base import Engine
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import (
    DeltaForensicsError,
    LogCorruptError,
    VersionNotFoundError,
)
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch
from deltaforensics.log.commit_names import commits_between
from deltaforensics.log.file_facts import fetch_facts
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.segment import LogSegment, diagnose_listing
from deltaforensics.log.selection import FILE_STATS_BUDGET, WINDOW_LOOKBACK
from deltaforensics.log.storage import LogStore
from deltaforensics.model.diagnostic_codes import CHECKPOINT_FALLBACK, EMPTY_COMMIT
from deltaforensics.model.diagnostics import Diagnostic, warning
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.model.version_range import VersionRange
from deltaforensics.replay import Replay, content_diagnostics, unreadable_times


def open_store(uri: str, storage_options: Mapping[str, str] | None = None) -> LogStore:
    return FsspecLogStore.from_uri(uri, storage_options)


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
    VersionRange(from_version, to_version)  # a reversed range is refused, not read as empty
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
    found += unreadable_times(replay.commits)
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
