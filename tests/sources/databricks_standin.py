"""A STAND-IN for a Databricks workspace's Jobs and query-history APIs, on 127.0.0.1, for the
tests of ``databricks-jobs:`` and ``databricks-queries:`` (deltaforensics/sources).

Why a stand-in: no Databricks workspace is reachable from here. Every response body is one of
``databricks-sdk``'s own published models serialised with its ``as_dict()`` (``BaseRun``,
``RunOutput``, ``QueryInfo``, ``ListQueriesResponse``), so the shapes are the SDK's; errors are
Databricks-style (``error_code``, ``message``). Served:

- ``GET /api/2.2/jobs/runs/list`` (``job_id``, ``completed_only``, ``start_time_from`` /
  ``start_time_to``, ``page_token``; ``page_size`` runs a page, ``next_page_token``);
- ``GET /api/2.2/jobs/runs/get-output`` (``run_id``);
- ``GET /api/2.0/sql/history/queries`` (the SDK's flattened ``filter_by.…`` query:
  ``statuses``, ``warehouse_ids``, ``query_start_time_range.start_time_ms`` / ``end_time_ms``;
  ``max_results``, ``page_token``; ``has_next_page``, ``next_page_token``);
- ``GET /.well-known/databricks-config`` (asked for by the SDK).

``throttle`` answers that many requests with HTTP 429 and ``Retry-After: 1`` before serving;
``token`` makes every request need ``Authorization: Bearer <token>`` (else 401), and
``forbidden`` answers 403. The error texts the tests put in are real Databricks texts from
tests/evidence/texts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from databricks.sdk.service.jobs import BaseRun, RunOutput
from databricks.sdk.service.sql import ListQueriesResponse, QueryInfo

from tests.catalog.standin import loopback


@dataclass
class StandInWorkspace:
    runs: list[BaseRun] = field(default_factory=list)
    outputs: dict[int, RunOutput] = field(default_factory=dict)
    queries: list[QueryInfo] = field(default_factory=list)
    page_size: int = 2
    throttle: int = 0  # requests still to answer with 429
    token: str | None = None
    forbidden: bool = False
    requests: list[tuple[str, dict[str, list[str]]]] = field(default_factory=list)
    url: str = ""


def _handler(ws: StandInWorkspace) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass

        def _send(
            self, status: int, doc: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, code: str, message: str, **headers: str) -> None:
            self._send(status, {"error_code": code, "message": message}, headers)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if parts.path == "/.well-known/databricks-config":
                self._send(200, {"workspace_id": "1234567890123456"})
                return
            ws.requests.append((parts.path, query))
            if ws.token and self.headers.get("Authorization") != f"Bearer {ws.token}":
                self._error(401, "UNAUTHENTICATED", "Invalid access token.")
            elif ws.forbidden:
                self._error(403, "PERMISSION_DENIED", "User is not authorized to view runs.")
            elif ws.throttle > 0:
                ws.throttle -= 1
                self._error(
                    429, "REQUEST_LIMIT_EXCEEDED", "Too many requests.", **{"Retry-After": "1"}
                )
            elif parts.path == "/api/2.2/jobs/runs/list":
                self._runs(query)
            elif parts.path == "/api/2.2/jobs/runs/get-output":
                self._output(int(query["run_id"][0]))
            elif parts.path == "/api/2.0/sql/history/queries":
                self._queries(query)
            else:
                self._error(404, "ENDPOINT_NOT_FOUND", f"No API found for 'GET {parts.path}'")

        def _page(
            self, rows: list[Any], query: dict[str, list[str]], size: int
        ) -> tuple[list[Any], str | None]:
            start = int(query.get("page_token", ["0"])[0])
            end = start + size
            return rows[start:end], (str(end) if end < len(rows) else None)

        def _runs(self, query: dict[str, list[str]]) -> None:
            def one(name: str) -> int | None:
                return int(query[name][0]) if name in query else None

            job, since, until = one("job_id"), one("start_time_from"), one("start_time_to")
            rows = [
                r
                for r in ws.runs
                if (job is None or r.job_id == job)
                and (since is None or (r.start_time or 0) >= since)
                and (until is None or (r.start_time or 0) <= until)
            ]
            page, token = self._page(rows, query, ws.page_size)
            doc: dict[str, Any] = {
                "runs": [r.as_dict() for r in page],
                "has_more": token is not None,
            }
            if token:
                doc["next_page_token"] = token
            self._send(200, doc)

        def _output(self, run_id: int) -> None:
            if run_id not in ws.outputs:
                self._error(400, "INVALID_PARAMETER_VALUE", f"Run {run_id} does not exist.")
            else:
                self._send(200, ws.outputs[run_id].as_dict())

        def _queries(self, query: dict[str, list[str]]) -> None:
            statuses = set(query.get("filter_by.statuses", []))
            warehouses = set(query.get("filter_by.warehouse_ids", []))
            since = query.get("filter_by.query_start_time_range.start_time_ms")
            until = query.get("filter_by.query_start_time_range.end_time_ms")
            rows = [
                q
                for q in ws.queries
                if (not statuses or (q.status and q.status.value in statuses))
                and (not warehouses or q.warehouse_id in warehouses)
                and (since is None or (q.query_start_time_ms or 0) >= int(since[0]))
                and (until is None or (q.query_start_time_ms or 0) <= int(until[0]))
            ]
            size = min(ws.page_size, int(query.get("max_results", ["100"])[0]))
            page, token = self._page(rows, query, size)
            doc = ListQueriesResponse(
                res=page, has_next_page=token is not None, next_page_token=token
            )
            self._send(200, doc.as_dict())

    return Handler


@contextmanager
def serving(ws: StandInWorkspace) -> Iterator[StandInWorkspace]:
    """Serve ``ws`` on 127.0.0.1 (an ephemeral port) until the block ends."""
    with loopback(_handler(ws)) as url:
        ws.url = url
        yield ws
