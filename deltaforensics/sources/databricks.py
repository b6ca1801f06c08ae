"""A Databricks workspace reached through ``databricks-sdk``, for the failure sources
:mod:`.databricks_jobs` and :mod:`.databricks_queries`.

Authentication is the catalog names' (:mod:`deltaforensics.catalog.connection`): whatever the
SDK resolves — ``DATABRICKS_HOST`` with ``DATABRICKS_TOKEN``, OAuth M2M, the Azure CLI, a
managed identity, a ``~/.databrickscfg`` profile (``profile``, the CLI's
``--catalog-profile``). Paging and rate limits are the SDK's own: it retries HTTP 429 and 503,
waiting as ``Retry-After`` says, for up to ``RETRY_SECONDS`` in all.

Every failure is one :class:`~deltaforensics.errors.StorageError` naming the source and what is
wrong (exit 3); the workspace's own words are quoted only through the SDK's error message,
with every secret the configuration holds removed, and never a header.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from deltaforensics.errors import StorageError

RETRY_SECONDS = 120
T = TypeVar("T")
_WHAT = {
    401: "not signed in to the workspace (401: the token or profile is missing, wrong or expired)",
    403: "permission denied (403: the principal may not read it)",
    404: "not found in the workspace (404)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Workspace:
    """A workspace client, how sources name it, and the secrets never to show."""

    client: Any  # databricks.sdk.WorkspaceClient
    host: str
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def call(self, subject: str, thunk: Callable[[], T]) -> T:
        """``thunk()``, its failures as one-line StorageErrors naming ``subject``."""
        with self.errors(subject):
            return thunk()

    def pages(self, subject: str, items: Iterator[T]) -> Iterator[T]:
        """An SDK iterator (which pages itself), its failures as StorageErrors."""
        while True:
            with self.errors(subject):
                try:
                    item = next(items)
                except StopIteration:
                    return
            yield item

    @contextmanager
    def errors(self, subject: str) -> Iterator[None]:
        try:
            yield
        except StorageError:
            raise
        except Exception as exc:  # the SDK's errors, requests', auth's: one line each
            raise StorageError(subject, self.reason(exc)) from None

    def reason(self, exc: BaseException) -> str:
        status = _status(exc)
        # the server's own words; the SDK appends its configuration ("Config: host=…"): cut
        said = " ".join(str(exc).split()).split(" Config: ")[0].split("Config: ")[0]
        for secret in self.secrets:
            said = said.replace(secret, "***")
        text = _WHAT.get(status or 0, f"the workspace answered HTTP {status}" if status else "")
        if not text:
            text = f"the workspace at {self.host} cannot be reached or refused the request"
        if said:
            text += f" [{said[:160]}]"
        return text


def connect(subject: str, profile: str | None = None) -> Workspace:
    """The workspace the SDK's configuration names; StorageError naming ``subject`` when
    there is none, the SDK is missing, or the credential cannot be resolved."""
    try:
        from databricks.sdk import WorkspaceClient  # noqa: PLC0415
        from databricks.sdk.core import Config  # noqa: PLC0415
    except ImportError:
        raise StorageError(
            subject,
            "reading Databricks needs the databricks-sdk package "
            "(pip install 'deltaforensics[catalog]')",
        ) from None
    try:
        kwargs: dict[str, Any] = {"retry_timeout_seconds": RETRY_SECONDS}
        if profile:
            kwargs["profile"] = profile
        config: Any = Config(**kwargs)
        host = config.host
    except Exception as exc:  # the SDK's ValueError, a bad profile file
        first = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise StorageError(
            subject,
            "no Databricks workspace to ask: set DATABRICKS_HOST and a credential, or a "
            f"~/.databrickscfg profile (databricks-sdk: {first})",
        ) from None
    if not host:
        raise StorageError(subject, "no Databricks workspace to ask: set DATABRICKS_HOST")
    secrets = tuple(s for s in (config.token, config.client_secret, config.password) if s)
    return Workspace(client=WorkspaceClient(config=config), host=host, secrets=secrets)


def _status(exc: BaseException) -> int | None:
    """The HTTP status behind an SDK error (its class says it; the response when kept)."""
    from databricks.sdk import errors  # noqa: PLC0415

    for cls, status in (
        (errors.Unauthenticated, 401),
        (errors.PermissionDenied, 403),
        (errors.NotFound, 404),
        (errors.TooManyRequests, 429),
    ):
        if isinstance(exc, cls):
            return status
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None
