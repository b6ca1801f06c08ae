"""Frame schemas: the contract every engine (polars, Spark) produces and the core consumes.

Free-form JSON (``commitInfo``, ``metaData``, ``protocol``, ``tags``) stays as its JSON text, so
nothing a writer put there is lost; typed fields are derived from it by pure functions. File
actions are typed explicitly; ``partition_values`` becomes a struct whose fields are the
physical partition column names of every ``metaData`` in the segment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from deltaforensics.model.deferred_files import DeferredFiles
from deltaforensics.model.file_stats_source import FileStatsSource

DV_STRUCT = pl.Struct(
    {
        "storageType": pl.String,
        "pathOrInlineDv": pl.String,
        "offset": pl.Int64,
        "sizeInBytes": pl.Int64,
        "cardinality": pl.Int64,
    }
)

# What the NDJSON parser reads. `_v` is injected per line by the commit reader.
RAW_ACTION_SCHEMA: dict[str, pl.DataType] = {
    "_v": pl.Int64(),
    "commitInfo": pl.String(),
    "add": pl.Struct(
        {
            "path": pl.String,
            "partitionValues": pl.String,
            "size": pl.Int64,
            "modificationTime": pl.Int64,
            "dataChange": pl.Boolean,
            "stats": pl.String,
            "tags": pl.String,
            "deletionVector": DV_STRUCT,
            "baseRowId": pl.Int64,
            "defaultRowCommitVersion": pl.Int64,
            "clusteringProvider": pl.String,
        }
    ),
    "remove": pl.Struct(
        {
            "path": pl.String,
            "deletionTimestamp": pl.Int64,
            "dataChange": pl.Boolean,
            "extendedFileMetadata": pl.Boolean,
            "partitionValues": pl.String,
            "size": pl.Int64,
            "stats": pl.String,
            "tags": pl.String,
            "deletionVector": DV_STRUCT,
            "baseRowId": pl.Int64,
            "defaultRowCommitVersion": pl.Int64,
        }
    ),
    "metaData": pl.String(),
    "protocol": pl.String(),
    "txn": pl.Struct({"appId": pl.String, "version": pl.Int64, "lastUpdated": pl.Int64}),
    "domainMetadata": pl.Struct(
        {"domain": pl.String, "configuration": pl.String, "removed": pl.Boolean}
    ),
    "cdc": pl.Struct(
        {
            "path": pl.String,
            "partitionValues": pl.String,
            "size": pl.Int64,
            "dataChange": pl.Boolean,
        }
    ),
    "checkpointMetadata": pl.String(),
    "sidecar": pl.Struct(
        {
            "path": pl.String,
            "sizeInBytes": pl.Int64,
            "modificationTime": pl.Int64,
            "tags": pl.String,
        }
    ),
}
KNOWN_ACTIONS = tuple(k for k in RAW_ACTION_SCHEMA if k != "_v")

# Normalised file actions (adds and removes, from commits and checkpoints), one row each.
FILE_COLUMNS: dict[str, pl.DataType] = {
    "version": pl.Int64(),
    "seq": pl.Int64(),  # order of the action in its source, for stable tie-breaking
    "action": pl.String(),  # "add" | "remove"
    "source": pl.String(),  # "commit" | "checkpoint"
    "path": pl.String(),
    "dv_id": pl.String(),  # "" when the file has no deletion vector
    "size": pl.Int64(),
    "modification_time": pl.Int64(),
    "deletion_timestamp": pl.Int64(),
    "data_change": pl.Boolean(),
    "stats": pl.String(),
    "tags": pl.String(),
    "dv_cardinality": pl.Int64(),
    "base_row_id": pl.Int64(),
    "default_row_commit_version": pl.Int64(),
    "clustering_provider": pl.String(),
}
PARTITION_VALUES = "partition_values"


def files_schema(partition_columns: tuple[str, ...]) -> dict[str, pl.DataType]:
    pv = pl.Struct(dict.fromkeys(partition_columns, pl.String))
    return {**FILE_COLUMNS, PARTITION_VALUES: pv}


COMMIT_INFO_SCHEMA: dict[str, pl.DataType] = {"version": pl.Int64(), "commit_info": pl.String()}
METADATA_SCHEMA: dict[str, pl.DataType] = {"version": pl.Int64(), "metadata": pl.String()}
PROTOCOL_SCHEMA: dict[str, pl.DataType] = {"version": pl.Int64(), "protocol": pl.String()}
TXN_SCHEMA: dict[str, pl.DataType] = {
    "version": pl.Int64(),
    "app_id": pl.String(),
    "txn_version": pl.Int64(),
    "last_updated": pl.Int64(),
}
DOMAIN_SCHEMA: dict[str, pl.DataType] = {
    "version": pl.Int64(),
    "domain": pl.String(),
    "configuration": pl.String(),
    "removed": pl.Boolean(),
}
CDC_SCHEMA: dict[str, pl.DataType] = {
    "version": pl.Int64(),
    "path": pl.String(),
    "size": pl.Int64(),
}
UNKNOWN_SCHEMA: dict[str, pl.DataType] = {"version": pl.Int64(), "raw": pl.String()}


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionFrames:
    """Every action of a :class:`~deltaforensics.log.segment.LogSegment`, normalised.

    Rows from a checkpoint carry ``version == base_version`` and ``source == "checkpoint"``.
    ``file_stats``: where the files' ``stats`` are read from when ``files`` does not hold them
    (its ``stats`` column is then null); ``None`` when it does. ``deferred``: the checkpoint
    adds ``files`` leaves out, because no commit of the segment touches them
    (:class:`~deltaforensics.model.deferred_files.DeferredFiles`); :meth:`all_files` holds
    them too.
    """

    base_version: int
    end_version: int
    partition_columns: tuple[str, ...]  # physical names, union over the segment's metadata
    files: pl.DataFrame
    commit_infos: pl.DataFrame = field(default_factory=lambda: empty(COMMIT_INFO_SCHEMA))
    metadata: pl.DataFrame = field(default_factory=lambda: empty(METADATA_SCHEMA))
    protocols: pl.DataFrame = field(default_factory=lambda: empty(PROTOCOL_SCHEMA))
    txns: pl.DataFrame = field(default_factory=lambda: empty(TXN_SCHEMA))
    domains: pl.DataFrame = field(default_factory=lambda: empty(DOMAIN_SCHEMA))
    cdc: pl.DataFrame = field(default_factory=lambda: empty(CDC_SCHEMA))
    unknown: pl.DataFrame = field(default_factory=lambda: empty(UNKNOWN_SCHEMA))
    commit_versions: tuple[int, ...] = ()
    file_stats: FileStatsSource | None = None
    deferred: DeferredFiles | None = None

    def all_files(self) -> pl.DataFrame:
        """``files`` with every checkpoint row, deferred ones included, in the order ``files``
        would have held them: the checkpoint's rows, then the commits'."""
        if self.deferred is None:
            return self.files
        commits = self.files.filter(pl.col("source") != "checkpoint")
        return pl.concat([self.deferred.checkpoint_rows(), commits], how="vertical")
