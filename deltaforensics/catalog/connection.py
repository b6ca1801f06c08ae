"""Which catalog a name is looked up in, and how the requests authenticate.

Two kinds of server:

- an open-source Unity Catalog server: a base URL (``--catalog-url`` or
  ``DELTAFORENSICS_UC_URL``), with an optional bearer token in ``DELTAFORENSICS_UC_TOKEN``;
- a Databricks workspace: everything the ``databricks-sdk`` resolves — ``DATABRICKS_HOST`` with
  ``DATABRICKS_TOKEN``, OAuth machine-to-machine (``DATABRICKS_CLIENT_ID``/``_SECRET``), the
  Azure CLI or a managed identity, and ``~/.databrickscfg`` profiles (``--catalog-profile``).
  The SDK's headers are asked for on every request, so its OAuth tokens refresh themselves.

The token itself is returned to the caller only to be kept out of every message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from deltaforensics.catalog.client import CatalogClient, check_reachable
from deltaforensics.errors import CatalogError, UsageError
from deltaforensics.model.quiet import quiet_logger

URL_VARIABLE = "DELTAFORENSICS_UC_URL"
NO_CATALOG = (
    "no catalog to ask: set DATABRICKS_HOST (and a credential), a ~/.databrickscfg profile, "
    "or --catalog-url / DELTAFORENSICS_UC_URL for an open-source server"
)
TOKEN_VARIABLE = "DELTAFORENSICS_UC_TOKEN"  # noqa: S105 - a variable name, not a token


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogConnection:
    """A catalog client and the secrets its requests carry (never to be shown)."""

    client: CatalogClient
    secrets: tuple[str, ...] = field(default=(), repr=False)


def connect(
    subject: str,
    *,
    url: str | None,
    profile: str | None,
    environ: Mapping[str, str],
) -> CatalogConnection:
    """The catalog for ``subject`` (the name being resolved, for messages)."""
    url = url or environ.get(URL_VARIABLE) or None
    if url:
        if profile:
            raise UsageError("give --catalog-url or --catalog-profile, not both")
        parts = urlparse(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(f"--catalog-url {url!r}: not an http(s) URL")
        token = environ.get(TOKEN_VARIABLE, "").strip()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return CatalogConnection(
            client=CatalogClient(base_url=url, headers=lambda: headers),
            secrets=(token,) if token else (),
        )
    return _databricks(subject, profile, environ)


def _databricks(subject: str, profile: str | None, environ: Mapping[str, str]) -> CatalogConnection:
    # an unreachable DATABRICKS_HOST is said at once, before the SDK is even imported
    host = None if profile else environ.get("DATABRICKS_HOST", "").strip()
    if host:
        check_reachable(host if "://" in host else f"https://{host}", subject)
    try:
        from databricks.sdk.core import Config  # noqa: PLC0415
    except ImportError:
        raise CatalogError(
            subject,
            "a Unity Catalog name needs the databricks-sdk package "
            "(pip install 'deltaforensics[catalog]') or --catalog-url for an open-source server",
        ) from None
    try:
        with quiet_logger("databricks.sdk"):  # its probe fails: we say so
            config: Any = (
                Config(profile=profile, retry_timeout_seconds=10)
                if profile
                else Config(retry_timeout_seconds=10)
            )
        host = config.host
    except ValueError as exc:
        raise CatalogError(subject, f"{NO_CATALOG} (databricks-sdk: {_first_line(exc)})") from None
    if not host:
        raise CatalogError(subject, NO_CATALOG)
    headers: Callable[[], Mapping[str, str]] = config.authenticate
    secrets = tuple(s for s in (config.token, config.client_secret) if s)
    return CatalogConnection(client=CatalogClient(base_url=host, headers=headers), secrets=secrets)


def _first_line(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return first if len(first) <= 120 else first[:117] + "..."
