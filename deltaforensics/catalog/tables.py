"""A catalog table opened as a log store, and a schema's Delta tables listed.

What is refused, with one line naming the table (exit code 3): a name the catalog does not
know (404), one the principal may not read (403), a view, and a table whose format is not
Delta. A table on cloud storage is read with credentials the catalog vends for READ; a table
on a local path (an open-source server's ``file://`` tables) needs none.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from deltaforensics.catalog.client import CatalogApiUnavailableError, CatalogClient
from deltaforensics.catalog.credentials import vended_storage_options
from deltaforensics.catalog.names import SchemaName, TableName
from deltaforensics.catalog.stores import RatifiedCommit, RatifiedCommitsStore, RefreshingStore
from deltaforensics.errors import CatalogError
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import list_log
from deltaforensics.log.storage import LogStore

NOT_TABLES = frozenset({"VIEW", "MATERIALIZED_VIEW", "METRIC_VIEW"})
# table properties that mark a catalog-managed table (Delta's catalogManaged feature, and its
# preview name as Unity Catalog sets it)
CATALOG_MANAGED = ("delta.feature.catalogManaged", "delta.feature.catalogOwned-preview")


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogTable:
    """An opened catalog table: its store, and what the catalog could not show of it."""

    name: str
    location: str
    store: LogStore
    unseen: str | None = None  # why the newest ratified versions may be missing
    ratified: int = 0  # unpublished commits read from the catalog
    secrets: tuple[str, ...] = field(default=(), repr=False)


def open_catalog_table(
    name: TableName,
    client: CatalogClient,
    given_options: Mapping[str, str],
    *,
    on_secret: Callable[[tuple[str, ...]], None] = lambda _: None,
) -> CatalogTable:
    """The store of ``name``; ``on_secret`` learns every vended secret before it can be used
    (so that no message, even mid-open, can show it)."""
    return open_table_info(
        str(name), client.get_table(name.full_name), client, given_options, on_secret=on_secret
    )


def open_table_info(
    subject: str,
    info: Mapping[str, Any],
    client: CatalogClient,
    given_options: Mapping[str, str],
    *,
    on_secret: Callable[[tuple[str, ...]], None] = lambda _: None,
) -> CatalogTable:
    """The store of the table ``info`` (a ``TableInfo``, e.g. from a schema's listing)."""
    location = checked_location(subject, info)
    if _is_local(location):
        store: LogStore = FsspecLogStore.from_uri(location)
    else:
        store = _vended_store(subject, client, info, location, given_options, on_secret)
    return _with_ratified(subject, client, info, location, store)


def checked_location(subject: str, info: Mapping[str, Any]) -> str:
    """The ``storage_location`` of a Delta table's ``TableInfo``; refuses anything else."""
    kind = str(info.get("table_type") or "").upper()
    if kind in NOT_TABLES:
        raise CatalogError(subject, f"a {kind.lower().replace('_', ' ')}, not a Delta table")
    fmt = str(info.get("data_source_format") or "").upper()
    if fmt != "DELTA":
        raise CatalogError(subject, f"not a Delta table (format {fmt or 'unknown'})")
    location = info.get("storage_location")
    if not isinstance(location, str) or not location:
        raise CatalogError(subject, "the catalog gives no storage location for it")
    return location


def schema_tables(
    client: CatalogClient, schema: SchemaName, pattern: str = "*"
) -> list[dict[str, Any]]:
    """The ``TableInfo`` of every Delta table of ``schema`` whose name matches the glob
    ``pattern``, by name; views and other formats are left out."""
    found = [
        t
        for t in client.list_tables(schema.catalog, schema.schema)
        if fnmatch.fnmatchcase(str(t.get("name", "")), pattern)
        and str(t.get("table_type") or "").upper() not in NOT_TABLES
        and str(t.get("data_source_format") or "").upper() == "DELTA"
        and t.get("storage_location")
    ]
    return sorted(found, key=lambda t: str(t["name"]))


def _is_local(location: str) -> bool:
    return location.startswith("file:") or "://" not in location


def _vended_store(
    subject: str,
    client: CatalogClient,
    info: Mapping[str, Any],
    location: str,
    given: Mapping[str, str],
    on_secret: Callable[[tuple[str, ...]], None],
) -> LogStore:
    table_id = info.get("table_id")
    if not isinstance(table_id, str) or not table_id:
        raise CatalogError(subject, "the catalog gives no table_id to vend credentials for")

    def open_store() -> tuple[LogStore, int | None]:
        vended = vended_storage_options(
            subject, location, client.table_credentials(table_id, subject), given
        )
        on_secret(vended.secrets)
        return FsspecLogStore.from_uri(location, vended.storage_options), vended.expires_at_ms

    return RefreshingStore(open_store)


def _with_ratified(
    subject: str, client: CatalogClient, info: Mapping[str, Any], location: str, store: LogStore
) -> CatalogTable:
    """For a catalog-managed table, its ratified commits from the commits API; where the
    server has none, what cannot be seen."""
    properties = info.get("properties") or {}
    managed = any(
        str(properties.get(k, "")).lower() in ("supported", "enabled") for k in CATALOG_MANAGED
    )
    if not managed:
        return CatalogTable(name=subject, location=location, store=store)
    commits = list_log(store).commits
    published = max(commits) if commits else -1
    try:
        answer = client.ratified_commits(str(info["table_id"]), location, published + 1, subject)
    except CatalogApiUnavailableError:
        blind = (
            f"{subject} is catalog-managed and this catalog offers no commits API: versions "
            f"after {published} that it has ratified are not in _delta_log yet and not seen here"
        )
        return CatalogTable(name=subject, location=location, store=store, unseen=blind)
    ratified = [
        RatifiedCommit(
            version=int(c["version"]),
            file_name=str(c["file_name"]),
            size=c.get("file_size"),
            modified_ms=c.get("file_modification_timestamp"),
        )
        for c in answer.get("commits") or []
        if int(c.get("version", -1)) > published
    ]
    latest = answer.get("latest_table_version")
    seen = max([published, *(c.version for c in ratified)])
    unseen = None
    if isinstance(latest, int) and latest > seen:
        unseen = (
            f"the catalog's latest version of {subject} is {latest}, but it listed ratified "
            f"commits only up to {seen}"
        )
    wrapped = RatifiedCommitsStore(store, ratified) if ratified else store
    return CatalogTable(
        name=subject, location=location, store=wrapped, unseen=unseen, ratified=len(ratified)
    )
