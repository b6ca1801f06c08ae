"""Table definition actions: the protocol a configuration needs, schema fields, metaData.

Pure functions of the builder's state, so the rules that decide reader/writer versions and
table features (PROTOCOL.md "Table Features") read in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deltaforensics.model.actions import Protocol
from tests.support.files import Action, dumps


def schema_field(name: str, type_name: str, mapping: tuple[int, str] | None) -> dict[str, Any]:
    """A struct field; ``mapping`` is the column-mapping ``(id, physicalName)`` when enabled."""
    metadata: dict[str, Any] = {}
    if mapping is not None:
        metadata = {
            "delta.columnMapping.id": mapping[0],
            "delta.columnMapping.physicalName": mapping[1],
        }
    return {"name": name, "type": type_name, "nullable": True, "metadata": metadata}


def metadata_action(
    *,
    table_id: str,
    name: str | None,
    fields: Sequence[Mapping[str, Any]],
    partition_by: Sequence[str],
    configuration: Mapping[str, str],
    created_ms: int,
) -> Action:
    return {
        "id": table_id,
        "name": name,
        "description": None,
        "format": {"provider": "parquet", "options": {}},
        "schemaString": dumps({"type": "struct", "fields": list(fields)}),
        "partitionColumns": list(partition_by),
        "configuration": configuration,  # the table's own dict, as the builder keeps it
        "createdTime": created_ms,
    }


def protocol_for(configuration: Mapping[str, str], column_mapping: bool) -> Action:
    """The lowest protocol the table properties need: legacy versions unless a feature that
    only exists as a table feature (deletion vectors, row tracking) is on."""
    conf = {k: v.lower() for k, v in configuration.items()}
    reader: list[str] = []
    writer: list[str] = []
    if conf.get("delta.enableDeletionVectors") == "true":
        reader.append("deletionVectors")
        writer.append("deletionVectors")
    if column_mapping:
        reader.append("columnMapping")
        writer.append("columnMapping")
    legacy = [
        (conf.get("delta.appendOnly") == "true", "appendOnly", 2),
        (any(k.startswith("delta.constraints.") for k in conf), "checkConstraints", 3),
        (conf.get("delta.enableChangeDataFeed") == "true", "changeDataFeed", 4),
    ]
    row_tracking = conf.get("delta.enableRowTracking") == "true"
    if "deletionVectors" in reader or row_tracking:
        writer += [name for on, name, _ in legacy if on]
        if row_tracking:
            writer += ["domainMetadata", "rowTracking"]
        return {
            "minReaderVersion": 3 if reader else 1,
            "minWriterVersion": 7,
            **({"readerFeatures": reader} if reader else {}),
            "writerFeatures": writer,
        }
    if column_mapping:
        return {"minReaderVersion": 2, "minWriterVersion": 5}
    return {
        "minReaderVersion": 1,
        "minWriterVersion": max([2] + [lv for on, _, lv in legacy if on]),
    }


def grown_protocol(old: Mapping[str, Any], new: Action) -> Action | None:
    """``new`` if it is more than ``old``, else None.

    Feature lists only grow: moving from legacy versions to table features keeps what the
    legacy versions implied (PROTOCOL.md), as Spark and delta-rs do.
    """
    old_features = set(Protocol.from_json(dumps(old)).features)
    if "writerFeatures" in new:
        new["writerFeatures"] = sorted(set(new["writerFeatures"]) | old_features)
        if "readerFeatures" in new:
            new["readerFeatures"] = sorted(
                set(new["readerFeatures"]) | set(old.get("readerFeatures") or ())
            )
    grows = (
        new["minReaderVersion"] > old["minReaderVersion"]
        or new["minWriterVersion"] > old["minWriterVersion"]
        or bool(set(new.get("writerFeatures") or ()) - old_features)
    )
    return new if grows else None
