"""Vended temporary credentials as storage options of the store the table lives on.

Unity Catalog answers ``temporary-table-credentials`` with one cloud's credential, good for
the table's location until ``expiration_time`` (epoch ms):

- ADLS: a user-delegation SAS (``azure_user_delegation_sas.sas_token``), read with the
  location's account name (:mod:`deltaforensics.log.azure`);
- S3: a temporary key pair (``aws_temp_credentials``: ``access_key_id``,
  ``secret_access_key``, ``session_token``; :mod:`deltaforensics.log.s3`);
- GCS: an OAuth 2 access token (``gcp_oauth_token.oauth_token``; :mod:`deltaforensics.log.gcs`).

Options the user gave (an endpoint, a region, timeouts) are kept, but any credential of theirs
gives way to the vended one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from deltaforensics.errors import CatalogError
from deltaforensics.log.gcs import gcs_connection as gcs
from deltaforensics.log.options import SECRET_OPTIONS, normalize_storage_options, secret_values
from deltaforensics.log.s3 import s3_connection as s3

# TemporaryCredentials field -> the store it is for
_KINDS = {
    "azure_user_delegation_sas": "ADLS",
    "aws_temp_credentials": "S3",
    "gcp_oauth_token": "GCS",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class VendedCredential:
    storage_options: Mapping[str, str] = field(repr=False)
    expires_at_ms: int | None
    secrets: tuple[str, ...] = field(default=(), repr=False)


def vended_storage_options(
    subject: str, location: str, answer: Mapping[str, Any], given: Mapping[str, str]
) -> VendedCredential:
    """Storage options for ``location`` from the catalog's ``TemporaryCredentials``."""
    scheme = urlparse(location).scheme.lower()
    store = "S3" if scheme in ("s3", "s3a") else "GCS" if scheme in ("gs", "gcs") else "ADLS"
    vended = next((k for k in _KINDS if answer.get(k)), None)
    if vended is None or _KINDS[vended] != store:
        what = f"a {_KINDS[vended]} credential" if vended else "no credential"
        raise CatalogError(
            subject, f"the catalog vended {what} for {location}, which is on {store}"
        )
    credential: Mapping[str, Any] = answer[vended]
    if store == "S3":
        options = _s3(subject, location, credential, given)
    elif store == "GCS":
        options = _gcs(subject, location, credential, given)
    else:
        options = _adls(subject, location, credential, given)
    secret = {k: v for k, v in options.items() if k not in given or given[k] != v}
    expires = answer.get("expiration_time")
    return VendedCredential(
        storage_options=options,
        expires_at_ms=expires
        if isinstance(expires, int) and not isinstance(expires, bool)
        else None,
        secrets=tuple(sorted(secret_values(secret))),
    )


def _adls(
    subject: str, location: str, credential: Mapping[str, Any], given: Mapping[str, str]
) -> dict[str, str]:
    sas = str(credential.get("sas_token") or "")
    account = _account(location)
    if account is None:
        raise CatalogError(subject, f"the catalog vended a SAS for {location}, not an ADLS URL")
    kept = {
        k: v for k, v in normalize_storage_options(dict(given)).items() if k not in SECRET_OPTIONS
    }
    kept.pop("account_name", None)
    return {**kept, "account_name": account, "sas_token": sas.lstrip("?")}


def _s3(
    subject: str, location: str, credential: Mapping[str, Any], given: Mapping[str, str]
) -> dict[str, str]:
    parts = {k: credential.get(k) for k in ("access_key_id", "secret_access_key", "session_token")}
    missing = [k for k, v in parts.items() if not isinstance(v, str) or not v]
    if missing:
        raise CatalogError(
            subject, f"the catalog's AWS credential for {location} lacks {', '.join(missing)}"
        )
    return {**s3.without_credentials(given), **{k: str(v) for k, v in parts.items()}}


def _gcs(
    subject: str, location: str, credential: Mapping[str, Any], given: Mapping[str, str]
) -> dict[str, str]:
    token = credential.get("oauth_token")
    if not isinstance(token, str) or not token:
        raise CatalogError(subject, f"the catalog's GCP credential for {location} has no token")
    return {**gcs.without_credentials(given), "oauth_token": token}


def _account(location: str) -> str | None:
    """``abfss://container@ACCOUNT.dfs.core.windows.net/...`` → ``ACCOUNT``."""
    host = urlparse(location).hostname or ""
    return host.split(".", 1)[0] or None if "." in host else None
