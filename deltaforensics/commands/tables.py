"""The table a request names, opened: a path or URL through its storage options, or a Unity
Catalog name (``catalog.schema.table``) through its catalog, whose token and vended credential
are secrets too (:mod:`deltaforensics.catalog`). What the catalog could not show comes back as
diagnostics for the report."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from deltaforensics.catalog.names import TableName
from deltaforensics.commands.reading import Progress, spark_settings
from deltaforensics.commands.requests import SparkChoice, Table, TableAccess
from deltaforensics.engines.base import Engine
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.options import (
    load_storage_options,
    redact,
    secret_values,
    storage_options_from_env,
)
from deltaforensics.log.storage import LogStore, ReportingStore
from deltaforensics.model.diagnostic_codes import CATALOG_MANAGED_TABLE
from deltaforensics.model.diagnostics import Diagnostic, warning


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenedTable:
    """The table's log store; the same store reporting its reads to the progress display
    (``watched``); the engine that reads it (``reader``; ``None``: the default polars engine)."""

    store: LogStore
    watched: LogStore
    reader: Engine | None = None
    notes: tuple[Diagnostic, ...] = ()  # what the catalog could not show

    @property
    def read_through(self) -> LogStore:
        """The store a load reads: the watched one, unless Spark reads the log itself (its
        executors' reads never pass through this process's store)."""
        return self.watched if self.reader is None else self.store


def open_table(
    table: Table, access: TableAccess, spark: SparkChoice | None, progress: Progress
) -> OpenedTable:
    """The log store of ``table`` (a store, a path, a URL, or a catalog name), the engine
    ``spark`` names for it, and the store as ``progress`` watches it."""
    settings = None if spark is None else spark_settings(spark.conf)
    store, notes = _store(table, access)
    watched = ReportingStore(store, progress.on_read) if progress.wanted else store
    if spark is None or settings is None:
        return OpenedTable(store=store, watched=watched, notes=notes)
    from deltaforensics.engines.spark_engine import SparkEngine  # noqa: PLC0415

    engine = SparkEngine(store, master=spark.master, conf=settings)
    return OpenedTable(store=store, watched=watched, reader=engine, notes=notes)


def _store(table: Table, access: TableAccess) -> tuple[LogStore, tuple[Diagnostic, ...]]:
    if not isinstance(table, str | os.PathLike):
        return table, ()
    uri = os.fspath(table)
    options = dict(access.storage_options)
    if options and access.on_secret is not None:
        access.on_secret(tuple(secret_values(options)))
    name = catalog_name(uri)
    if name is None:
        return FsspecLogStore.from_uri(uri, options), ()
    from deltaforensics.catalog.connection import connect  # noqa: PLC0415
    from deltaforensics.catalog.tables import open_catalog_table  # noqa: PLC0415

    tell = access.on_secret or (lambda _: None)
    connection = connect(
        str(name), url=access.catalog_url, profile=access.catalog_profile, environ=os.environ
    )
    tell(tuple(connection.secrets))
    opened = open_catalog_table(name, connection.client, options, on_secret=tell)
    notes = tuple(warning(CATALOG_MANAGED_TABLE, n) for n in filter(None, [opened.unseen]))
    return opened.store, notes


def catalog_name(table: str) -> TableName | None:
    """The Unity Catalog name ``table`` spells, unless it is an existing local path or a URL."""
    if "://" in table or os.path.exists(table):  # noqa: PTH110 - a str path or URL
        return None
    from deltaforensics.catalog.names import parse_table_name  # noqa: PLC0415

    return parse_table_name(table)


def storage_options(pairs: Sequence[str], file: Path | None) -> dict[str, str]:
    """``--storage-option`` pairs over ``--storage-options-file`` (empty without either)."""
    if not pairs and file is None:
        return {}
    return load_storage_options(pairs, file)


def secrets_of(options: Mapping[str, str]) -> set[str]:
    """The values of ``options`` no message may show."""
    return set(secret_values(options))


def without_secrets(text: str, known: Iterable[str]) -> str:
    """``text`` without the secrets ``known`` and those of the ``AZURE_*`` environment."""
    secrets = set(secret_values(storage_options_from_env(os.environ)))
    secrets.update(s for s in known if s)
    return redact(text, sorted(secrets))
