"""The state of a table at one version: a value, built by :mod:`deltaforensics.replay`."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.frames import partition_value_exprs
from deltaforensics.model.schemas import PARTITION_VALUES


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    version: int
    protocol: Protocol
    metadata: Metadata
    files: pl.DataFrame  # live file actions, files_schema(...) plus lifecycle columns
    app_transactions: dict[str, int] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)

    @property
    def num_files(self) -> int:
        return self.files.height

    def partition_values_logical(self) -> list[dict[str, str | None]]:
        """Per live file (in ``files`` order): logical column -> value, empty string as null."""
        if not self.metadata.partition_columns:
            return [{} for _ in range(self.files.height)]
        return self.files.select(self.partition_value_exprs()).to_dicts()

    def partition_value_exprs(self) -> list[pl.Expr]:
        """One expression per logical partition column over ``files``: the value, "" as null."""
        md = self.metadata
        physical = {c: md.physical_name(c) for c in md.partition_columns}
        exprs = partition_value_exprs(
            self.files.schema.get(PARTITION_VALUES), md.partition_columns, physical
        )
        return [
            pl.when(e == "").then(None).otherwise(e).alias(c)
            for e, c in zip(exprs, md.partition_columns, strict=True)
        ]

    @property
    def clustering_columns(self) -> tuple[str, ...]:
        from deltaforensics.model.clustering import clustering_columns  # noqa: PLC0415

        return clustering_columns(self.domains, self.metadata)
