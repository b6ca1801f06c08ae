"""Account, endpoint and credential for one table: chosen here, purely, before any SDK call.

Storage options come first and ``AZURE_*`` variables second, so a message can say which
credential failed without ever showing it. No network and no SDK objects: every choice is
unit-testable without a server.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from deltaforensics.errors import UsageError
from deltaforensics.log.azure.urls import AzureUrl, looks_like_host
from deltaforensics.log.options import (
    normalize_storage_options,
    parse_bool,
    parse_positive_int,
    parse_seconds,
    storage_options_from_env,
)

EMULATOR_ACCOUNT = "devstoreaccount1"
# Azurite's public, documented development key: not a secret, but redacted like one anyway.
EMULATOR_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
EMULATOR_URL = (
    "http://127.0.0.1:10000"  # object_store's default; AZURITE_BLOB_STORAGE_URL overrides
)
DEFAULT_MAX_CONCURRENCY = 32
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 60.0

CredentialKind = Literal[
    "connection string",
    "account key",
    "SAS token",
    "bearer token",
    "service principal",
    "Azure CLI",
    "DefaultAzureCredential",
    "anonymous access",
]
_CREDENTIAL_OPTIONS = frozenset(
    {
        "connection_string",
        "account_key",
        "sas_token",
        "bearer_token",
        "client_id",
        "client_secret",
        "tenant_id",
        "anon",
        "use_azure_cli",
    }
)
_TOKEN_KINDS = frozenset(
    {"bearer token", "service principal", "Azure CLI", "DefaultAzureCredential"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AzureConnection:
    """Everything needed to reach one table; secrets live in ``settings`` and never in repr."""

    account: str
    container: str
    path: str
    account_url: str  # Blob service URL, no SAS: https://acct.blob.core.windows.net, Azurite's
    credential: CredentialKind
    credential_source: str  # "storage options", "environment", "the URL", "emulator default"
    display_uri: str
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    settings: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def root(self) -> str:
        return f"{self.container}/{self.path}" if self.path else self.container

    @property
    def host(self) -> str:
        return urlsplit(self.account_url).netloc

    def describe_credential(self) -> str:
        if self.credential in ("DefaultAzureCredential", "anonymous access"):
            return self.credential
        return f"{self.credential} from {self.credential_source}"


def connect(
    url: AzureUrl, options: Mapping[str, str], environ: Mapping[str, str]
) -> AzureConnection:
    """Pick account, endpoint and credential. Pure: no network, no SDK objects."""
    display = url.display_uri
    settings, source = _settings(url, options, environ)
    flag = {
        k: parse_bool(k, settings.get(k, "false"))
        for k in ("use_emulator", "allow_http", "anon", "use_azure_cli", "use_fabric_endpoint")
    }
    conn = _parse_connection_string(settings.get("connection_string", ""), display)
    if "accountkey" in conn:
        _check_key(conn["accountkey"], display)
    account = _account(url, settings, conn, use_emulator=flag["use_emulator"])
    account_url = _account_url(url, settings, conn, flag, account, environ)
    scheme = urlsplit(account_url).scheme.lower()
    if scheme not in ("http", "https"):
        raise UsageError(f"{display}: the Azure endpoint must be an http(s) URL")
    if scheme == "http" and not (flag["allow_http"] or flag["use_emulator"] or conn):
        raise UsageError(
            f"{display}: endpoint {urlsplit(account_url).netloc} is plain http; "
            "set allow_http=true to allow unencrypted traffic"
        )
    kind, kind_source = _credential_kind(settings, flag, display)
    if kind == "account key" and "account_key" not in settings:
        settings["account_key"] = EMULATOR_KEY
    if kind == "account key":
        _check_key(settings["account_key"], display)
    if kind in _TOKEN_KINDS and scheme == "http":
        raise UsageError(
            f"{display}: Azure AD tokens are only sent over https, and the "
            f"endpoint {urlsplit(account_url).netloc} is http"
        )
    if "sas_token" in settings:
        settings["sas_token"] = settings["sas_token"].lstrip("?")
    return AzureConnection(
        account=account,
        container=url.container,
        path=url.path,
        account_url=account_url,
        credential=kind,
        credential_source=source.get(kind_source, kind_source or "ambient"),
        display_uri=display,
        settings=settings,
        max_concurrency=parse_positive_int(
            "max_concurrency", settings.get("max_concurrency", str(DEFAULT_MAX_CONCURRENCY))
        ),
        connect_timeout=parse_seconds(
            "connect_timeout", settings.get("connect_timeout", str(DEFAULT_CONNECT_TIMEOUT))
        ),
        read_timeout=parse_seconds(
            "read_timeout", settings.get("read_timeout", str(DEFAULT_READ_TIMEOUT))
        ),
    )


def _settings(
    url: AzureUrl, options: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Storage options over ``AZURE_*`` variables, and where each setting came from."""
    given = normalize_storage_options(options)
    env = storage_options_from_env(environ)
    if url.sas_token and "sas_token" not in given:
        given["sas_token"] = url.sas_token
    if _CREDENTIAL_OPTIONS & given.keys():  # explicit credentials replace ambient ones wholesale
        env = {k: v for k, v in env.items() if k not in _CREDENTIAL_OPTIONS}
    source = {
        k: "the URL" if k == "sas_token" and v == url.sas_token else "storage options"
        for k, v in given.items()
    }
    source.update({k: "environment" for k in env if k not in given})
    return {**env, **given}, source


