"""Vended temporary credentials as storage options of the existing ADLS store.

Unity Catalog answers ``temporary-table-credentials`` with one cloud's credential; for Azure
Data Lake Storage it is a user-delegation SAS (``azure_user_delegation_sas.sas_token``), good
for the table's location until ``expiration_time`` (epoch ms). The SAS and the account name of
the location are the adlfs options :mod:`deltaforensics.log.azure` already reads; options the
user gave (an endpoint, timeouts) are kept, but any credential of theirs gives way to the
vended one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from deltaforensics.errors import CatalogError
from deltaforensics.log.options import SECRET_OPTIONS, normalize_storage_options, secret_values


@dataclass(frozen=True, slots=True, kw_only=True)
class VendedCredential:
    storage_options: Mapping[str, str] = field(repr=False)
    expires_at_ms: int | None
    secrets: tuple[str, ...] = field(default=(), repr=False)


def vended_storage_options(
    subject: str, location: str, answer: Mapping[str, Any], given: Mapping[str, str]
) -> VendedCredential:
    """Storage options for ``location`` from the catalog's ``TemporaryCredentials``."""
    sas = (answer.get("azure_user_delegation_sas") or {}).get("sas_token")
    if not sas:
        other = next(
            (k for k in ("aws_temp_credentials", "gcp_oauth_token") if answer.get(k)), None
        )
        what = f"a {other.split('_')[0].upper()} credential" if other else "no credential"
        raise CatalogError(
            subject, f"the catalog vended {what} for {location}; this tool reads ADLS only"
        )
    account = _account(location)
    if account is None:
        raise CatalogError(subject, f"the catalog vended a SAS for {location}, not an ADLS URL")
    kept = {
        k: v for k, v in normalize_storage_options(dict(given)).items() if k not in SECRET_OPTIONS
    }
    kept.pop("account_name", None)
    expires = answer.get("expiration_time")
    return VendedCredential(
        storage_options={**kept, "account_name": account, "sas_token": sas.lstrip("?")},
        expires_at_ms=expires
        if isinstance(expires, int) and not isinstance(expires, bool)
        else None,
        secrets=tuple(sorted(secret_values({"sas_token": sas}) | {sas.lstrip("?")})),
    )


def _account(location: str) -> str | None:
    """``abfss://container@ACCOUNT.dfs.core.windows.net/...`` → ``ACCOUNT``."""
    host = urlparse(location).hostname or ""
    return host.split(".", 1)[0] or None if "." in host else None
