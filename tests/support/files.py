"""File actions as the builder writes them: data file names, partition directories, deletion
vectors, and which adds are live after a run of commits.

Kept apart from the writer model because none of it depends on the engine except the file-name
suffix, which the caller passes in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from deltaforensics.model.ids import dv_unique_id

Action = dict[str, Any]
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_PREFIX_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def dumps(value: Any) -> str:
    """Compact JSON, as every engine writes its log lines."""
    return json.dumps(value, separators=(",", ":"))


def z85(data: bytes) -> str:
    """Z85 (ZeroMQ RFC 32), which Delta uses to encode deletion-vector file uuids."""
    out = []
    for i in range(0, len(data), 4):
        value = int.from_bytes(data[i : i + 4], "big")
        out.append("".join(_Z85[(value // 85**k) % 85] for k in range(4, -1, -1)))
    return "".join(out)


def hive_escape(value: str) -> str:
    """Hive's partition-directory escaping (the characters Spark percent-encodes)."""
    special = set("\"#%'*/:=?\\\x7f{[]^") | {chr(c) for c in range(0x20)}
    return "".join(f"%{ord(c):02X}" if c in special else c for c in value)


def parse_partition(spec: str | Mapping[str, str | None] | None) -> dict[str, str | None]:
    """``"date=A/region=eu"`` or a dict -> logical partition values (the Hive null is None)."""
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return dict(spec)
    out: dict[str, str | None] = {}
    for part in spec.strip("/").split("/"):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"partition {spec!r}: expected col=value[/col=value]")
        out[key] = None if value == HIVE_NULL else value
    return out


def data_file_path(
    values: Mapping[str, str | None],
    partition_by: Sequence[str],
    *,
    name: str,
    random_prefix: str | None,
) -> str:
    """Hive directories (URL-quoted like Spark's paths), or a random prefix under column mapping."""
    if random_prefix is not None:
        return f"{random_prefix}/{name}"
    dirs = [
        f"{c}={HIVE_NULL if values[c] is None else hive_escape(str(values[c]))}"
        for c in partition_by
    ]
    return quote("/".join([*dirs, name]), safe="/=-_.~!$&'()*+,;:@")


def random_prefix(choice: Any) -> str:
    """Two random characters, the directory Spark uses instead of Hive ones under column mapping."""
    return "".join(choice(_PREFIX_ALPHABET) for _ in range(2))


def dv_descriptor(dv_id: bytes, cardinality: int, storage_type: str) -> dict[str, Any]:
    """A deletion-vector descriptor: a file (``u``) or inline bitmap (``i``) of ``cardinality``."""
    if storage_type == "u":
        return {
            "storageType": "u",
            "pathOrInlineDv": z85(dv_id),
            "offset": 1,
            "sizeInBytes": 34 + 2 * cardinality,
            "cardinality": cardinality,
        }
    return {
        "storageType": "i",
        "pathOrInlineDv": z85(dv_id[:12]),
        "sizeInBytes": 12,
        "cardinality": cardinality,
    }


def stats_rows(f: Mapping[str, Any]) -> int:
    """``numRecords`` of a file action's stats; 0 when absent or unreadable."""
    try:
        return int(json.loads(f.get("stats") or "{}").get("numRecords", 0))
    except (TypeError, ValueError):
        return 0


def file_key(f: Mapping[str, Any]) -> tuple[str, str]:
    """Delta's file identity: path plus deletion-vector id (PROTOCOL.md "Reconciliation")."""
    dv = f.get("deletionVector") or {}
    return f["path"], dv_unique_id(
        dv.get("storageType"), dv.get("pathOrInlineDv"), dv.get("offset")
    )


def live_adds(commits: Sequence[Sequence[Action]]) -> list[Action]:
    """The add actions live after ``commits``; within a commit removes apply before adds."""
    state: dict[tuple[str, str], Action] = {}
    for actions in commits:
        for a in actions:
            if "remove" in a:
                state.pop(file_key(a["remove"]), None)
        for a in actions:
            if "add" in a:
                state[file_key(a["add"])] = a["add"]
    return [dict(f) for f in state.values()]
