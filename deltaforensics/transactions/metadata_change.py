"""How a commit's ``metaData`` and ``protocol`` actions differ from the ones it read."""

from __future__ import annotations

from typing import Any

from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.transactions.decode import json_or_none
from deltaforensics.transactions.parts import MetadataChange

_MAPPING_PREFIX = "delta.columnMapping."


def metadata_change(
    prev: Metadata | None, new: Metadata, commit_info: dict[str, Any]
) -> MetadataChange:
    """Changed configuration keys, whether anything else changed, each key's old/new value,
    and whether the commit tags itself an identity high-water-mark update.

    A schema that differs only in column-mapping field metadata while the mode goes none→name
    is not "anything else": Delta ≥4.1 resolves that enablement concurrently (§A.5 rule 2)."""
    tags = commit_info.get("tags") if isinstance(commit_info.get("tags"), dict) else {}
    identity_only = str((tags or {}).get("delta.identity.schemaUpdate", "")).lower() == "true"
    if prev is None:
        return MetadataChange(
            keys=tuple(sorted(new.configuration)), other=True, identity_only=identity_only
        )
    changed = tuple(
        sorted(k for k, v in new.configuration.items() if prev.configuration.get(k) != v)
    )
    removed = set(prev.configuration) - set(new.configuration)
    return MetadataChange(
        keys=changed,
        other=bool(removed)
        or _schema_differs(prev, new)
        or prev.partition_columns != new.partition_columns
        or prev.id != new.id,
        values={k: (prev.configuration.get(k), new.configuration.get(k)) for k in changed},
        identity_only=identity_only,
    )


def drops_features(before: Protocol | None, after: Protocol) -> bool:
    return before is not None and bool(set(before.features) - set(after.features))


def _schema_differs(prev: Metadata, new: Metadata) -> bool:
    if prev.schema_string == new.schema_string:
        return False
    before = (prev.configuration.get("delta.columnMapping.mode") or "none").lower()
    after = (new.configuration.get("delta.columnMapping.mode") or "none").lower()
    if (before, after) != ("none", "name"):
        return True
    return bool(
        _without_mapping(json_or_none(prev.schema_string))
        != _without_mapping(json_or_none(new.schema_string))
    )


def _without_mapping(node: Any) -> Any:
    """A schema tree with the ``delta.columnMapping.*`` field metadata dropped."""
    if isinstance(node, list):
        return [_without_mapping(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_mapping(v) for k, v in node.items() if k != "metadata"}
    if isinstance(node.get("metadata"), dict):
        out["metadata"] = {
            k: v for k, v in node["metadata"].items() if not k.startswith(_MAPPING_PREFIX)
        }
    return out
