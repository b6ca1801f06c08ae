"""Hypothesis strategies for whole commit sequences, and a tiny checkpoint writer for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

PROTOCOL = {"minReaderVersion": 1, "minWriterVersion": 2}


def metadata(partitioned: bool) -> dict[str, Any]:
    schema = {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "long", "nullable": True, "metadata": {}},
            {"name": "date", "type": "string", "nullable": True, "metadata": {}},
        ],
    }
    return {
        "id": "t",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps(schema),
        "partitionColumns": ["date"] if partitioned else [],
        "configuration": {},
        "createdTime": 0,
    }


@st.composite
def commit_sequences(draw: st.DrawFn) -> tuple[bool, list[list[dict[str, Any]]]]:
    """Valid logs: each commit adds fresh files, removes some live ones, or re-adds one with a DV."""
    partitioned = draw(st.booleans())
    n = draw(st.integers(1, 25))
    live: dict[tuple[str, str], dict[str, Any]] = {}
    commits: list[list[dict[str, Any]]] = [
        [
            {"commitInfo": {"operation": "CREATE TABLE"}},
            {"protocol": PROTOCOL},
            {"metaData": metadata(partitioned)},
        ]
    ]
    counter = 0
    for v in range(1, n + 1):
        actions: list[dict[str, Any]] = [
            {"commitInfo": {"operation": "WRITE", "readVersion": v - 1}}
        ]
        keys = sorted(live)  # removes may only name files live before this commit
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            date = draw(st.sampled_from(["2024-01-01", "2024-01-02", ""]))
            path = (
                f"date={date or '__HIVE_DEFAULT_PARTITION__'}/" if partitioned else ""
            ) + f"f{counter}.parquet"
            add = {
                "path": path,
                "partitionValues": {"date": date} if partitioned else {},
                "size": counter,
                "modificationTime": v,
                "dataChange": True,
            }
            live[(path, "")] = add
            actions.append({"add": add})
        if keys:
            for key in draw(st.lists(st.sampled_from(keys), unique=True, max_size=2)):
                old = live.pop(key)
                rm = {
                    "path": old["path"],
                    "dataChange": True,
                    "deletionTimestamp": v,
                    "partitionValues": old["partitionValues"],
                    "size": old["size"],
                }
                if key[1]:
                    rm["deletionVector"] = old["deletionVector"]
                actions.append({"remove": rm})
                if draw(st.booleans()):  # DV update: same path, new DV
                    dv = {
                        "storageType": "i",
                        "pathOrInlineDv": f"dv{v}x{counter}",
                        "sizeInBytes": 4,
                        "cardinality": 1,
                    }
                    new = {**old, "deletionVector": dv}
                    live[(old["path"], f"i{dv['pathOrInlineDv']}")] = new
                    actions.append({"add": new})
        commits.append(actions)
    return partitioned, commits


def write_log(root: Path, commits: list[list[dict[str, Any]]]) -> Path:
    log = root / "_delta_log"
    log.mkdir(parents=True, exist_ok=True)
    for v, actions in enumerate(commits):
        (log / f"{v:020d}.json").write_text("\n".join(json.dumps(a) for a in actions) + "\n")
    return log


def live_at(
    commits: list[list[dict[str, Any]]], version: int
) -> dict[tuple[str, str], dict[str, Any]]:
    """A naive, obviously-correct replay used as the reference."""
    state: dict[tuple[str, str], dict[str, Any]] = {}
    for actions in commits[: version + 1]:
        for a in actions:
            for kind in ("remove", "add"):
                if kind in a:
                    f = a[kind]
                    dv = f.get("deletionVector")
                    key = (f["path"], f"{dv['storageType']}{dv['pathOrInlineDv']}" if dv else "")
                    if kind == "add":
                        state[key] = f
                    else:
                        state.pop(key, None)
    return state


_DV = pa.struct(
    [
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int32()),
        ("sizeInBytes", pa.int32()),
        ("cardinality", pa.int64()),
    ]
)
_ADD = pa.struct(
    [
        ("path", pa.string()),
        ("partitionValues", pa.map_(pa.string(), pa.string())),
        ("size", pa.int64()),
        ("modificationTime", pa.int64()),
        ("dataChange", pa.bool_()),
        ("stats", pa.string()),
        ("deletionVector", _DV),
    ]
)
_META = pa.struct(
    [
        ("id", pa.string()),
        (
            "format",
            pa.struct([("provider", pa.string()), ("options", pa.map_(pa.string(), pa.string()))]),
        ),
        ("schemaString", pa.string()),
        ("partitionColumns", pa.list_(pa.string())),
        ("configuration", pa.map_(pa.string(), pa.string())),
        ("createdTime", pa.int64()),
    ]
)
_PROTO = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())])
# a metaData row of an unpartitioned, schemaless table, shaped for the parquet structs above
# (maps as lists of pairs)
EMPTY_CHECKPOINT_METADATA: dict[str, Any] = {
    "id": "t",
    "format": {"provider": "parquet", "options": []},
    "schemaString": '{"type":"struct","fields":[]}',
    "partitionColumns": [],
    "configuration": [],
    "createdTime": 0,
}


def write_checkpoint(log: Path, commits: list[list[dict[str, Any]]], version: int) -> None:
    """A classic single-file checkpoint at ``version`` in the V1 parquet layout."""
    md = next(
        a["metaData"] for actions in commits[: version + 1] for a in actions if "metaData" in a
    )
    rows: list[dict[str, Any]] = [
        {"protocol": PROTOCOL, "metaData": None, "add": None},
        {
            "protocol": None,
            "metaData": {
                **md,
                "format": {"provider": "parquet", "options": []},
                "configuration": list(md["configuration"].items()),
            },
            "add": None,
        },
    ]
    for f in live_at(commits, version).values():
        rows.append(
            {
                "protocol": None,
                "metaData": None,
                "add": {
                    "path": f["path"],
                    "partitionValues": list(f["partitionValues"].items()),
                    "size": f["size"],
                    "modificationTime": f["modificationTime"],
                    "dataChange": False,
                    "stats": None,
                    "deletionVector": f.get("deletionVector"),
                },
            }
        )
    table = pa.Table.from_pylist(
        rows, schema=pa.schema([("protocol", _PROTO), ("metaData", _META), ("add", _ADD)])
    )
    pq.write_table(table, log / f"{version:020d}.checkpoint.parquet")
