"""The newest checkpoint decoded while the log is listed, for a time window at a table's end.

Naming the files of a ``_delta_log`` of 1,000,000 commits takes about a second of one core;
decoding a checkpoint of 4,000,000 live files about three seconds of pyarrow (issue #23). A
window that reaches the end of the table (``--since`` without ``--until``) replays from the
newest checkpoint whenever the window starts past that checkpoint's lookback, so its decoding
can start before the listing: :func:`prefetch_checkpoint` starts it when ``_last_checkpoint``
names a checkpoint large enough to be read without file statistics and the commit a lookback
after it is older than the window. The engine takes the decoded checkpoint when the segment
it reads starts from those same files (:meth:`CheckpointPrefetch.take`); otherwise it is let
go unread. Only that one choice is made early: which files the segment reads is the
listing's, as for every analysis.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.checkpoints import DecodedCheckpoint, decode_checkpoint
from deltaforensics.log.commit_times import read_stamp
from deltaforensics.log.listing import CheckpointFiles, read_last_checkpoint
from deltaforensics.log.storage import LogStore, SupportsFileFacts


@dataclass(slots=True)
class CheckpointPrefetch:
    """A checkpoint being decoded without file statistics, on a thread of its own."""

    files: CheckpointFiles
    _pending: Future[DecodedCheckpoint] | None = field(default=None, repr=False)

    def take(self, files: CheckpointFiles, *, with_stats: bool) -> DecodedCheckpoint | None:
        """The decoded checkpoint if it is ``files`` read as asked (its decoding error, if
        any, raised as reading it now would), else ``None``; let go either way."""
        pending, self._pending = self._pending, None
        if pending is None or with_stats or files.names != self.files.names:
            return None
        return pending.result()


def prefetch_checkpoint(
    store: LogStore, *, since_ms: int, lookback: int, without_stats_from: int
) -> CheckpointPrefetch | None:
    """Start decoding the checkpoint ``_last_checkpoint`` names, when a window from
    ``since_ms`` to the end is bound to read it (the commit ``lookback`` versions after it is
    older) and its files hold at least ``without_stats_from`` bytes (so it is read without
    file statistics); ``None`` when either is not known to hold."""
    hint = read_last_checkpoint(store)  # an unreadable hint says so; the listing reports it
    if hint.version is None:
        return None
    files = _named_files(hint.version, hint.parts)
    if not _at_least(store, files, hint.size_in_bytes, without_stats_from):
        return None
    if not _older_than(store, hint.version + 1 + lookback, since_ms):
        return None
    pending: Future[DecodedCheckpoint] = Future()

    def decode() -> None:
        try:
            pending.set_result(decode_checkpoint(store, files, with_stats=False, check_paths=True))
        except BaseException as exc:  # handed to whoever takes it, raised there
            pending.set_exception(exc)

    # a daemon: a command that fails before taking the checkpoint does not wait for it
    threading.Thread(target=decode, name="checkpoint-prefetch", daemon=True).start()
    return CheckpointPrefetch(files=files, _pending=pending)


def _named_files(version: int, parts: int | None) -> CheckpointFiles:
    """A classic checkpoint's file, or a multi-part one's, as Delta names them."""
    if parts is None or parts <= 1:
        name = f"{version:020d}.checkpoint.parquet"
        return CheckpointFiles(version=version, kind="classic", names=(name,))
    names = tuple(
        f"{version:020d}.checkpoint.{i:010d}.{parts:010d}.parquet" for i in range(1, parts + 1)
    )
    return CheckpointFiles(version=version, kind="multi-part", names=names, expected_parts=parts)


def _at_least(store: LogStore, files: CheckpointFiles, said: int | None, threshold: int) -> bool:
    if said is not None:
        return said >= threshold
    if not isinstance(store, SupportsFileFacts):
        return False
    found = store.file_facts(list(files.names))
    return len(found) == len(files.names) and sum(f.size or 0 for f in found.values()) >= threshold


def _older_than(store: LogStore, version: int, since_ms: int) -> bool:
    """Whether commit ``version`` is there and was committed before ``since_ms`` (its
    in-commit or commitInfo time: a guess at the window's start, never its choice)."""
    try:
        stamp = read_stamp(store.read(f"{version:020d}.json"))
    except (DeltaForensicsError, OSError):  # not there (yet): no prefetch
        return False
    at = stamp.in_commit_timestamp or stamp.commit_info_timestamp
    return at is not None and at < since_ms
