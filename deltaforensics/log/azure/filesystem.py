"""The only part that talks to Azure: adlfs with our endpoint, credential and failures.

:func:`resolve` is the entry point :mod:`deltaforensics.log.location` calls for every Azure URL
form: parse the URL, choose the connection, and build the filesystem that turns SDK
exceptions into short, redacted reasons.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Any

from adlfs import AzureBlobFileSystem
from azure.core.credentials import AccessToken, AzureNamedKeyCredential, AzureSasCredential
from azure.core.exceptions import AzureError, ResourceNotFoundError
from azure.storage.blob.aio import BlobServiceClient
from fsspec.asyn import sync

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.log.azure.connection import AzureConnection, connect
from deltaforensics.log.azure.failures import AzureErrorClassifier
from deltaforensics.log.azure.urls import parse_azure_url
from deltaforensics.log.resolved_location import ResolvedLocation


class _StaticToken:
    """object_store's ``bearer_token``: one fixed token, as an async TokenCredential."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def get_token(self, *_scopes: str, **_kwargs: Any) -> AccessToken:
        return AccessToken(self._token, int(time.time()) + 3600)

    async def close(self) -> None:
        return None

    def __repr__(self) -> str:
        return "<bearer token>"


def _credential(conn: AzureConnection) -> Any:
    """The SDK credential object (adlfs closes token credentials); ``None`` when anonymous."""
    s = conn.settings
    if conn.credential == "account key":
        return AzureNamedKeyCredential(conn.account, s["account_key"])
    if conn.credential == "SAS token":
        return AzureSasCredential(s["sas_token"])
    if conn.credential == "bearer token":
        return _StaticToken(s["bearer_token"])
    if conn.credential == "service principal":
        from azure.identity.aio import ClientSecretCredential  # noqa: PLC0415 - slow import

        return ClientSecretCredential(s["tenant_id"], s["client_id"], s["client_secret"])
    if conn.credential == "Azure CLI":
        from azure.identity.aio import AzureCliCredential  # noqa: PLC0415 - slow import

        return AzureCliCredential()
    if conn.credential == "DefaultAzureCredential":
        from azure.identity.aio import DefaultAzureCredential  # noqa: PLC0415 - slow import

        return DefaultAzureCredential()
    return None


class AzureLogFileSystem(AzureBlobFileSystem):  # type: ignore[misc]  # adlfs is untyped
    """adlfs with our endpoint, credential, timeouts and concurrency, and readable failures.

    The SDK's own retries are off (``retry_total=0``): fsspec_store.py retries with backoff, and
    two layers of retries would multiply the wait before "cannot reach <host>".
    """

    cachable = False  # a forensic read must never see another store's cached listing

    def __init__(self, *, connection: AzureConnection, classify: AzureErrorClassifier) -> None:
        self.connection = connection
        self.classify = classify
        super().__init__(
            account_name=connection.account,
            credential=_credential(connection),
            connection_string=connection.settings.get("connection_string"),
            max_concurrency=min(connection.max_concurrency, 8),  # chunks of one large blob
            connection_timeout=connection.connect_timeout,
            read_timeout=connection.read_timeout,
            use_listings_cache=False,
        )

    def __repr__(self) -> str:
        return (
            f"<AzureLogFileSystem {self.connection.host} {self.connection.describe_credential()}>"
        )

    def _get_credential_from_service_principal(self) -> tuple[Any, None]:
        return self.credential, None  # ours is already chosen; adlfs must not read AZURE_* again

    def _get_default_azure_credential(self, **_kwargs: Any) -> tuple[Any, None]:
        return self.credential, None

    def do_connect(self) -> None:
        conn = self.connection
        transport: dict[str, Any] = {
            "retry_total": 0,
            "connection_timeout": conn.connect_timeout,
            "read_timeout": conn.read_timeout,
            "user_agent": "deltaforensics",
        }
        if conn.credential == "connection string":
            self.service_client = BlobServiceClient.from_connection_string(
                conn.settings["connection_string"], **transport
            )
        else:
            self.service_client = BlobServiceClient(
                conn.account_url, credential=self.credential, **transport
            )

    async def _ls(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._ls(path, *args, **kwargs)
        except FileNotFoundError:
            await self._raise_if_no_container(path)
            raise
        except AzureError as exc:
            raise self.classify.io_error(exc) from None

    async def _raise_if_no_container(self, path: str) -> None:
        container = self.split_path(path)[0]
        try:
            async with self.service_client.get_container_client(container) as client:
                await client.get_container_properties()
        except ResourceNotFoundError:
            conn = self.connection
            hint = (
                " (or it is private: no credentials were given)" if self.classify.anonymous else ""
            )
            raise StorageError(
                conn.display_uri,
                f"container '{container}' not found in storage account '{conn.account}'{hint}",
            ) from None
        except AzureError:
            return  # listing already said "not found"; let that stand

    async def _cat_file(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._cat_file(path, *args, **kwargs)
        except AzureError as exc:
            raise self.classify.io_error(exc) from None

    async def _info(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._info(path, *args, **kwargs)
        except AzureError as exc:
            raise self.classify.io_error(exc) from None

    async def _exists(self, path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._exists(path, *args, **kwargs)
        except AzureError as exc:
            raise self.classify.io_error(exc) from None

    def cat(
        self, path: Any, recursive: bool = False, on_error: str = "raise", **kwargs: Any
    ) -> Any:
        return sync(self.loop, self._cat, path, recursive=recursive, on_error=on_error, **kwargs)

    async def _cat(
        self,
        path: Any,
        recursive: bool = False,
        on_error: str = "raise",
        batch_size: int | None = None,
        **kwargs: Any,
    ) -> Any:
        """Concurrent fetch of a list of literal paths, at most ``max_concurrency`` at once.

        adlfs' own ``cat`` fetches one file after another and checks existence first; a log
        of thousands of small commits needs many requests in flight instead.
        """
        if isinstance(path, str) or recursive:
            return await super()._cat(
                path, recursive=recursive, on_error=on_error, batch_size=batch_size, **kwargs
            )
        limit = asyncio.Semaphore(min(batch_size or 1 << 30, self.connection.max_concurrency))

        async def fetch(one: str) -> bytes:
            async with limit:
                data: bytes = await self._cat_file(self._strip_protocol(one), **kwargs)
                return data

        got = await asyncio.gather(*(fetch(p) for p in path), return_exceptions=True)
        if on_error == "raise":
            for value in got:
                if isinstance(value, BaseException):
                    raise value
        return {
            p: v
            for p, v in zip(path, got, strict=True)
            if on_error != "omit" or not isinstance(v, BaseException)
        }


def resolve(uri: str, options: Mapping[str, str]) -> ResolvedLocation:
    """The ``location.resolve_remote`` entry point for every Azure URL form."""
    conn = connect(parse_azure_url(uri), options, os.environ)
    classify = AzureErrorClassifier(
        host=conn.host,
        credential=conn.describe_credential(),
        anonymous=conn.credential == "anonymous access",
        secrets=conn.settings,
    )
    try:
        fs = AzureLogFileSystem(connection=conn, classify=classify)
    except ValueError as exc:  # the SDK rejects a malformed connection string or URL here
        raise UsageError(f"{conn.display_uri}: invalid Azure settings: {classify(exc)}") from None
    return ResolvedLocation(fs=fs, root=conn.root, display_uri=conn.display_uri, classify=classify)


__all__ = ["AzureLogFileSystem", "resolve"]
