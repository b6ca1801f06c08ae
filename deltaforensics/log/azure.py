"""Azure Blob / ADLS Gen2 locations: URL forms, credentials, and one-line failure reasons.

Every URL form users paste (``abfss://container@account.dfs.core.windows.net/path``,
``az://container/path``, ``https://account.blob.core.windows.net/container/path``, ``wasbs://``,
sovereign clouds, OneLake) is parsed here into account, container and path. adlfs gets the
account and its blob host explicitly, because its own URL parsing only knows the public cloud.

Credentials are chosen here too, storage options first and ``AZURE_*`` variables second, so a
message can say which credential failed without ever showing it. The pipeline is pure up to
:func:`connect` (unit-testable without a server); :class:`AzureLogFileSystem` is the only part
that talks to Azure, and it turns SDK exceptions into short, redacted reasons.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import socket
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote, urlsplit

from adlfs import AzureBlobFileSystem
from azure.core.credentials import AccessToken, AzureNamedKeyCredential, AzureSasCredential
from azure.core.exceptions import (
    AzureError,
    ClientAuthenticationError,
    HttpResponseError,
    ResourceNotFoundError,
    ServiceRequestError,
    ServiceResponseError,
)
from azure.storage.blob.aio import BlobServiceClient
from fsspec.asyn import sync

from deltaforensics.errors import StorageError, UsageError
from deltaforensics.log.location import ResolvedLocation
from deltaforensics.log.options import (
    normalize_storage_options,
    parse_bool,
    parse_positive_int,
    parse_seconds,
    redact,
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
class AzureUrl:
    """A table URL taken apart. ``account`` is ``None`` for ``az://container/path`` forms."""

    container: str
    path: str  # blob prefix of the table root, no leading or trailing "/"
    account: str | None = None
    blob_host: str | None = None  # e.g. acct.blob.core.chinacloudapi.cn, derived from the URL
    sas_token: str | None = field(default=None, repr=False)
    display_uri: str  # the URL as typed, less query, fragment and any password


def parse_azure_url(uri: str) -> AzureUrl:
    parts = urlsplit(uri.strip())
    scheme = parts.scheme.lower()
    userinfo, at, hostport = parts.netloc.rpartition("@")
    display = f"{parts.scheme}://{userinfo.partition(':')[0]}{at}{hostport}{parts.path}"
    if ":" in userinfo:
        raise UsageError(f"{display}: a password in the URL is not used; pass storage options")
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    sas = parts.query if "sig" in {k.lower() for k in query} else None
    segments = [unquote(s) for s in parts.path.split("/") if s]
    account = blob_host = None
    if at:  # abfss://container@account.dfs.core.windows.net/path (also wasbs://, az://)
        container = unquote(userinfo)
        account, blob_host = _account_from_host(hostport, display)
    elif scheme in ("https", "http") or _looks_like_host(hostport):
        account, blob_host = _account_from_host(hostport, display)
        container = segments.pop(0) if segments else ""
    else:  # az://container/path, abfs://container/path: the account comes from options or env
        container = unquote(hostport)
    if segments and segments[-1] == "_delta_log":
        segments.pop()
    if not container:
        raise UsageError(f"{display}: the URL names no container")
    return AzureUrl(
        container=container,
        path="/".join(segments),
        account=account,
        blob_host=blob_host,
        sas_token=sas,
        display_uri=display,
    )


def _looks_like_host(netloc: str) -> bool:
    labels = netloc.lower().split(":")[0].split(".")
    return len(labels) > 2 and ("dfs" in labels[1:] or "blob" in labels[1:])


def _account_from_host(hostport: str, display: str) -> tuple[str, str]:
    """``acct.dfs.<suffix>`` -> (``acct``, ``acct.blob.<suffix>``): adlfs speaks the Blob API."""
    host, colon, port = hostport.lower().partition(":")
    labels = host.split(".")
    for i, label in enumerate(labels[1:-1], start=1):
        if label in ("dfs", "blob"):
            blob_host = ".".join([*labels[:i], "blob", *labels[i + 1 :]]) + colon + port
            return labels[0], blob_host
    err = UsageError(f"{display}: cannot tell the storage account from host '{hostport}'")
    err.add_note(
        "hint: use abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH, or "
        "az://CONTAINER/PATH with the account_name and endpoint storage options"
    )
    raise err


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
    given = normalize_storage_options(options)
    env = storage_options_from_env(environ)
    if url.sas_token and "sas_token" not in given:
        given["sas_token"] = url.sas_token
    if _CREDENTIAL_OPTIONS & given.keys():  # explicit credentials replace ambient ones wholesale
        env = {k: v for k, v in env.items() if k not in _CREDENTIAL_OPTIONS}
    settings = {**env, **given}
    source = {
        k: "the URL" if k == "sas_token" and v == url.sas_token else "storage options"
        for k, v in given.items()
    }
    source.update({k: "environment" for k in env if k not in given})
    flag = {
        k: parse_bool(k, settings.get(k, "false"))
        for k in ("use_emulator", "allow_http", "anon", "use_azure_cli", "use_fabric_endpoint")
    }
    conn = _parse_connection_string(settings.get("connection_string", ""), display)
    if "accountkey" in conn:
        _check_key(conn["accountkey"], display)

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
    if flag["use_emulator"] and not named:
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
    account = named[0][1]

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


