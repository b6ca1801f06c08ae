"""``AlterTable``: the table-level statements (ALTER TABLE ... and protocol upgrades).

They write metaData and protocol rather than files, and each engine names them differently
(Spark ``ADD COLUMNS``/``UPGRADE PROTOCOL``, delta-rs ``ADD COLUMN``/``ADD FEATURE``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

from tests.support.files import Action, dumps
from tests.support.table_log import CommitOptions, TableLog


class AlterTable(TableLog):
    """``TableLog`` plus the statements that change the table's definition."""

    def set_properties(
        self, properties: Mapping[str, str], **options: Unpack[CommitOptions]
    ) -> int:
        """ALTER TABLE SET TBLPROPERTIES: new metaData (+ protocol when a feature needs it)."""
        metadata = self.refresh_metadata({}, {**self.configuration, **properties})
        protocol = self.upgraded_protocol()
        params = {"properties": dumps(dict(properties))}
        return self.commit(
            "SET TBLPROPERTIES", parameters=params, metadata=metadata, protocol=protocol, **options
        )

    def add_columns(
        self,
        columns: Mapping[str, str] | Sequence[tuple[str, str]],
        **options: Unpack[CommitOptions],
    ) -> int:
        """ALTER TABLE ADD COLUMNS (Spark) / ``ADD COLUMN`` (delta-rs ``alter.add_columns``);
        ``columns`` is ``{"name": "type"}`` or ``[("name", "type"), ...]``."""
        columns = dict(columns)
        metadata = self.refresh_metadata(columns, self.configuration)
        fields = self.fields_named(columns)
        if self.writer_for(options).family == "delta-rs":
            return self.commit(
                "ADD COLUMN", parameters={"fields": dumps(fields)}, metadata=metadata, **options
            )
        params = {"columns": dumps([{"column": f} for f in fields])}
        return self.commit("ADD COLUMNS", parameters=params, metadata=metadata, **options)

    def add_constraint(self, name: str, expr: str, **options: Unpack[CommitOptions]) -> int:
        """ALTER TABLE ADD CONSTRAINT: reads the whole table, so never a blind commit."""
        metadata = self.refresh_metadata(
            {}, {**self.configuration, f"delta.constraints.{name}": expr}
        )
        protocol = self.upgraded_protocol()
        params = (
            {"constraints": dumps([{"name": name, "expr": expr}])}
            if self.writer_for(options).family == "delta-rs"
            else {"name": name, "expr": expr}
        )
        return self.commit(
            "ADD CONSTRAINT", parameters=params, metadata=metadata, protocol=protocol, **options
        )

    def upgrade_protocol(
        self,
        min_reader: int,
        min_writer: int,
        *,
        reader_features: Sequence[str] | None = None,
        writer_features: Sequence[str] | None = None,
        **options: Unpack[CommitOptions],
    ) -> int:
        protocol: Action = {"minReaderVersion": min_reader, "minWriterVersion": min_writer}
        if reader_features is not None:
            protocol["readerFeatures"] = list(reader_features)
        if writer_features is not None:
            protocol["writerFeatures"] = list(writer_features)
        self.explicit_protocol = protocol
        if self.writer_for(options).family == "delta-rs":
            params = {
                "name": dumps(list(writer_features or ())),
                "allowProtocolVersionsIncrease": "true",
            }
            return self.commit("ADD FEATURE", parameters=params, protocol=protocol, **options)
        return self.commit(
            "UPGRADE PROTOCOL",
            parameters={"newProtocol": dumps(protocol)},
            protocol=protocol,
            **options,
        )
