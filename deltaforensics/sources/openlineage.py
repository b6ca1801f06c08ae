"""Failed runs in OpenLineage run events: NDJSON, one ``RunEvent`` per line.

The shape read is the OpenLineage spec's (``OpenLineage.json``: ``RunEvent`` with
``eventType``, ``eventTime``, ``run.runId``, ``run.facets``, ``job``, ``outputs``) and its
``ErrorMessageRunFacet`` (``run.facets.errorMessage``: ``message``, ``programmingLanguage``,
``stackTrace``), as the Spark listener's file transport writes it (one event a line) and as
an export from an HTTP consumer (Marquez …) is kept. Read:

- a ``FAIL`` event's ``eventTime`` (the failure time), ``run.runId``,
  ``run.facets.errorMessage`` (the exception text: its stack trace, whose first line is the
  message, or the message when there is no trace), ``job.facets.sql.query`` (the statement,
  when the integration records it) and ``outputs[].namespace``/``name`` — the written
  dataset, i.e. the table's location (``file`` + ``/path``, ``abfss://c@a.dfs…`` + ``path``);
- a ``START`` event's ``eventTime`` and ``run.runId`` (the run's start time), found by
  pattern, never parsed.

Never read: every other facet — ``spark_properties``, ``environment-properties``,
``processing_engine``, ``spark.logicalPlan``, column lineage, schemas — which can hold the
application's configuration (storage keys, tokens). A line is parsed only when it holds
``"FAIL"`` and ``errorMessage``; every other line is searched, not parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from deltaforensics.failures.records import FailedStatement

_FAIL = b'"FAIL"'
_ERROR_FACET = b'"errorMessage"'
_START = b'"START"'
_EVENT_TYPE_START = re.compile(rb'"eventType"\s*:\s*"START"')
_RUN_ID = re.compile(rb'"runId"\s*:\s*"([0-9a-fA-F-]{8,64})"')
_EVENT_TIME = re.compile(rb'"eventTime"\s*:\s*"([^"]{10,40})"')
MAX_LINE = 4_000_000  # a FAIL event longer than this (huge plans) is read by pattern only
MAX_STARTS = 100_000  # run starts remembered; the oldest are forgotten


def event_time_ms(text: object) -> int | None:
    """An OpenLineage ``eventTime`` (ISO 8601 with a zone; none is UTC) as ms since the epoch."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        from datetime import UTC  # noqa: PLC0415

        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def dataset_location(namespace: object, name: object) -> str | None:
    """The location an OpenLineage dataset names (the naming spec: ``file`` + ``/path``;
    ``abfss://container@account.dfs.core.windows.net`` + ``path``; ``s3://bucket`` + ``key``;
    ``dbfs`` + ``/path``). A namespace without a scheme other than ``file``/``dbfs`` (a
    catalog's, a database's) names no location: None."""
    if not isinstance(namespace, str) or not isinstance(name, str) or not name:
        return None
    if namespace == "file":
        return name if name.startswith("/") else f"file:{name}"
    if namespace == "dbfs":
        return f"dbfs:{name if name.startswith('/') else '/' + name}"
    if "://" in namespace:
        return f"{namespace.rstrip('/')}/{name.lstrip('/')}"
    return None


@dataclass(slots=True)
class OpenLineageScanner:
    """Fed decoded pieces of one NDJSON file; ``failures`` holds its failed runs."""

    source: str
    failures: list[FailedStatement] = field(default_factory=list)
    starts: dict[str, int] = field(default_factory=dict)  # runId -> START eventTime (ms)
    latest_ms: int | None = None  # the newest eventTime of a FAIL seen (the cursor)
    _carry: bytes = b""
    _line: int = 0

    def feed(self, piece: bytes) -> None:
        data = self._carry + piece
        end = data.rfind(b"\n")
        if end < 0:
            self._carry = data
            return
        self._carry = data[end + 1 :]
        self._lines(data[: end + 1].split(b"\n")[:-1])

    def finish(self) -> None:
        """The last line, when the file does not end with a newline (a complete one only)."""
        if self._carry.strip():
            self._lines([self._carry])
        self._carry = b""

    def _lines(self, lines: Iterable[bytes]) -> None:
        for raw in lines:
            self._line += 1
            if _FAIL in raw and _ERROR_FACET in raw:
                self._fail(raw)
            elif _START in raw and _EVENT_TYPE_START.search(raw[:2000] + raw[-2000:]):
                self._start(raw)

    def _start(self, raw: bytes) -> None:
        run = _RUN_ID.search(raw)
        when = _EVENT_TIME.search(raw)
        if run and when:
            moment = event_time_ms(when.group(1).decode("ascii", "replace"))
            if moment is not None:
                if len(self.starts) >= MAX_STARTS:
                    self.starts.pop(next(iter(self.starts)))
                self.starts.setdefault(run.group(1).decode(), moment)

    def _fail(self, raw: bytes) -> None:
        if len(raw) > MAX_LINE:
            return
        try:
            event = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return  # a line cut by a writer still running; a complete line is JSON
        if not isinstance(event, dict) or event.get("eventType") != "FAIL":
            return
        run = _dict(event.get("run"))
        facet = _dict(_dict(run.get("facets")).get("errorMessage"))
        message, trace = facet.get("message"), facet.get("stackTrace")
        text = _error_text(message, trace)
        if not text:
            return
        run_id = _str(run.get("runId"))
        failed_at = event_time_ms(event.get("eventTime"))
        if failed_at is not None:
            self.latest_ms = max(self.latest_ms or failed_at, failed_at)
        query = _dict(_dict(_dict(event.get("job")).get("facets")).get("sql")).get("query")
        outputs = event.get("outputs")
        locations = tuple(
            loc
            for out in (outputs if isinstance(outputs, list) else [])
            if (loc := dataset_location(_dict(out).get("namespace"), _dict(out).get("name")))
        )
        job = _dict(event.get("job"))
        job_name = _str(job.get("name"))
        self.failures.append(
            FailedStatement(
                source_kind="openlineage",
                source=self.source,
                error_text=text,
                line=self._line,
                app_id=job_name,
                started_at=self.starts.get(run_id) if run_id else None,
                failed_at=failed_at,
                statement=query if isinstance(query, str) and query.strip() else None,
                locations=locations,
            )
        )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _error_text(message: object, trace: object) -> str:
    """The stack trace when it holds the message (a JVM trace starts with it), else both."""
    msg = message if isinstance(message, str) else ""
    stack = trace if isinstance(trace, str) else ""
    if stack and msg and msg.strip()[:200] in stack:
        return stack
    return "\n".join(p for p in (msg, stack) if p)