def _account_from_endpoint(endpoint: str) -> str | None:
    """``https://acct.blob.core.windows.net`` or Azurite's ``http://host:port/acct``."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if _looks_like_host(host):
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


class AzureIOError(OSError):
    """An Azure failure already reduced to a safe one-line reason (storage.py retries by it)."""


@dataclass(frozen=True, slots=True)
class AzureErrorClassifier:
    """``classify`` hook: any exception -> one short reason, redacted, naming the host."""

    host: str
    credential: str
    anonymous: bool
    secrets: Mapping[str, str] = field(repr=False)

    def __call__(self, exc: BaseException) -> str:
        return redact(self._reason(exc), self.secrets)

    def _reason(self, exc: BaseException) -> str:
        if isinstance(exc, AzureIOError):
            return str(exc)
        if isinstance(exc, FileNotFoundError):
            return "path not found"
        if isinstance(exc, PermissionError):
            return f"not authorised: {self.credential} lacks permission for this"
        if isinstance(exc, HttpResponseError) and exc.status_code is not None:
            return self._http_reason(exc)
        if isinstance(exc, ClientAuthenticationError):  # no response: a token could not be had
            return f"authentication failed: {self.credential} could not get a token ({_first_line(exc)})"
        if isinstance(exc, ServiceRequestError | ServiceResponseError | OSError):
            return self._network_reason(exc)
        return f"{type(exc).__name__}: {_first_line(exc)}"

    def _network_reason(self, exc: BaseException) -> str:
        causes = list(_causes(exc))
        text = " ".join(str(c) for c in causes).lower()
        if (
            any(isinstance(c, TimeoutError) for c in causes)
            or "timed out" in text
            or "timeout" in text
        ):
            return f"cannot reach {self.host}: connection timed out"
        if any(isinstance(c, socket.gaierror) for c in causes) or "name or service" in text:
            return f"cannot reach {self.host}: host name not found (check the account name)"
        if any(isinstance(c, ConnectionRefusedError) for c in causes) or "refused" in text:
            return f"cannot reach {self.host}: connection refused"
        if isinstance(exc, ServiceResponseError):
            return f"connection reset by {self.host} while reading"
        return f"cannot reach {self.host}: {_first_line(exc)}"

    def _http_reason(self, exc: HttpResponseError) -> str:
        status = exc.status_code or 0
        raw = getattr(exc, "error_code", None)
        code = str(getattr(raw, "value", raw) or exc.reason or "")
        text = str(exc).lower()
        authn = (
            status == 401
            or code
            in ("AuthenticationFailed", "InvalidAuthenticationInfo", "NoAuthenticationInformation")
            or (status == 403 and "failed to authenticate" in text)
        )
        if authn and self.anonymous:
            return "authentication failed: anonymous access was refused; pass credentials"
        if authn:
            expired = (
                " (expired or not yet valid)" if "time frame" in text or "expir" in text else ""
            )
            return f"authentication failed: {self.credential} was rejected{expired}"
        if status == 403:
            return f"not authorised: {self.credential} lacks permission for this ({code or 403})"
        if status == 404:
            return "container not found" if code == "ContainerNotFound" else "path not found"
        if status >= 500 or status in (408, 429):
            return f"service temporarily unavailable (HTTP {status} {code})".rstrip()
        return f"HTTP {status} {code}: {_first_line(exc)}"

    def io_error(self, exc: AzureError) -> AzureIOError:
        return AzureIOError(self(exc))


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, the SDK's ``inner_exception``, and their causes and contexts."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        linked = (getattr(current, "inner_exception", None), current.__cause__, current.__context__)
        stack.extend(e for e in linked if isinstance(e, BaseException))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


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

    The SDK's own retries are off (``retry_total=0``): storage.py retries with backoff, and
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
