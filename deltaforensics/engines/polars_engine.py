"""The default engine: concurrent fetch, one parse per chunk of commits, columnar normalising.

The frames come from :func:`deltaforensics.log.assembly.assemble`, as every engine's do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import polars as pl

from deltaforensics.log.assembly import assemble, checkpoint_files, segment_partition_columns
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch
from deltaforensics.log.checkpoints import DecodedCheckpoint, DeferredAdds, decode_checkpoint
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_lines import Blob
from deltaforensics.log.commit_reader import read_commit_chunks
from deltaforensics.log.file_stats import LogFileStats
from deltaforensics.log.joined_commits import JoinedCommits, join_commits
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore, read_chunks
from deltaforensics.model.deferred_files import DeferredFiles
from deltaforensics.model.schemas import ActionFrames


@dataclass(slots=True)
class PolarsEngine:
    store: LogStore
    # False: file statistics and tags are not read (nor parsed); the frames read the
    # statistics back for the rows asked for (log.file_stats)
    with_stats: bool = True
    chunk_files: int = 8192  # commit files read, then parsed while the next ones are read
    # True: the checkpoint adds no commit touches stay out of the frames' ``files``
    # (model.deferred_files); for analyses that ask little of them, such as a time window
    defer_untouched: bool = False
    # the newest checkpoint, already decoding while the log was listed (a time window)
    prefetched: CheckpointPrefetch | None = None

    def scan(self, segment: LogSegment) -> ActionFrames:
        """Reads the checkpoint on a second thread while this one fetches and parses the
        commits: both spend their time in pyarrow/polars with the GIL released."""
        deferred: DeferredAdds | None = None
        if segment.checkpoint is None:
            checkpoint, (commits, triples) = None, self._read_commits(segment)
        else:
            decoded, (commits, triples) = self._read_both(segment, segment.checkpoint)
            if self.defer_untouched:
                checkpoint, deferred = decoded.split(_touched_paths(commits))
            else:
                checkpoint = decoded.assembled()
        partition_columns = segment_partition_columns(checkpoint, commits)
        frames = assemble(segment, checkpoint, commits, partition_columns, triples)
        if deferred is not None:
            frames = replace(frames, deferred=self._deferred(segment, deferred, partition_columns))
        if self.with_stats:
            return frames
        return replace(frames, file_stats=LogFileStats(self.store, segment))

    def _deferred(
        self, segment: LogSegment, left_out: DeferredAdds, partition_columns: tuple[str, ...]
    ) -> DeferredFiles:
        store, files, with_stats = self.store, segment.checkpoint, self.with_stats
        assert files is not None

        def every_row() -> pl.DataFrame:
            raw = decode_checkpoint(store, files, with_stats=with_stats).assembled()
            return checkpoint_files(raw, partition_columns)

        return DeferredFiles(
            count=left_out.count, touched_paths=left_out.touched_paths, read_checkpoint=every_row
        )

    def _read_both(
        self, segment: LogSegment, files: CheckpointFiles
    ) -> tuple[DecodedCheckpoint, tuple[CommitActions, list[Blob]]]:
        """A checkpoint error wins over a commit error, as when the checkpoint was read first
        (the loader falls back to an older checkpoint only for an error naming one of its files)."""
        early = self.prefetched.take(files, with_stats=self.with_stats) if self.prefetched else None
        if early is not None:
            return early, self._read_commits(segment)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint") as pool:
            pending = pool.submit(
                decode_checkpoint,
                self.store,
                files,
                with_stats=self.with_stats,
                check_paths=self.defer_untouched,
            )
            try:
                commits = self._read_commits(segment)
            except BaseException:
                pending.result()
                raise
            return pending.result(), commits

    def _read_commits(self, segment: LogSegment) -> tuple[CommitActions, list[Blob]]:
        return read_commit_chunks(
            self._joined_chunks(segment.commits),
            lambda: self._every_file(segment.commits),
            with_stats=self.with_stats,
        )

    def _every_file(self, commits: Sequence[tuple[int, str]]) -> list[Blob]:
        got = self.store.read_many([name for _, name in commits])
        return [(v, name, got[name]) for v, name in commits]

    def _joined_chunks(self, commits: Sequence[tuple[int, str]]) -> Iterator[JoinedCommits]:
        """Read and joined here, on the calling thread: the worker that parses them then
        holds the GIL only briefly, so the two threads do not take turns at it per file."""
        names = [name for _, name in commits]
        starts = range(0, len(names), self.chunk_files)
        for start, got in zip(
            starts, read_chunks(self.store, names, self.chunk_files), strict=True
        ):
            part = commits[start : start + self.chunk_files]
            yield join_commits([(v, name, got[name]) for v, name in part])


def _touched_paths(commits: CommitActions) -> pl.Series:
    """Every path the commits add or remove."""
    frames = [f.get_column("path") for f in (*commits.adds, *commits.removes)]
    return pl.concat(frames) if frames else pl.Series("path", [], dtype=pl.String)
