"""The default engine: concurrent fetch, one parse of one joined buffer, columnar normalising."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import polars as pl

from deltaforensics.log.checkpoints import RawCheckpoint, read_checkpoint
from deltaforensics.log.commits import (
    Blob,
    JoinedCommits,
    join_commits,
    read_commit_chunks,
    unknown_action_lines,
)
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.normalize import file_actions, side_actions
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore, read_chunks
from deltaforensics.model.actions import Metadata
from deltaforensics.model.schemas import (
    KNOWN_ACTIONS,
    METADATA_SCHEMA,
    PROTOCOL_SCHEMA,
    UNKNOWN_SCHEMA,
    ActionFrames,
)


@dataclass(slots=True)
class PolarsEngine:
    store: LogStore
    with_stats: bool = True
    chunk_files: int = 8192  # commit files read, then parsed while the next ones are read

    def scan(self, segment: LogSegment) -> ActionFrames:
        """Reads the checkpoint on a second thread while this one fetches and parses the
        commits: both spend their time in pyarrow/polars with the GIL released."""
        if segment.checkpoint is None:
            checkpoint, (raw, triples) = None, self._read_commits(segment)
        else:
            checkpoint, (raw, triples) = self._read_both(segment, segment.checkpoint)
        metadata_texts = (
            list(checkpoint.metadata if checkpoint else ()) + raw["metaData"].drop_nulls().to_list()
        )
        partition_columns = physical_partition_columns(metadata_texts)
        return assemble(segment, checkpoint, raw, partition_columns, triples)

    def _read_both(
        self, segment: LogSegment, files: CheckpointFiles
    ) -> tuple[RawCheckpoint, tuple[pl.DataFrame, list[Blob]]]:
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

    def _read_commits(self, segment: LogSegment) -> tuple[pl.DataFrame, list[Blob]]:
        return read_commit_chunks(self._joined_chunks(segment.commits))

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


def physical_partition_columns(metadata_texts: list[str]) -> tuple[str, ...]:
    """Union, in first-seen order, of every metaData's physical partition column names."""
    seen: dict[str, None] = {}
    for text in metadata_texts:
        try:
            md = Metadata.from_json(text)
        except ValueError:
            continue
        for c in md.physical_partition_columns:
            seen.setdefault(c, None)
    return tuple(seen)


def assemble(
    segment: LogSegment,
    checkpoint: RawCheckpoint | None,
    raw: pl.DataFrame,
    partition_columns: tuple[str, ...],
    triples: list[tuple[int, str, bytes]],
) -> ActionFrames:
    """Shared by every engine that can hand over RAW_ACTION_SCHEMA frames."""
    files = []
    metadata = []
    protocols = []
    side_frames: dict[str, list[pl.DataFrame]] = {"txns": [], "domains": [], "cdc": []}
    if checkpoint is not None:
        cp_version = pl.lit(checkpoint.version, dtype=pl.Int64)
        for frame in checkpoint.json_frames:
            files.append(
                file_actions(
                    frame,
                    source="checkpoint",
                    partition_columns=partition_columns,
                    version=cp_version,
                )
            )
            side = side_actions(frame, cp_version)
            side_frames["txns"].append(side["txns"])
            side_frames["domains"].append(side["domains"])
        for frame in checkpoint.parquet_frames:
            files.append(
                file_actions(
                    frame,
                    source="checkpoint",
                    partition_columns=partition_columns,
                    version=cp_version,
                    partition_values="map",
                )
            )
            side = side_actions(frame, cp_version, text=False)
            side_frames["txns"].append(side["txns"])
            side_frames["domains"].append(side["domains"])
        metadata.append(
            pl.DataFrame(
                {
                    "version": [checkpoint.version] * len(checkpoint.metadata),
                    "metadata": list(checkpoint.metadata),
                },
                schema=METADATA_SCHEMA,
            )
        )
        protocols.append(
            pl.DataFrame(
                {
                    "version": [checkpoint.version] * len(checkpoint.protocols),
                    "protocol": list(checkpoint.protocols),
                },
                schema=PROTOCOL_SCHEMA,
            )
        )
    version = pl.col("_v")
    files.append(
        file_actions(raw, source="commit", partition_columns=partition_columns, version=version)
    )
    side = side_actions(raw, version)
    metadata.append(side["metadata"])
    protocols.append(side["protocols"])
    for key, parts in side_frames.items():
        parts.append(side[key])
    known = [pl.col(c).is_not_null() for c in KNOWN_ACTIONS if c in raw.columns]
    unknown_versions = (
        raw.select(pl.col("_v").filter(~pl.any_horizontal(known)))["_v"].unique().sort().to_list()
        if known and raw.height
        else []
    )
    by_version = {v: data for v, _, data in triples}
    unknown_rows = [
        (v, line) for v in unknown_versions for line in unknown_action_lines(v, by_version[v])
    ]
    return ActionFrames(
        base_version=segment.base_version,
        end_version=segment.end_version,
        partition_columns=partition_columns,
        files=pl.concat(files, how="vertical"),
        commit_infos=side["commit_infos"],
        metadata=pl.concat(metadata, how="vertical"),
        protocols=pl.concat(protocols, how="vertical"),
        txns=pl.concat(side_frames["txns"], how="vertical"),
        domains=pl.concat(side_frames["domains"], how="vertical"),
        cdc=pl.concat(side_frames["cdc"], how="vertical"),
        unknown=pl.DataFrame(
            {"version": [v for v, _ in unknown_rows], "raw": [r for _, r in unknown_rows]},
            schema=UNKNOWN_SCHEMA,
        ),
        commit_versions=tuple(v for v, _ in segment.commits),
    )