def _account(
    url: AzureUrl, settings: Mapping[str, str], conn: Mapping[str, str], *, use_emulator: bool
) -> str:
    """The one account every place that names one agrees on."""
    display = url.display_uri
    named = [
        (n, a)
        for n, a in (
            ("the URL", url.account),
            ("account_name", settings.get("account_name")),
            ("the connection string", conn.get("accountname")),
            ("the connection string", _account_from_endpoint(conn.get("blobendpoint", ""))),
            ("the endpoint", _account_from_endpoint(settings.get("endpoint", ""))),
        )
        if a
    ]
    if use_emulator and not named:
        named.append(("emulator default", EMULATOR_ACCOUNT))
    for name, other in named[1:]:
        if other.lower() != named[0][1].lower():
            raise UsageError(
                f"{display}: {named[0][0]} names account '{named[0][1]}' but {name} names '{other}'"
            )
    if not named:
        err = UsageError(f"{display}: no storage account given")
        err.add_note(
            f"hint: use abfss://{url.container}@ACCOUNT.dfs.core.windows.net/..., or set "
            "the account_name storage option or AZURE_STORAGE_ACCOUNT_NAME"
        )
        raise err
    return named[0][1]


def _account_from_endpoint(endpoint: str) -> str | None:
    """``https://acct.blob.core.windows.net`` or Azurite's ``http://host:port/acct``."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if looks_like_host(host):
        return host.split(".")[0]
    return parts.path.strip("/").split("/")[0] or None


def _account_url(
    url: AzureUrl,
    settings: Mapping[str, str],
    conn: Mapping[str, str],
    flag: Mapping[str, bool],
    account: str,
    environ: Mapping[str, str],
) -> str:
    if conn:
        if "blobendpoint" in conn:
            return conn["blobendpoint"].rstrip("/")
        if conn.get("usedevelopmentstorage", "").lower() == "true":
            return f"{environ.get('AZURITE_BLOB_STORAGE_URL', EMULATOR_URL).rstrip('/')}/{account}"
        protocol = conn.get("defaultendpointsprotocol", "https")
        return f"{protocol}://{account}.blob.{conn.get('endpointsuffix', 'core.windows.net')}"
    if "endpoint" in settings:
        endpoint = settings["endpoint"].rstrip("/")
        bare = urlsplit(endpoint).path in ("", "/")
        return f"{endpoint}/{account}" if flag["use_emulator"] and bare else endpoint
    if flag["use_emulator"]:
        return f"{environ.get('AZURITE_BLOB_STORAGE_URL', EMULATOR_URL).rstrip('/')}/{account}"
    if "account_host" in settings:
        return f"https://{settings['account_host']}"
    if url.blob_host:
        return f"https://{url.blob_host}"
    suffix = "fabric.microsoft.com" if flag["use_fabric_endpoint"] else "core.windows.net"
    return f"https://{account}.blob.{suffix}"


def _credential_kind(
    settings: Mapping[str, str], flag: Mapping[str, bool], display: str
) -> tuple[CredentialKind, str]:
    """The first credential present wins, in the order adlfs and object_store agree on."""
    if "connection_string" in settings:
        return "connection string", "connection_string"
    if "account_key" in settings:
        return "account key", "account_key"
    if "sas_token" in settings:
        return "SAS token", "sas_token"
    if "bearer_token" in settings:
        return "bearer token", "bearer_token"
    principal = [k for k in ("client_id", "client_secret", "tenant_id") if k in settings]
    if "client_secret" in principal:
        if len(principal) < 3:
            raise UsageError(
                f"{display}: a service principal needs client_id, client_secret "
                "and tenant_id (or AZURE_CLIENT_ID, ...)"
            )
        return "service principal", "client_secret"
    if flag["anon"]:
        return "anonymous access", "anon"
    if flag["use_emulator"]:
        return "account key", "emulator default"
    if flag["use_azure_cli"]:
        return "Azure CLI", "use_azure_cli"
    return "DefaultAzureCredential", ""


def _parse_connection_string(text: str, display: str) -> dict[str, str]:
    if not text:
        return {}
    pairs = [item.partition("=") for item in text.split(";") if item.strip()]
    if any(not sep for _, sep, _ in pairs):
        raise UsageError(f"{display}: the connection string is not a list of Key=Value; parts")
    return {k.strip().lower(): v.strip() for k, _, v in pairs}


def _check_key(key: str, display: str) -> None:
    try:
        base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        raise UsageError(
            f"{display}: the account key is not valid base64 "
            "(an Azure account key is 88 characters ending in '==')"
        ) from None


__all__ = ["EMULATOR_KEY", "AzureConnection", "CredentialKind", "connect"]
