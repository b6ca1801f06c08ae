"""Failed SQL warehouse statements, from the query history
(``databricks-queries:`` / ``databricks-queries:WAREHOUSE_ID``).

``GET /api/2.0/sql/history/queries`` with ``filter_by``: ``statuses`` = ``FAILED``,
``query_start_time_range`` = the window, ``warehouse_ids`` when given; paged by
``next_page_token`` while ``has_next_page``.

Read: ``query_id``, ``warehouse_id``, ``query_text`` (the statement: matched against the
tables' locations, and re-checked as ``--attempt`` would be), ``query_start_time_ms``,
``query_end_time_ms`` and ``error_message``. Never read: metrics, plans, the user's name or id,
the client application, query tags.
"""

from __future__ import annotations

import functools
from typing import Any

from deltaforensics.failures.records import FailedStatement
from deltaforensics.sources.databricks import Workspace
from deltaforensics.sources.eventlog import locations_in

PAGE = 100


def read_query_failures(
    workspace: Workspace,
    warehouse_id: str,
    *,
    since_ms: int | None,
    until_ms: int | None,
) -> tuple[list[FailedStatement], int | None]:
    """The failed statements of the window (of ``warehouse_id`` when given), and the cursor:
    the latest start time listed (the next ``since_ms``)."""
    from databricks.sdk.service.sql import QueryFilter, QueryStatus, TimeRange  # noqa: PLC0415

    subject = f"databricks-queries:{warehouse_id}"
    window = (
        TimeRange(start_time_ms=since_ms, end_time_ms=until_ms)
        if since_ms is not None or until_ms is not None
        else None
    )
    wanted = QueryFilter(
        statuses=[QueryStatus.FAILED],
        query_start_time_range=window,
        warehouse_ids=[warehouse_id] if warehouse_id else None,
    )
    history = workspace.client.query_history
    failures: list[FailedStatement] = []
    cursor: int | None = None
    token: str | None = None
    while True:
        page: Any = workspace.call(
            subject,
            functools.partial(history.list, filter_by=wanted, max_results=PAGE, page_token=token),
        )
        for query in page.res or []:
            started = query.query_start_time_ms
            if started is not None:
                cursor = max(cursor or started, started)
            status = getattr(query.status, "value", query.status)
            if status != "FAILED" or not query.error_message:
                continue
            text = query.query_text or None
            failures.append(
                FailedStatement(
                    source_kind="databricks-queries",
                    source=(
                        f"{workspace.host.rstrip('/')}/sql/history?queryId={query.query_id or '?'}"
                    ),
                    error_text=query.error_message,
                    app_id=f"warehouse {query.warehouse_id or warehouse_id or '?'}",
                    started_at=started,
                    failed_at=query.query_end_time_ms or query.execution_end_time_ms,
                    statement=text,
                    locations=locations_in(text) if text else (),
                )
            )
        token = page.next_page_token
        if not token or page.has_next_page is False:
            return failures, cursor
