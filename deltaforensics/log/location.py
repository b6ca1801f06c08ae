"""Remote table locations: URL form -> (filesystem, root, credential-free display URI).

ADLS specifics live in :mod:`deltaforensics.log.azure`; other fsspec schemes (``s3://``,
``gs://``, ``memory://``) go straight through ``fsspec.core.url_to_fs``.
"""

from __future__ import annotations

from urllib.parse import urlparse

import fsspec

from deltaforensics.errors import StorageError
from deltaforensics.log.resolved_location import ResolvedLocation, plain_reason

AZURE_SCHEMES = ("abfs", "abfss", "az", "azure", "wasb", "wasbs")


def resolve_remote(uri: str, storage_options: dict[str, str]) -> ResolvedLocation:
    scheme = urlparse(uri).scheme.lower()
    host = urlparse(uri).netloc.lower()
    is_azure_https = scheme == "https" and (
        ".dfs." in host or ".blob." in host or host.startswith("onelake.")
    )
    if scheme in AZURE_SCHEMES or is_azure_https:
        from deltaforensics.log import azure  # noqa: PLC0415 - adlfs is heavy to import

        return azure.resolve(uri, storage_options)
    try:
        fs, root = fsspec.core.url_to_fs(uri, **storage_options)
    except (ImportError, ValueError) as exc:
        raise StorageError(uri, f"cannot open this URL scheme: {exc}") from None
    return ResolvedLocation(fs=fs, root=root, display_uri=uri, classify=plain_reason)
