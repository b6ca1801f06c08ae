"""The default engine: concurrent fetch, one parse per chunk of commits, columnar normalising.

The frames come from :func:`deltaforensics.log.assembly.assemble`, as every engine's do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from deltaforensics.log.assembly import RawCheckpoint, assemble, segment_partition_columns
from deltaforensics.log.checkpoints import read_checkpoint
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_lines import Blob
from deltaforensics.log.commits import JoinedCommits, join_commits, read_commit_chunks
from deltaforensics.log.file_stats import LogFileStats
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore, read_chunks
from deltaforensics.model.schemas import ActionFrames


@dataclass(slots=True)
class PolarsEngine:
    store: LogStore
    # False: file statistics and tags are not read (nor parsed); the frames read the
    # statistics back for the rows asked for (log.file_stats)
    with_stats: bool = True
    chunk_files: int = 8192  # commit files read, then parsed while the next ones are read

    def scan(self, segment: LogSegment) -> ActionFrames:
        """Reads the checkpoint on a second thread while this one fetches and parses the
        commits: both spend their time in pyarrow/polars with the GIL released."""
        if segment.checkpoint is None:
            checkpoint, (commits, triples) = None, self._read_commits(segment)
        else:
            checkpoint, (commits, triples) = self._read_both(segment, segment.checkpoint)
        partition_columns = segment_partition_columns(checkpoint, commits)
        frames = assemble(segment, checkpoint, commits, partition_columns, triples)
        if self.with_stats:
            return frames
        return replace(frames, file_stats=LogFileStats(self.store, segment))

    def _read_both(
        self, segment: LogSegment, files: CheckpointFiles
    ) -> tuple[RawCheckpoint, tuple[CommitActions, list[Blob]]]:
        """A checkpoint error wins over a commit error, as when the checkpoint was read first
        (the loader falls back to an older checkpoint only for an error naming one of its files)."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint") as pool:
            pending = pool.submit(read_checkpoint, self.store, files, with_stats=self.with_stats)
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
