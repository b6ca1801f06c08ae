"""Non-file actions decoded into small frozen values (there are few of them per table)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Protocol:
    min_reader_version: int
    min_writer_version: int
    reader_features: tuple[str, ...] | None = None
    writer_features: tuple[str, ...] | None = None

    @classmethod
    def from_json(cls, text: str) -> Protocol:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError("protocol: not a JSON object")
        rf, wf = doc.get("readerFeatures"), doc.get("writerFeatures")
        return cls(
            min_reader_version=_protocol_int(doc, "minReaderVersion", 1),
            min_writer_version=_protocol_int(doc, "minWriterVersion", 2),
            reader_features=tuple(rf) if isinstance(rf, list) else None,
            writer_features=tuple(wf) if isinstance(wf, list) else None,
        )

    @property
    def features(self) -> tuple[str, ...]:
        """Explicit features, or those legacy protocol versions imply (PROTOCOL.md)."""
        explicit = set(self.reader_features or ()) | set(self.writer_features or ())
        w, r = self.min_writer_version, self.min_reader_version
        implied: set[str] = set()
        if self.writer_features is None:
            for level, names in (
                (2, ("appendOnly", "invariants")),
                (3, ("checkConstraints",)),
                (4, ("changeDataFeed", "generatedColumns")),
                (5, ("columnMapping",)),
                (6, ("identityColumns",)),
            ):
                if w >= level:
                    implied.update(names)
        if self.reader_features is None and r >= 2:
            implied.add("columnMapping")
        return tuple(sorted(explicit | implied))

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_reader_version": self.min_reader_version,
            "min_writer_version": self.min_writer_version,
            "reader_features": list(self.reader_features) if self.reader_features else None,
            "writer_features": list(self.writer_features) if self.writer_features else None,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Metadata:
    id: str | None
    name: str | None
    description: str | None
    partition_columns: tuple[str, ...]  # logical names, as in metaData.partitionColumns
    configuration: dict[str, str] = field(default_factory=dict)
    schema_string: str | None = None
    created_time: int | None = None
    physical_names: dict[str, str] = field(default_factory=dict)  # logical -> physical
    column_types: dict[str, str] = field(default_factory=dict)  # top-level logical -> type

    @classmethod
    def from_json(cls, text: str) -> Metadata:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError("metaData: not a JSON object")
        check_metadata(doc)
        schema_string = doc.get("schemaString")
        physical: dict[str, str] = {}
        types: dict[str, str] = {}
        if isinstance(schema_string, str):
            try:
                schema = json.loads(schema_string)
            except ValueError:
                schema = {}
            for f in schema.get("fields", []) if isinstance(schema, dict) else []:
                if not isinstance(f, dict) or "name" not in f:
                    continue
                md = f.get("metadata") or {}
                phys = md.get("delta.columnMapping.physicalName") if isinstance(md, dict) else None
                physical[f["name"]] = phys if isinstance(phys, str) else f["name"]
                t = f.get("type")
                types[f["name"]] = t if isinstance(t, str) else json.dumps(t)
        config = doc.get("configuration") or {}
        return cls(
            id=doc.get("id"),
            name=doc.get("name"),
            description=doc.get("description"),
            partition_columns=tuple(doc.get("partitionColumns") or ()),
            configuration={str(k): str(v) for k, v in config.items()}
            if isinstance(config, dict)
            else {},
            schema_string=schema_string if isinstance(schema_string, str) else None,
            created_time=doc.get("createdTime"),
            physical_names=physical,
            column_types=types,
        )

    @property
    def column_mapping_mode(self) -> str:
        return self.configuration.get("delta.columnMapping.mode", "none").lower()

    def physical_name(self, logical: str) -> str:
        if self.column_mapping_mode == "none":
            return logical
        return self.physical_names.get(logical, logical)

    @property
    def physical_partition_columns(self) -> tuple[str, ...]:
        return tuple(self.physical_name(c) for c in self.partition_columns)


INT32_MAX = 2**31 - 1


def _protocol_int(doc: dict[str, Any], key: str, default: int) -> int:
    """A protocol version: an ``Int`` in Delta's ``Protocol``, so Delta-Spark refuses any other."""
    value = doc.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT32_MAX:
        raise ValueError(f"protocol.{key}: {value!r} is not a protocol version (0..2^31-1)")
    return value


def check_metadata(doc: dict[str, Any]) -> None:
    """Shapes Delta requires and a coercion would hide (``"date"`` read as ``d, a, t, e``):
    ``ValueError`` naming the field. The commit reader asks it of every metaData action, so
    every command refuses such a log alike (issue #32)."""
    columns = doc.get("partitionColumns")
    if columns is not None and (
        not isinstance(columns, list) or not all(isinstance(c, str) for c in columns)
    ):
        raise ValueError(
            f"metaData.partitionColumns: {json.dumps(columns)[:60]} is not a list of strings"
        )
    config = doc.get("configuration")
    if config is not None and not isinstance(config, dict):
        raise ValueError(f"metaData.configuration: a {type(config).__name__}, expected an object")
