"""Remote table locations: URL form -> (filesystem, root, credential-free display URI).

ADLS specifics live in :mod:`deltaforensics.log.azure`, S3's in :mod:`deltaforensics.log.s3` and
GCS's in :mod:`deltaforensics.log.gcs`; ``memory://`` (an in-process filesystem,
for tests and embedding) and a filesystem the embedding program registered with fsspec itself go
straight through ``fsspec.core.url_to_fs``. Every other scheme is refused before any client is
made: a plain ``http://`` once reached fsspec and failed late and obscurely (a 403).
"""

from __future__ import annotations

from urllib.parse import urlparse

import fsspec
from fsspec.registry import known_implementations, registry

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.log.resolved_location import ResolvedLocation, plain_reason

AZURE_SCHEMES = ("abfs", "abfss", "az", "azure", "wasb", "wasbs")
S3_SCHEMES = ("s3", "s3a")
GCS_SCHEMES = ("gs", "gcs")
SUPPORTED_FORMS = (
    "a local path, file://, s3://, s3a://, gs://, abfss://, abfs://, az://, azure://, wasbs://, wasb://, "
    "https://ACCOUNT.dfs.core.windows.net/CONTAINER/PATH (or .blob., a sovereign cloud's "
    "suffix, onelake.dfs.fabric.microsoft.com)"
)


def resolve_remote(uri: str, storage_options: dict[str, str]) -> ResolvedLocation:
    parts = urlparse(uri)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    is_azure_https = scheme == "https" and (
        ".dfs." in host or ".blob." in host or host.startswith("onelake.")
    )
    if scheme in AZURE_SCHEMES or is_azure_https:
        from deltaforensics.log import azure  # noqa: PLC0415 - adlfs is heavy to import

        return azure.resolve(uri, storage_options)
    if scheme in S3_SCHEMES:
        from deltaforensics.log.s3 import s3_filesystem as s3  # noqa: PLC0415 - s3fs is heavy too

        return s3.resolve(uri, storage_options)
    if scheme in GCS_SCHEMES:
        from deltaforensics.log.gcs import gcs_filesystem as gcs  # noqa: PLC0415 - so is gcsfs

        return gcs.resolve(uri, storage_options)
    if not _registered_in_process(scheme):
        raise unsupported_location(scheme, host)
    try:
        fs, root = fsspec.core.url_to_fs(uri, **storage_options)
    except (ImportError, ValueError) as exc:
        raise StorageError(uri, f"cannot open this URL scheme: {exc}") from None
    return ResolvedLocation(fs=fs, root=root, display_uri=uri, classify=plain_reason)


def _registered_in_process(scheme: str) -> bool:
    """``memory://``, or a filesystem the embedding program registered with fsspec itself
    (``fsspec.register_implementation``): it chose that store knowingly. fsspec's own catalogue
    of protocols (http, hdfs, ...) is what this tool does not read."""
    return scheme == "memory" or (scheme in registry and scheme not in known_implementations)


def unsupported_location(scheme: str, host: str) -> UsageError:
    """The one-line refusal of a table URL this tool does not read (exit code 2)."""
    what = (
        f"https:// host '{host}' (only Azure storage hosts)"
        if scheme == "https"
        else f"URL scheme '{scheme}://'"
    )
    return UsageError(f"unsupported table location: {what}; supported: {SUPPORTED_FORMS}")
