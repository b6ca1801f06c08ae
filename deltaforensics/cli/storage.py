"""The table's storage, opened with the options of ``--storage-option`` and
``--storage-options-file``; their secrets are remembered so that no error message shows them.

A TABLE that is not an existing local path and reads ``catalog.schema.table`` is a Unity
Catalog name (:mod:`deltaforensics.catalog`): its location and a vended credential come from
the catalog, and the catalog's token and the vended SAS are remembered as secrets too.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from deltaforensics.cli.invocation import Invocation
from deltaforensics.cli.options import CatalogAccess, StorageAccess

if TYPE_CHECKING:
    from deltaforensics.model.diagnostics import Diagnostic


def open_table(
    table: str,
    access: StorageAccess,
    invocation: Invocation,
    catalog: CatalogAccess | None = None,
) -> Any:
    """The log store of ``table`` (a path, a URL, or a catalog name)."""
    from deltaforensics.analysis import open_store  # noqa: PLC0415

    options = storage_options(access, invocation)
    name = catalog_name(table)
    if name is None:
        return open_store(table, options)
    from deltaforensics.catalog.connection import connect  # noqa: PLC0415
    from deltaforensics.catalog.tables import open_catalog_table  # noqa: PLC0415

    given = catalog or CatalogAccess()
    connection = connect(
        str(name), url=given.catalog_url, profile=given.catalog_profile, environ=os.environ
    )
    invocation.secrets = (*invocation.secrets, *connection.secrets)

    def remember(secrets: tuple[str, ...]) -> None:
        invocation.secrets = (*invocation.secrets, *secrets)

    opened = open_catalog_table(name, connection.client, options, on_secret=remember)
    invocation.catalog_notes = (*invocation.catalog_notes, *filter(None, [opened.unseen]))
    return opened.store


def catalog_name(table: str) -> Any:
    """The Unity Catalog name ``table`` spells, unless it is an existing local path or a URL."""
    if "://" in table or os.path.exists(table):  # noqa: PTH110 - a str path or URL
        return None
    from deltaforensics.catalog.names import parse_table_name  # noqa: PLC0415

    return parse_table_name(table)


def storage_options(access: StorageAccess, invocation: Invocation) -> dict[str, str]:
    if not access.storage_option and access.storage_options_file is None:
        return {}
    from deltaforensics.log.options import load_storage_options, secret_values  # noqa: PLC0415

    options = load_storage_options(access.storage_option or [], access.storage_options_file)
    invocation.secrets = tuple(secret_values(options))
    return options


def catalog_diagnostics(invocation: Invocation) -> list[Diagnostic]:
    """What the catalog could not show (the newest ratified versions of a catalog-managed
    table), as report diagnostics."""
    from deltaforensics.model.diagnostic_codes import CATALOG_MANAGED_TABLE  # noqa: PLC0415
    from deltaforensics.model.diagnostics import warning  # noqa: PLC0415

    return [warning(CATALOG_MANAGED_TABLE, note) for note in invocation.catalog_notes]
