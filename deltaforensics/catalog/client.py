"""The Unity Catalog REST calls this tool makes, over plain HTTP with the headers the
connection's authentication gives (:mod:`deltaforensics.catalog.connection`).

Every failure is one :class:`~deltaforensics.errors.CatalogError` naming the table and what
is wrong; a response body is quoted only through its ``error_code`` and a shortened
``message`` (the catalog's own words), never its headers, so no token is ever echoed.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from deltaforensics.errors import CatalogError

API_PREFIX = "/api/2.1/unity-catalog"
TIMEOUT_SECONDS = 30
_WHAT = {
    401: "not signed in to the catalog (401: check the token or profile)",
    403: "permission denied (403: the principal lacks SELECT or USE privileges on it)",
    404: "no such table in the catalog (404)",
}


class CatalogApiUnavailableError(CatalogError):
    """The server does not offer an optional API (the commits API of catalog-managed tables)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogClient:
    """One catalog server: ``base_url`` ends before ``/api/2.1/unity-catalog``."""

    base_url: str
    headers: Callable[[], Mapping[str, str]]  # called per request: OAuth tokens refresh

    def get_table(self, full_name: str) -> dict[str, Any]:
        """``GET /tables/{full_name}``: the ``TableInfo``."""
        return self._call("GET", f"/tables/{quote(full_name, safe='')}", subject=full_name)

    def list_tables(self, catalog: str, schema: str) -> Iterator[dict[str, Any]]:
        """``GET /tables``: every ``TableInfo`` of a schema, page after page."""
        token: str | None = None
        subject = f"{catalog}.{schema}"
        while True:
            query = {"catalog_name": catalog, "schema_name": schema, "max_results": 50}
            if token:
                query["page_token"] = token
            page = self._call("GET", f"/tables?{urlencode(query)}", subject=subject)
            yield from page.get("tables") or []
            token = page.get("next_page_token")
            if not token:
                return

    def table_credentials(self, table_id: str, subject: str) -> dict[str, Any]:
        """``POST /temporary-table-credentials`` for READ: the ``TemporaryCredentials``."""
        body = {"table_id": table_id, "operation": "READ"}
        return self._call("POST", "/temporary-table-credentials", subject=subject, body=body)

    def ratified_commits(
        self, table_id: str, table_uri: str, start_version: int, subject: str
    ) -> dict[str, Any]:
        """``GET /delta/preview/commits`` (a GET with a body, as the spec has it): the commits
        the catalog ratified from ``start_version`` on that are not yet in ``_delta_log``."""
        body = {"table_id": table_id, "table_uri": table_uri, "start_version": start_version}
        return self._call(
            "GET", "/delta/preview/commits", subject=subject, body=body, optional=True
        )

    def _call(
        self,
        method: str,
        path: str,
        *,
        subject: str,
        body: Mapping[str, Any] | None = None,
        optional: bool = False,
    ) -> dict[str, Any]:
        url = self.base_url.rstrip("/") + API_PREFIX + path
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 - http(s) only, checked in connection
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            headers = self.headers()
        except (ValueError, OSError, RuntimeError) as exc:  # the SDK's auth failures
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CatalogError(subject, f"cannot authenticate to the catalog: {first}") from None
        for key, value in headers.items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
                payload = response.read()
        except urllib.error.HTTPError as exc:
            reason = _reason(exc.code, exc.read())
            if optional and exc.code in (404, 405, 501):
                raise CatalogApiUnavailableError(subject, reason) from None
            raise CatalogError(subject, reason) from None
        except (urllib.error.URLError, OSError) as exc:
            why = getattr(exc, "reason", exc)
            raise CatalogError(
                subject, f"the catalog at {self.base_url} cannot be reached: {why}"
            ) from None
        try:
            parsed = json.loads(payload or b"{}")
        except ValueError:
            raise CatalogError(subject, f"the catalog answered {path} with non-JSON") from None
        if not isinstance(parsed, dict):
            raise CatalogError(subject, f"the catalog answered {path} with a non-object")
        return parsed


PROBE_SECONDS = 3.0


def check_reachable(base_url: str, subject: str, timeout: float = PROBE_SECONDS) -> None:
    """A :class:`CatalogError` at once when nothing answers at ``base_url`` (refused, no
    such host, no answer within ``timeout``); any HTTP answer, an error status included,
    means a server is there. Asked before the databricks-sdk's own set-up, which waits its
    retry budget on an unreachable host and logs a line of its own (issue #32)."""
    request = urllib.request.Request(base_url, method="HEAD")  # noqa: S310 - http(s), checked by the caller
    try:
        with urllib.request.urlopen(request, timeout=timeout):  # noqa: S310
            return
    except urllib.error.HTTPError:
        return
    except (urllib.error.URLError, OSError, ValueError) as exc:
        why = getattr(exc, "reason", exc)
        raise CatalogError(subject, f"the catalog at {base_url} cannot be reached: {why}") from None


def _reason(status: int, body: bytes) -> str:
    """The catalog's error in one line: what it means, then its own code and words."""
    code = message = None
    try:
        doc = json.loads(body)
        if isinstance(doc, dict):
            code, message = doc.get("error_code"), doc.get("message")
    except ValueError:
        pass
    text = _WHAT.get(status, f"the catalog answered HTTP {status}")
    said = " ".join(str(p) for p in (code, message) if p)
    if said:
        said = said.replace("\n", " ")
        text += f" [{said[:160]}]"
    return text
