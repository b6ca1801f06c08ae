"""A segment's commits as normalised frames, built one chunk of commit files at a time.

A raw commit frame (``RAW_ACTION_SCHEMA``: one row per JSON line, a struct column per action
kind) is mostly nulls, and in polars every null string field still costs a 16-byte view and
every null integer 8 bytes: ~550 bytes per line before the strings. Held for a whole log it
was most of ``explain``'s peak memory (11.4 GB at 1,000,000 commits, issue #23), so each
chunk's raw frame is normalised as soon as it is parsed (:meth:`CommitActions.from_raw`) and
let go; :meth:`CommitActions.joined` puts the chunks' pieces together as one read of the whole
log would have made them.

Two things are not known while a chunk is read, so the pieces defer them:

- the row offset of the chunk in the whole log, which ``seq`` counts from: each chunk's
  ``seq`` starts at 0 and :meth:`~CommitActions.joined` shifts it by the rows before it;
- the partition columns, the union over every metaData of the segment
  (:func:`~deltaforensics.log.assembly.segment_partition_columns`), which a later commit may
  widen: the file actions keep their ``partitionValues`` as JSON text until
  :meth:`~CommitActions.files` decodes them once, with the segment's columns. Decoding per
  chunk and widening at the end would lose the values of a column a chunk did not yet know.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import polars as pl

from deltaforensics.log.normalize import decode_partition_values, file_actions, side_actions
from deltaforensics.model.frames import concat_aligned
from deltaforensics.model.schemas import KNOWN_ACTIONS


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitActions:
    """The actions of consecutive commits, normalised but for the partition values.

    ``adds`` and ``removes`` are the chunks' frames of the file columns with
    ``partition_values`` as JSON text, kept apart so that each is decoded on its own (see
    :meth:`files`); the side frames have their ``model.schemas`` schemas. ``rows`` is the raw
    frames' row count (JSON lines read), the ``seq`` offset of whatever follows.
    """

    adds: tuple[pl.DataFrame, ...]
    removes: tuple[pl.DataFrame, ...]
    commit_infos: pl.DataFrame
    metadata: pl.DataFrame
    protocols: pl.DataFrame
    txns: pl.DataFrame
    domains: pl.DataFrame
    cdc: pl.DataFrame
    unknown_versions: tuple[int, ...]  # ascending, those with a line no action Delta defines
    rows: int

    @classmethod
    def from_raw(cls, raw: pl.DataFrame) -> CommitActions:
        """One raw frame of commits (``read_commits``' or an engine's own parse) normalised."""
        version = pl.col("_v")
        side = side_actions(raw, version)
        # each column in one chunk (the parse leaves a struct's fields in many: 1,620 for the
        # paths of 100,000 commits), so that the chunks' frames join into aligned columns
        # (model.frames.concat_aligned); a copy of one chunk's file actions, while it is read
        adds, removes = (
            file_actions(
                raw, source="commit", version=version, kinds=(k,), partition_values="text"
            ).rechunk()
            for k in ("add", "remove")
        )
        return cls(
            adds=(adds,),
            removes=(removes,),
            commit_infos=side["commit_infos"],
            metadata=side["metadata"],
            protocols=side["protocols"],
            txns=side["txns"],
            domains=side["domains"],
            cdc=side["cdc"],
            unknown_versions=tuple(unknown_action_versions(raw)),
            rows=raw.height,
        )

    @classmethod
    def joined(cls, parts: Sequence[CommitActions]) -> CommitActions:
        """Consecutive chunks' actions as :meth:`from_raw` of their raw frames' concatenation
        would give them (the frames not rechunked: see :meth:`files`)."""
        if len(parts) == 1:
            return parts[0]
        offsets = [0, *accumulate(p.rows for p in parts)]

        def files(kind: str) -> tuple[pl.DataFrame, ...]:
            return tuple(
                frame.with_columns(pl.col("seq") + offset) if offset else frame
                for p, offset in zip(parts, offsets, strict=False)
                for frame in getattr(p, kind)
            )

        def side(kind: str) -> pl.DataFrame:
            frames: list[pl.DataFrame] = [getattr(p, kind) for p in parts]
            return pl.concat(frames, how="vertical")

        return cls(
            adds=files("adds"),
            removes=files("removes"),
            commit_infos=side("commit_infos"),
            metadata=side("metadata"),
            protocols=side("protocols"),
            txns=side("txns"),
            domains=side("domains"),
            cdc=side("cdc"),
            unknown_versions=tuple(sorted({v for p in parts for v in p.unknown_versions})),
            rows=offsets[-1],
        )

    def files(self, partition_columns: tuple[str, ...]) -> pl.DataFrame:
        """The adds, then the removes, as ``files_schema(partition_columns)`` rows.

        Decoded chunk by chunk and then put together without a copy: a column decoded over
        the joined frame comes back in one piece, and polars then copies every other column
        into one piece to match, the whole file actions at once (measured: 268 MB at 100,000
        commits, issue #23). Chunked frames read as fast downstream (docs/performance.md).
        """
        chunks = (*self.adds, *self.removes)
        return concat_aligned([decode_partition_values(f, partition_columns) for f in chunks])

    def metadata_texts(self) -> list[str]:
        texts: list[str] = self.metadata["metadata"].to_list()
        return texts


def unknown_action_versions(raw: pl.DataFrame) -> list[int]:
    """Ascending versions with a line holding no action Delta defines."""
    known = [pl.col(c).is_not_null() for c in KNOWN_ACTIONS if c in raw.columns]
    if not known or not raw.height:
        return []
    rows = raw.select(pl.col("_v").filter(~pl.any_horizontal(known)))
    result: list[int] = rows["_v"].unique().sort().to_list()
    return result


__all__ = ["CommitActions", "unknown_action_versions"]
