"""Assembling a log segment: the one way every engine turns what it read into frames.

An engine chooses how a segment's files are fetched and decoded (the polars engine through a
:class:`~deltaforensics.log.storage.LogStore` and pyarrow, the Spark engine through Spark).
Everything after the decoding is here, so the engines' frames agree by construction:

1. each decoded file of a checkpoint becomes a :class:`CheckpointPart` (``from_json`` or
   ``from_parquet``, which rejects a schema no checkpoint has);
2. the engine decodes the sidecar files :func:`sidecar_paths` names (``CHECKPOINT_ACTIONS``
   are the columns worth reading from any checkpoint parquet);
3. :func:`assemble_checkpoint` makes the :class:`RawCheckpoint`;
4. the engine normalises its commits' raw frames into :class:`CommitActions` (chunk by chunk,
   or one frame of them all: :mod:`deltaforensics.log.commit_actions`);
5. :func:`assemble` makes the segment's :class:`ActionFrames` from the checkpoint and the
   commits' actions, with :func:`segment_partition_columns` naming the partition columns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_lines import Blob, unknown_action_lines
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.normalize import file_actions, side_actions
from deltaforensics.log.segment import LogSegment
from deltaforensics.model.actions import Metadata
from deltaforensics.model.schemas import (
    METADATA_SCHEMA,
    PROTOCOL_SCHEMA,
    UNKNOWN_SCHEMA,
    ActionFrames,
)

# The actions a checkpoint can hold that the frames use; any other column is never read.
CHECKPOINT_ACTIONS = (
    "add",
    "remove",
    "metaData",
    "protocol",
    "txn",
    "domainMetadata",
    "sidecar",
    "checkpointMetadata",
)
SIDECAR_DIR = "_sidecars"
# A checkpoint frame with only some of its rows carries each row's index in the whole file
# here: a file action's ``seq`` (:func:`~deltaforensics.log.normalize.file_actions`).
SEQ = "_seq"


@dataclass(frozen=True, slots=True, kw_only=True)
class RawCheckpoint:
    """What one checkpoint holds: file-action frames (JSON- or parquet-shaped) and side actions."""

    version: int
    json_frames: tuple[pl.DataFrame, ...]  # RAW_ACTION_SCHEMA frames (JSON checkpoints)
    parquet_frames: tuple[pl.DataFrame, ...]  # add/remove/txn/domainMetadata as parquet structs
    metadata: tuple[str, ...]  # metaData actions as JSON text
    protocols: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointPart:
    """One file a checkpoint names, decoded, with the side actions it carries."""

    is_json: bool
    frame: pl.DataFrame
    metadata: tuple[str, ...]
    protocols: tuple[str, ...]
    sidecars: tuple[str, ...]  # paths as the checkpoint writes them

    @classmethod
    def from_json(cls, frame: pl.DataFrame) -> CheckpointPart:
        """A JSON checkpoint parsed like a commit (``RAW_ACTION_SCHEMA``)."""
        return cls(
            is_json=True,
            frame=frame,
            metadata=tuple(frame["metaData"].drop_nulls().to_list()),
            protocols=tuple(frame["protocol"].drop_nulls().to_list()),
            sidecars=tuple(frame["sidecar"].struct.field("path").drop_nulls().to_list()),
        )

    @classmethod
    def from_parquet(cls, name: str, frame: pl.DataFrame, version: int) -> CheckpointPart:
        """A parquet checkpoint file (or part) with the ``CHECKPOINT_ACTIONS`` columns it has."""
        check_checkpoint_schema(name, frame, version)
        sidecars: list[str] = []
        if "sidecar" in frame.columns and frame.schema["sidecar"] != pl.Null:
            sidecars = frame["sidecar"].struct.field("path").drop_nulls().cast(pl.String).to_list()
        return cls(
            is_json=False,
            frame=frame,
            metadata=tuple(structs_to_json(frame, "metaData")),
            protocols=tuple(structs_to_json(frame, "protocol")),
            sidecars=tuple(sidecars),
        )


def sidecar_paths(parts: Sequence[CheckpointPart]) -> list[str]:
    """The sidecar files the parts name, relative to ``_delta_log``, in the parts' order.

    Sidecar paths are relative to ``_delta_log/_sidecars``; an absolute URI keeps its name.
    """
    return [sidecar_name(p) for part in parts for p in part.sidecars]


def sidecar_name(path: str) -> str:
    """A sidecar path as a checkpoint writes it, relative to ``_delta_log``."""
    return f"{SIDECAR_DIR}/{path.rsplit('/', 1)[-1]}"


def assemble_checkpoint(
    files: CheckpointFiles, parts: Sequence[CheckpointPart], sidecars: Sequence[pl.DataFrame]
) -> RawCheckpoint:
    """``parts`` (one per file of ``files``) and the decoded ``sidecars`` as one checkpoint."""
    metadata = [text for part in parts for text in part.metadata]
    protocols = [text for part in parts for text in part.protocols]
    if not metadata or not protocols:
        raise LogCorruptError(
            files.label, "checkpoint has no metaData or no protocol action", files.version
        )
    parquet = [*(p.frame for p in parts if not p.is_json), *sidecars]
    if (
        parquet
        and not any(p.is_json for p in parts)
        and all("add" not in f.columns for f in parquet)
    ):
        # every writer writes the add column, null when no file is live: without it the live
        # files are unknown, not none
        raise LogCorruptError(
            files.label, "checkpoint has no add column: its live files are unknown", files.version
        )
    return RawCheckpoint(
        version=files.version,
        json_frames=tuple(p.frame for p in parts if p.is_json),
        parquet_frames=(*(p.frame for p in parts if not p.is_json), *sidecars),
        metadata=tuple(metadata[-1:]),
        protocols=tuple(protocols[-1:]),
        names=files.names,
    )


def check_checkpoint_schema(name: str, frame: pl.DataFrame, version: int) -> None:
    """Raise :class:`LogCorruptError` for a parquet checkpoint no reader could use."""
    for column in ("add", "remove", "metaData", "protocol"):
        dtype = frame.schema.get(column)
        if dtype is not None and not isinstance(dtype, pl.Struct | pl.Null):
            raise LogCorruptError(
                name, f"checkpoint column {column!r} has type {dtype}, expected a struct", version
            )
    add = frame.schema.get("add")
    if isinstance(add, pl.Struct) and "path" not in {f.name for f in add.fields}:
        raise LogCorruptError(name, "checkpoint add actions have no path", version)


def structs_to_json(frame: pl.DataFrame, column: str) -> list[str]:
    """The non-null structs of a parquet checkpoint's column as the JSON a commit would hold."""
    if column not in frame.columns or frame.schema[column] == pl.Null:
        return []
    rows = frame.filter(pl.col(column).is_not_null())[column].to_list()
    return [json.dumps(_maps_to_dicts(r)) for r in rows]


