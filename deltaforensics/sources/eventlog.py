"""Failed statements in a Spark event log, read as a stream of decoded pieces.

An event log is one JSON object per line, ``{"Event":"<listener event>",…}``; JSON strings
escape their newlines, so a line is one event. Each piece is searched with ``bytes.find`` for
two short substrings (``SQLExecution``, ``"JobFailed"``; and ``SparkListenerApplicationStart``
until the application is known); a hit's line is taken when it starts as a wanted event does.
Task, stage and every other event, most of the bytes, are never looked at line by line:

- ``SparkListenerApplicationStart``: only ``App ID``, by pattern (the line is not parsed);
- ``SparkListenerSQLExecutionStart``: kept, unparsed, until its root execution ends; parsed only
  when that root failed: ``time``, ``description``, ``physicalPlanDescription`` (table
  locations); ``modifiedConfigs`` is dropped unread;
- ``SparkListenerSQLExecutionEnd``: ids by pattern; parsed only when ``errorMessage`` is not
  empty (Spark ≥ 3.4 writes it; confirmed on 4.2);
- ``SparkListenerJobEnd``: parsed only when its result is ``JobFailed``; kept as a failure of
  its own only when no failed SQL execution of the application reported its message (inside
  an execution, the execution's end carries the failure);
- ``SparkListenerJobStart`` is never read: its ``Properties`` repeat the application's
  configuration (storage keys, tokens).

``SparkListenerEnvironmentUpdate`` and every other configuration-bearing event are never parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

from deltaforensics.failures.records import FailedStatement

_SQL_START = b'{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"'
_SQL_END = b'{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd"'
_JOB_END = b'{"Event":"SparkListenerJobEnd"'
_APP_START = b'{"Event":"SparkListenerApplicationStart"'
# What is searched for: short, and rare outside the events wanted (every line starts with
# ``{"Event":"SparkListener``, so a needle sharing that prefix would half-match every line).
_FIND_SQL = b"SQLExecution"
_FIND_JOB_FAILED = b'"JobFailed"'
_FIND_APP = b"SparkListenerApplicationStart"

_EXECUTION_ID = re.compile(rb'"executionId":(\d+)')
_ROOT_ID = re.compile(rb'"rootExecutionId":(-?\d+)')
_APP_ID = re.compile(rb'"App ID":"([^"\\]{1,200})"')
_NO_ERROR = (b'"errorMessage":""', b'"errorMessage":null')
HEAD = 400  # the ids sit at the head of their line
MAX_ERROR = 200_000
MAX_PLAN = 1_000_000
# nested executions' starts kept per running root (their plans may name the table when the
# root's does not); a long-running root's later ones are dropped
MAX_NESTED = 32

# Where plans name a table: a URI (file:, dbfs:, abfss://, s3a://, …), ``delta.`<path>```, or
# ``DeltaTableV2(<session>,<path>,…)`` / ``Delta[version=N, <path>]``.
_LOCATION = re.compile(
    r"(?:\b(?:file|dbfs|abfss?|wasbs?|s3a?|gs|az|azure)://?[^\s,\]\)\(`'\"]+)"
    r"|delta\.`([^`]{1,2000})`"
    r"|DeltaTableV2\([^,()]{0,200},(/[^,()]{1,2000}),"
)
_CALL_SITE = re.compile(r"^\S+ at \S+:-?\d+$")
_PLAN_HEAD = re.compile(r"== Physical Plan ==\n(?:[*+\-| ]*)([^\n(]+?)\s*(?:\(\d+\))?\n")


def locations_in(text: str) -> tuple[str, ...]:
    """Table locations a plan or statement names (a path under ``_delta_log`` is its table)."""
    out: dict[str, None] = {}
    for m in _LOCATION.finditer(text):
        loc = m.group(1) or m.group(2) or m.group(0)
        loc = loc.split("/_delta_log", 1)[0].rstrip("/")
        if loc:
            out[loc] = None
    return tuple(out)


@dataclass(slots=True)
class EventLogScanner:
    """One application's event log, fed its decoded pieces in order (rolled parts one after
    another); ``failures`` collects the failed statements as their ends are read.

    A piece is searched where it lies (no copy): only the line cut by the piece's start is
    joined with the rest carried from the piece before."""

    source: str
    app_id: str | None = None
    failures: list[FailedStatement] = field(default_factory=list)
    _pending: bytes = b""
    _root_of: dict[int, int] = field(default_factory=dict)
    _starts: dict[int, list[bytes]] = field(default_factory=dict)  # root -> its start lines
    _failed_jobs: list[FailedStatement] = field(default_factory=list)

    def feed(self, piece: bytes) -> None:
        first = piece.find(b"\n")
        if first < 0:
            self._pending += piece  # a line longer than a piece
            return
        self._line(self._pending + piece[:first])
        last = piece.rfind(b"\n")
        self._pending = piece[last + 1 :]
        self._scan(piece, first + 1, last + 1)

    def end_part(self) -> None:
        """The end of one file: a last line without its newline is complete when it parses
        (Spark ends files with a newline; an ``.inprogress`` file may stop mid-line)."""
        rest, self._pending = self._pending, b""
        if rest.strip():
            try:
                orjson.loads(rest)
            except orjson.JSONDecodeError:
                return  # a line still being written
            self._line(rest)

    def _line(self, line: bytes) -> None:
        if any(n in line for n in (_FIND_SQL, _FIND_JOB_FAILED, _FIND_APP)):
            self._scan(line + b"\n", 0, len(line) + 1)

    def _scan(self, buf: bytes, begin: int, end: int) -> None:
        """The wanted events among the complete lines ``buf[begin:end]``."""
        lines: dict[int, int] = {}  # line start -> line end
        needles = [_FIND_SQL, _FIND_JOB_FAILED]
        if self.app_id is None:
            needles.append(_FIND_APP)
        for needle in needles:
            at = buf.find(needle, begin, end)
            while at >= 0:
                start = buf.rfind(b"\n", begin, at) + 1 or begin
                stop = buf.find(b"\n", at, end)
                stop = end if stop < 0 else stop
                lines[start] = stop
                at = buf.find(needle, stop, end)
        for start in sorted(lines):
            self._event(buf, start, lines[start])

    def _event(self, buf: bytes, start: int, stop: int) -> None:
        if buf.startswith(_SQL_START, start):
            self._sql_start(buf[start:stop])
        elif buf.startswith(_SQL_END, start):
            self._sql_end(buf[start:stop])
        elif buf.startswith(_JOB_END, start):
            self._job_end(buf[start:stop])
        elif buf.startswith(_APP_START, start) and self.app_id is None:
            app = _APP_ID.search(buf, start, stop)
            if app:
                self.app_id = app.group(1).decode("utf-8", "replace")

    def _sql_start(self, line: bytes) -> None:
        head = line[:HEAD]
        ex = _EXECUTION_ID.search(head)
        if not ex:
            return
        execution = int(ex.group(1))
        root_m = _ROOT_ID.search(head)
        root = int(root_m.group(1)) if root_m and int(root_m.group(1)) >= 0 else execution
        self._root_of[execution] = root
        kept = self._starts.setdefault(root, [])
        if execution == root or len(kept) < MAX_NESTED:  # memory stays bounded
            kept.append(line)

    def _sql_end(self, line: bytes) -> None:
        ex = _EXECUTION_ID.search(line[:HEAD])
        if not ex:
            return
        execution = int(ex.group(1))
        root = self._root_of.pop(execution, execution)
        if root != execution:
            return  # a nested execution: its root's end says whether the statement failed
        starts = self._starts.pop(root, [])
        if b'"errorMessage":' not in line or any(n in line for n in _NO_ERROR):
            return
        try:
            end = orjson.loads(line)
        except orjson.JSONDecodeError:
            return
        error = end.get("errorMessage")
        if not isinstance(error, str) or not error:
            return
        self.failures.append(self._failure(execution, end, error, starts))

    def _failure(
        self, execution: int, end: dict[str, object], error: str, starts: list[bytes]
    ) -> FailedStatement:
        started_at = statement = None
        locations: dict[str, None] = {}
        for raw in starts:
            try:
                start = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            plan = str(start.get("physicalPlanDescription") or "")[:MAX_PLAN]
            locations.update(dict.fromkeys(locations_in(plan)))
            if start.get("executionId") == execution:
                started_at = _int(start.get("time"))
                statement = _statement(start.get("description"), plan)
                locations.update(dict.fromkeys(locations_in(statement or "")))
            del start  # modifiedConfigs and the rest are not kept
        return FailedStatement(
            source_kind="eventlog",
            source=self.source,
            error_text=error[:MAX_ERROR],
            app_id=self.app_id,
            execution_id=execution,
            started_at=started_at,
            failed_at=_int(end.get("time")),
            statement=statement,
            locations=tuple(locations),
        )

    def _job_end(self, line: bytes) -> None:
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            return
        result = event.get("Job Result") or {}
        exception = result.get("Exception") if isinstance(result, dict) else None
        message = exception.get("Message") if isinstance(exception, dict) else None
        self._failed_jobs.append(
            FailedStatement(
                source_kind="eventlog",
                source=self.source,
                error_text=str(message or "")[:MAX_ERROR],
                app_id=self.app_id,
                failed_at=_int(event.get("Completion Time")),
            )
        )

    def finish(self) -> None:
        """The end of the application's log: its failed jobs that no failed SQL execution
        reported (a job inside an execution fails the execution with the same message, before
        or after the job's own end) join the failures."""
        reported = {_first_line(f.error_text) for f in self.failures}
        self.failures += [j for j in self._failed_jobs if _first_line(j.error_text) not in reported]
        self._failed_jobs.clear()


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0].strip()[:500]


def _statement(description: object, plan: str) -> str | None:
    """The description when it is the statement (the SQL text of a SQL-API call, a job
    description); a bare call site (``sql at NativeMethodAccessorImpl.java:0``) gives way to
    the plan's top operator (``Execute UpdateCommand``)."""
    text = description.strip() if isinstance(description, str) else ""
    if text and not _CALL_SITE.match(text):
        return text
    head = _PLAN_HEAD.search(plan)
    if head:
        return head.group(1).strip()
    return text or None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
