"""The checkpoint writer: a classic single-file parquet checkpoint plus ``_last_checkpoint``.

The product only reads checkpoints (``deltaforensics.log.checkpoints``); tests need to write
them, in the layout of PROTOCOL.md "Checkpoint Schema", so the reader is tested against files
it did not produce itself. Maps are written as parquet maps, as Spark and delta-rs do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tests.support.files import Action, dumps, file_key

_MAP = pa.map_(pa.string(), pa.string())
_DV = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                 ("sizeInBytes", pa.int32()), ("cardinality", pa.int64())])  # fmt: skip
_DOMAIN = pa.struct(
    [("domain", pa.string()), ("configuration", pa.string()), ("removed", pa.bool_())]
)


def write_checkpoint(
    log_dir: Path, version: int, commits: Sequence[Sequence[Action]], live: Sequence[Action]
) -> Path:
    """Checkpoint ``version`` from ``commits`` (v0..version) and the adds ``live`` at it.

    ``_last_checkpoint`` only moves forward, as engines never point it at an older checkpoint.
    """
    rows = checkpoint_rows(commits, live)
    with_domains = any("domainMetadata" in a for actions in commits for a in actions)
    table = pa.Table.from_pylist(
        [_parquet_row(r) for r in rows], schema=_checkpoint_schema(with_domains)
    )
    target = log_dir / f"{version:020d}.checkpoint.parquet"
    pq.write_table(table, target)
    last = log_dir / "_last_checkpoint"
    previous = json.loads(last.read_text()).get("version", -1) if last.exists() else -1
    if version >= previous:
        info = {
            "version": version,
            "size": len(rows),
            "sizeInBytes": target.stat().st_size,
            "numOfAddFiles": len(live),
        }
        last.write_text(dumps(info))
    return target


def checkpoint_rows(
    commits: Sequence[Sequence[Action]], live: Sequence[Action]
) -> list[dict[str, Any]]:
    """The reconciled state: protocol, metadata, txns, live domains, adds, unexpired tombstones."""
    protocol: Action | None = None
    metadata: Action | None = None
    txns: dict[str, Action] = {}
    domains: dict[str, Action] = {}
    tombstones: dict[tuple[str, str], Action] = {}
    for actions in commits:
        for a in actions:
            protocol = a.get("protocol", protocol)
            metadata = a.get("metaData", metadata)
            if "txn" in a:
                txns[a["txn"]["appId"]] = a["txn"]
            if "domainMetadata" in a:
                domains[a["domainMetadata"]["domain"]] = a["domainMetadata"]
            if "remove" in a:
                tombstones[file_key(a["remove"])] = a["remove"]
    assert protocol is not None and metadata is not None
    live_paths = {f["path"] for f in live}
    rows: list[dict[str, Any]] = [{"protocol": protocol}, {"metaData": metadata}]
    rows += [{"txn": t} for t in txns.values()]
    rows += [{"domainMetadata": d} for d in domains.values() if not d.get("removed")]
    rows += [{"add": {**f, "dataChange": False}} for f in live]
    rows += [{"remove": r} for r in tombstones.values() if r["path"] not in live_paths]
    return rows


def _checkpoint_schema(with_domains: bool) -> pa.Schema:
    fields = [
        ("txn", pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])),
        ("add", pa.struct([
            ("path", pa.string()), ("partitionValues", _MAP), ("size", pa.int64()),
            ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("tags", _MAP),
            ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
            ("stats", pa.string()),
        ])),
        ("remove", pa.struct([
            ("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
            ("extendedFileMetadata", pa.bool_()), ("partitionValues", _MAP), ("size", pa.int64()),
            ("deletionVector", _DV),
        ])),
        ("metaData", pa.struct([
            ("id", pa.string()), ("name", pa.string()), ("description", pa.string()),
            ("format", pa.struct([("provider", pa.string()), ("options", _MAP)])),
            ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
            ("configuration", _MAP), ("createdTime", pa.int64()),
        ])),
        ("protocol", pa.struct([
            ("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
            ("readerFeatures", pa.list_(pa.string())), ("writerFeatures", pa.list_(pa.string())),
        ])),
    ]  # fmt: skip
    if with_domains:
        fields.append(("domainMetadata", _DOMAIN))
    return pa.schema(fields)


def _parquet_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """JSON objects that are parquet maps become lists of (key, value) pairs."""
    out = {}
    for kind, action in row.items():
        body = dict(action)
        for key in ("partitionValues", "tags", "configuration"):
            if isinstance(body.get(key), Mapping):
                body[key] = [(k, None if v is None else str(v)) for k, v in body[key].items()]
        if kind == "metaData":
            body["format"] = {
                **body["format"],
                "options": list(body["format"].get("options", {}).items()),
            }
        out[kind] = body
    return out