def _maps_to_dicts(value: Any) -> Any:
    """Parquet maps arrive as lists of {key, value}; metaData wants JSON objects."""
    if isinstance(value, dict):
        return {k: _maps_to_dicts(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(x, dict) and set(x) == {"key", "value"} for x in value):
            return {x["key"]: _maps_to_dicts(x["value"]) for x in value}
        if not value:
            return value
        return [_maps_to_dicts(x) for x in value]
    return value


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


def segment_partition_columns(
    checkpoint: RawCheckpoint | None, commits: CommitActions
) -> tuple[str, ...]:
    """The partition columns of a segment: its checkpoint's metaData, then its commits'."""
    texts = list(checkpoint.metadata if checkpoint else ()) + commits.metadata_texts()
    return physical_partition_columns(texts)


def assemble(
    segment: LogSegment,
    checkpoint: RawCheckpoint | None,
    commits: CommitActions,
    partition_columns: tuple[str, ...],
    triples: Sequence[Blob],
) -> ActionFrames:
    """The segment's frames from its checkpoint and its commits' actions.

    ``triples`` holds the bytes of at least every commit with an unknown action (their lines
    are kept verbatim); ``commits`` is what
    :func:`~deltaforensics.log.commit_reader.read_commit_chunks` gives, or
    :meth:`CommitActions.from_raw` of what :func:`~deltaforensics.log.commit_reader.read_commits`
    gives.
    """
    parts = _checkpoint_frames(checkpoint, partition_columns) if checkpoint else _Frames()
    parts.files.append(commits.files(partition_columns))
    parts.txns.append(commits.txns)
    parts.domains.append(commits.domains)
    by_version = {v: data for v, _, data in triples}
    unknown_rows = [
        (v, line)
        for v in commits.unknown_versions
        for line in unknown_action_lines(v, by_version[v])
    ]
    return ActionFrames(
        base_version=segment.base_version,
        end_version=segment.end_version,
        partition_columns=partition_columns,
        files=pl.concat(parts.files, how="vertical"),
        commit_infos=commits.commit_infos,
        metadata=pl.concat([*parts.metadata, commits.metadata], how="vertical"),
        protocols=pl.concat([*parts.protocols, commits.protocols], how="vertical"),
        txns=pl.concat(parts.txns, how="vertical"),
        domains=pl.concat(parts.domains, how="vertical"),
        cdc=commits.cdc,
        unknown=pl.DataFrame(
            {"version": [v for v, _ in unknown_rows], "raw": [r for _, r in unknown_rows]},
            schema=UNKNOWN_SCHEMA,
        ),
        commit_versions=tuple(v for v, _ in segment.commits),
    )


def checkpoint_files(checkpoint: RawCheckpoint, partition_columns: tuple[str, ...]) -> pl.DataFrame:
    """The file-action rows :func:`assemble` makes of ``checkpoint``."""
    return pl.concat(_checkpoint_frames(checkpoint, partition_columns).files, how="vertical")


@dataclass(slots=True)
class _Frames:
    """The frames of a segment collected in order: its checkpoint's first, its commits' last."""

    files: list[pl.DataFrame] = field(default_factory=list)
    metadata: list[pl.DataFrame] = field(default_factory=list)
    protocols: list[pl.DataFrame] = field(default_factory=list)
    txns: list[pl.DataFrame] = field(default_factory=list)
    domains: list[pl.DataFrame] = field(default_factory=list)

    def add_side(self, side: dict[str, pl.DataFrame]) -> None:
        self.txns.append(side["txns"])
        self.domains.append(side["domains"])


def _checkpoint_frames(checkpoint: RawCheckpoint, partition_columns: tuple[str, ...]) -> _Frames:
    """JSON checkpoints hold commit-shaped rows; parquet ones, structs and partition maps."""
    out = _Frames()
    version = pl.lit(checkpoint.version, dtype=pl.Int64)
    shaped = [(f, True) for f in checkpoint.json_frames]
    shaped += [(f, False) for f in checkpoint.parquet_frames]
    for frame, is_json in shaped:
        out.files.append(
            file_actions(
                frame,
                source="checkpoint",
                partition_columns=partition_columns,
                version=version,
                partition_values="json" if is_json else "map",
            )
        )
        out.add_side(side_actions(frame, version, text=is_json))
    for texts, schema, column, frames in (
        (checkpoint.metadata, METADATA_SCHEMA, "metadata", out.metadata),
        (checkpoint.protocols, PROTOCOL_SCHEMA, "protocol", out.protocols),
    ):
        frames.append(
            pl.DataFrame(
                {"version": [checkpoint.version] * len(texts), column: list(texts)}, schema=schema
            )
        )
    return out


__all__ = [
    "CHECKPOINT_ACTIONS",
    "SEQ",
    "CheckpointPart",
    "RawCheckpoint",
    "assemble",
    "assemble_checkpoint",
    "check_checkpoint_schema",
    "checkpoint_files",
    "physical_partition_columns",
    "segment_partition_columns",
    "sidecar_name",
    "sidecar_paths",
    "structs_to_json",
]
