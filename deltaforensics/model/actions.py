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
        rf, wf = doc.get("readerFeatures"), doc.get("writerFeatures")
        return cls(
            min_reader_version=int(doc.get("minReaderVersion") or 1),
            min_writer_version=int(doc.get("minWriterVersion") or 2),
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
