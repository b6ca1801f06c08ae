"""The table's storage, opened with the options of ``--storage-option`` and
``--storage-options-file``; their secrets are remembered so that no error message shows them."""

from __future__ import annotations

from typing import Any

from deltaforensics.cli.invocation import Invocation
from deltaforensics.cli.options import StorageAccess


def open_table(table: str, access: StorageAccess, invocation: Invocation) -> Any:
    """The log store of ``table`` (a path or URL)."""
    from deltaforensics.analysis import open_store  # noqa: PLC0415

    return open_store(table, storage_options(access, invocation))


def storage_options(access: StorageAccess, invocation: Invocation) -> dict[str, str]:
    if not access.storage_option and access.storage_options_file is None:
        return {}
    from deltaforensics.log.options import load_storage_options, secret_values  # noqa: PLC0415

    options = load_storage_options(access.storage_option or [], access.storage_options_file)
    invocation.secrets = tuple(secret_values(options))
    return options
