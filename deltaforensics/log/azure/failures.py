"""Azure failures as one short, redacted line that names the host and the credential.

The SDK's exceptions carry status codes, error codes, nested causes and sometimes secrets; a
user needs "authentication failed: account key from storage options was rejected".
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from azure.core.exceptions import (
    AzureError,
    ClientAuthenticationError,
    HttpResponseError,
    ServiceRequestError,
    ServiceResponseError,
)

from deltaforensics.log.options import redact


class AzureIOError(OSError):
    """An Azure failure already reduced to a safe one-line reason (fsspec_store.py retries by it)."""


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


__all__ = ["AzureErrorClassifier", "AzureIOError"]
