"""Azure table URLs taken apart: every form users paste, to container, path and account.

``abfss://container@account.dfs.core.windows.net/path``, ``az://container/path``,
``https://account.blob.core.windows.net/container/path``, ``wasbs://``, sovereign clouds and
OneLake all come here. adlfs gets the account and its blob host explicitly, because its own URL
parsing only knows the public cloud.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

from deltaforensics.errors import UsageError


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
    elif scheme in ("https", "http") or looks_like_host(hostport):
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


def looks_like_host(netloc: str) -> bool:
    """``acct.dfs.<suffix>`` or ``acct.blob.<suffix>``: a host that names a storage account."""
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


__all__ = ["AzureUrl", "looks_like_host", "parse_azure_url"]
