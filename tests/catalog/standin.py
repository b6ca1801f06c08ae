"""A STAND-IN for a Unity Catalog server, on 127.0.0.1, for the tests of ``deltaforensics.catalog``.

Why a stand-in: the open-source Unity Catalog server is not served by any package registry this
project's machines reach (Maven Central has only ``unitycatalog-client`` and
``unitycatalog-hadoop``; no ``unitycatalog-server``), and vending an ADLS SAS needs Azure AD,
which no test can reach. So this small server speaks the published REST API
(``api/all.yaml`` of the unitycatalog repository) for the calls the tool makes, with the
spec's request and response shapes and Databricks-style errors (``error_code``, ``message``):

- ``GET  /api/2.1/unity-catalog/tables/{full_name}`` → ``TableInfo``
- ``GET  /api/2.1/unity-catalog/tables?catalog_name&schema_name&max_results&page_token``
  → ``ListTablesResponse`` (paged: ``next_page_token``)
- ``POST /api/2.1/unity-catalog/temporary-table-credentials`` (``table_id``, ``operation``)
  → ``TemporaryCredentials`` (``azure_user_delegation_sas.sas_token``, ``expiration_time``)
- ``GET  /api/2.1/unity-catalog/delta/preview/commits`` (a GET with a JSON body)
  → ``DeltaGetCommitsResponse``; switched off, it answers 501 as a server without it would.
- ``GET  /.well-known/databricks-config``, which a Databricks workspace serves and
  databricks-sdk asks for when it is pointed at one (``DATABRICKS_HOST``).

The tables are real Delta logs (local folders, or Azurite containers for the SAS leg) and the
SAS it vends is a real one, made with azure-storage-blob's SAS helper for Azurite's account.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

PREFIX = "/api/2.1/unity-catalog"


@dataclass
class StandInCatalog:
    """What the stand-in serves; tests change it between calls."""

    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # full_name -> TableInfo
    forbidden: set[str] = field(default_factory=set)  # full names answered with 403
    token: str | None = None  # when set, every request must carry "Bearer <token>"
    vend: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # TableInfo -> credentials
    commits: dict[str, list[dict[str, Any]]] | None = None  # table_id -> DeltaCommitInfo list
    page_size: int = 7
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    url: str = ""

    def register(
        self,
        full_name: str,
        location: str,
        *,
        table_type: str = "EXTERNAL",
        data_source_format: str = "DELTA",
        properties: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        catalog, schema, name = full_name.split(".")
        info = {
            "name": name,
            "catalog_name": catalog,
            "schema_name": schema,
            "table_type": table_type,
            "data_source_format": data_source_format,
            "storage_location": location,
            "table_id": str(uuid.uuid4()),
            "properties": properties or {},
            "created_at": 1_790_000_000_000,
        }
        self.tables[full_name] = info
        return info

    def drop(self, full_name: str) -> None:
        del self.tables[full_name]


def _handler(catalog: StandInCatalog) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"{}") if length else {}

        def _send(self, status: int, doc: dict[str, Any]) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, code: str, message: str) -> None:
            self._send(status, {"error_code": code, "message": message})

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            catalog.requests.append((method, parts.path, dict(self.headers)))
            if parts.path == "/.well-known/databricks-config":  # what a workspace serves the SDK
                self._send(200, {"workspace_id": "1234567890123456"})
                return
            if not parts.path.startswith(PREFIX):
                self._error(404, "ENDPOINT_NOT_FOUND", f"no API at {parts.path}")
                return
            if catalog.token and self.headers.get("Authorization") != f"Bearer {catalog.token}":
                self._error(401, "UNAUTHENTICATED", "missing or wrong bearer token")
                return
            route = parts.path[len(PREFIX) :]
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if method == "GET" and route.startswith("/tables/"):
                self._get_table(unquote(route[len("/tables/") :]))
            elif method == "GET" and route == "/tables":
                self._list_tables(query)
            elif method == "POST" and route == "/temporary-table-credentials":
                self._credentials(self._body())
            elif method == "GET" and route == "/delta/preview/commits":
                self._commits(self._body())
            else:
                self._error(404, "ENDPOINT_NOT_FOUND", f"no {method} {route}")

        def _get_table(self, full_name: str) -> None:
            if full_name in catalog.forbidden:
                self._error(403, "PERMISSION_DENIED", f"User does not have SELECT on {full_name}")
            elif full_name not in catalog.tables:
                self._error(404, "TABLE_DOES_NOT_EXIST", f"Table '{full_name}' does not exist.")
            else:
                self._send(200, catalog.tables[full_name])

        def _list_tables(self, query: dict[str, str]) -> None:
            wanted = [
                t
                for name, t in sorted(catalog.tables.items())
                if t["catalog_name"] == query.get("catalog_name")
                and t["schema_name"] == query.get("schema_name")
            ]
            start = int(query.get("page_token") or 0)
            page = wanted[start : start + catalog.page_size]
            doc: dict[str, Any] = {"tables": page}
            if start + catalog.page_size < len(wanted):
                doc["next_page_token"] = str(start + catalog.page_size)
            self._send(200, doc)

        def _credentials(self, body: dict[str, Any]) -> None:
            info = next(
                (t for t in catalog.tables.values() if t["table_id"] == body.get("table_id")), None
            )
            if info is None:
                self._error(404, "TABLE_DOES_NOT_EXIST", "no table with that id")
            elif body.get("operation") not in ("READ", "READ_WRITE"):
                self._error(400, "INVALID_PARAMETER_VALUE", "operation must be READ or READ_WRITE")
            elif catalog.vend is None:
                self._error(400, "INVALID_PARAMETER_VALUE", "no credential for this location")
            else:
                self._send(200, catalog.vend(info))

        def _commits(self, body: dict[str, Any]) -> None:
            if catalog.commits is None:
                self._error(501, "NOT_IMPLEMENTED", "commits are not coordinated by this server")
                return
            rows = [
                c
                for c in catalog.commits.get(str(body.get("table_id")), [])
                if c["version"] >= int(body.get("start_version", 0))
            ]
            latest = max((c["version"] for c in rows), default=-1)
            self._send(200, {"commits": rows, "latest_table_version": latest})

    return Handler


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (an ephemeral port) until the block ends: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def serving(catalog: StandInCatalog) -> Iterator[StandInCatalog]:
    """Serve ``catalog`` on 127.0.0.1 (an ephemeral port) until the block ends."""
    with loopback(_handler(catalog)) as url:
        catalog.url = url
        yield catalog
