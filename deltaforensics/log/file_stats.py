"""File statistics read back from the log for the rows asked for (issue #23).

A large history is loaded without the file actions' ``stats`` texts (two thirds of a log's
bytes, 1.9 GB of frames at 1,000,000 commits) and :class:`LogFileStats` reads them again,
through the same :class:`LogStore` and the same readers the load used, when a conflict rule,
an attempted statement or a what-if asks:

- a commit row is found in its commit file, re-read with :func:`read_commits` and normalised
  with :func:`file_actions` as the load did. Within a commit, rows are matched by (action,
  path, deletion-vector id) and, for an action repeated in one commit, by their order there:
  both reads keep a file's lines in order, so the n-th such row of one is the n-th of the
  other. A commit file that no longer gives the rows the load read is named, not guessed at.
- a checkpoint row is found in the checkpoint, read again with :func:`read_checkpoint`; its
  rows come back in the same places (``seq`` is the row's place in its part: the statistics
  change the columns read, not the rows), so (action, path, deletion-vector id, ``seq``)
  finds it. Only one file key repeated at the same place of two parts of one checkpoint,
  which no writer makes, would be ambiguous; the later part's statistics are then given.

What was read is kept: each commit is read once, the checkpoint at most once.
"""

from __future__ import annotations

import threading
from typing import Any

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.checkpoints import read_checkpoint
from deltaforensics.log.commit_reader import read_commits
from deltaforensics.log.normalize import PartitionValuesAs, file_actions
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore

_IN_COMMIT = ("version", "action", "path", "dv_id")  # a row's key within its commit
_IN_CHECKPOINT = ("action", "path", "dv_id", "seq")
# Commit files read and parsed at a time: a what-if that asks for every statistic of a long
# history holds one chunk's bytes and raw frame at once, not the whole log's.
CHUNK_COMMITS = 8192
_FOUND = {"version": pl.Int64, "seq": pl.Int64, "stats": pl.String}


class LogFileStats:
    """A :class:`~deltaforensics.model.file_stats_source.FileStatsSource` over one segment's files.

    Thread-safe (a what-if reads statistics on a second thread); pickled as its store and
    segment only, without what it has read (a Spark task returns the frames it scanned)."""

    def __init__(self, store: LogStore, segment: LogSegment) -> None:
        self.store, self.segment = store, segment
        self._lock = threading.Lock()
        self._read: set[int] = set()
        self._commits = pl.DataFrame(schema=_FOUND)
        self._checkpoint: pl.DataFrame | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (LogFileStats, (self.store, self.segment))

    def stats_of(self, files: pl.DataFrame, rows: pl.DataFrame) -> pl.Series:
        keyed = rows.select("source", "version", "seq", "action", "path", "dv_id").with_row_index(
            "_row"
        )
        in_commits = keyed.filter(pl.col("source") == "commit")
        in_checkpoint = keyed.filter(pl.col("source") == "checkpoint")
        found: list[pl.DataFrame] = []
        with self._lock:
            if in_commits.height:
                found.append(self._from_commits(files, in_commits))
            if in_checkpoint.height:
                found.append(self._from_checkpoint(in_checkpoint))
        stats = pl.Series("stats", [None] * rows.height, dtype=pl.String)
        for part in found:
            stats = stats.scatter(part["_row"], part["stats"])
        return stats

    def _from_commits(self, files: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
        versions = sorted(set(rows["version"].unique().to_list()) - self._read)
        for start in range(0, len(versions), CHUNK_COMMITS):
            self._read_commits(files, versions[start : start + CHUNK_COMMITS])
        return rows.select("_row", "version", "seq").join(
            self._commits, on=["version", "seq"], how="left", maintain_order="left"
        )

    def _read_commits(self, files: pl.DataFrame, versions: list[int]) -> None:
        names = dict(self.segment.commits)
        got = self.store.read_many([names[v] for v in versions])
        raw = read_commits([(v, names[v], got[names[v]]) for v in versions])
        again = _ranked(
            file_actions(raw, source="commit", partition_columns=(), version=pl.col("_v"))
        )
        loaded = _ranked(
            files.filter((pl.col("source") == "commit") & pl.col("version").is_in(versions))
        )
        matched = loaded.select(*_IN_COMMIT, "_nth", "seq").join(
            again.select(*_IN_COMMIT, "_nth", "stats"),
            on=[*_IN_COMMIT, "_nth"],
            how="inner",
            nulls_equal=True,
        )
        if matched.height != loaded.height or again.height != loaded.height:
            changed = _first_changed(loaded, again, versions)
            raise LogCorruptError(
                names[changed], "the commit file changed while it was being read", changed
            )
        self._commits = pl.concat([self._commits, matched.select(list(_FOUND))], how="vertical")
        self._read.update(versions)

    def _from_checkpoint(self, rows: pl.DataFrame) -> pl.DataFrame:
        if self._checkpoint is None:
            self._checkpoint = self._read_checkpoint()
        return rows.select("_row", *_IN_CHECKPOINT).join(
            self._checkpoint,
            on=list(_IN_CHECKPOINT),
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )

    def _read_checkpoint(self) -> pl.DataFrame:
        """Every statistic the checkpoint holds, by (action, path, dv_id, seq)."""
        cp = self.segment.checkpoint
        if cp is None:
            return pl.DataFrame(
                schema={
                    "action": pl.String,
                    "path": pl.String,
                    "dv_id": pl.String,
                    "seq": pl.Int64,
                    "stats": pl.String,
                }
            )
        raw = read_checkpoint(self.store, cp, with_stats=True)
        version = pl.lit(cp.version, dtype=pl.Int64)
        shaped: list[tuple[pl.DataFrame, PartitionValuesAs]] = [
            *((f, "json") for f in raw.json_frames),
            *((f, "map") for f in raw.parquet_frames),
        ]
        parts = [
            file_actions(
                frame,
                source="checkpoint",
                partition_columns=(),
                version=version,
                partition_values=kind,
            ).select(*_IN_CHECKPOINT, "stats")
            for frame, kind in shaped
        ]
        return pl.concat(parts, how="vertical").filter(pl.col("stats").is_not_null())


def _ranked(rows: pl.DataFrame) -> pl.DataFrame:
    """Each row's place (``_nth``) among the rows of its commit with its key, in line order."""
    return rows.sort("version", "seq").with_columns(
        pl.int_range(pl.len()).over(list(_IN_COMMIT)).alias("_nth")
    )


def _first_changed(loaded: pl.DataFrame, again: pl.DataFrame, versions: list[int]) -> int:
    """The first version whose file actions the two reads disagree on."""
    for v in versions:
        a = loaded.filter(pl.col("version") == v).select(*_IN_COMMIT, "_nth")
        b = again.filter(pl.col("version") == v).select(*_IN_COMMIT, "_nth")
        if a.height != b.height or a.join(b, on=a.columns, how="anti", nulls_equal=True).height:
            return v
    return versions[0]
