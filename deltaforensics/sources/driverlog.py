"""Delta conflict exceptions in a driver log (log4j2 text as Spark and Databricks write it:
``yy/MM/dd HH:mm:ss LEVEL logger: message`` and the throwable's lines below it).

The decoded text is searched for the sentences the ``--error`` evidence anchors on
(:data:`deltaforensics.evidence.message_formats.ANCHORS`); only the lines of the log record
around a hit — from its dated head line, the message, the ``Conflicting commit`` JSON and up
to twelve continuation lines, until the next log record — become a :class:`FailedStatement`,
dated by that head line. Lines of other records (a configuration dump just above or below)
are never taken along. Every other line is
skipped unread except for one count: lines logged at ``ERROR`` that are not part of a conflict
(other failures, counted and never reported as conflicts).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from deltaforensics.evidence import message_formats as fmt
from deltaforensics.evidence.log_timestamps import parse_line_time
from deltaforensics.failures.records import FailedStatement

BEFORE = 3  # lines of the anchor's own record kept above it (its dated head, the class)
AFTER = 12  # lines kept below (the JSON, the doc link, a Caused by repeat)
LOOKBACK = 200  # lines searched above a window for the time of its log record
_LITERALS = tuple(dict.fromkeys(a.literal for a in fmt.ANCHORS if a.literal))
# A dated line still continuing the exception (logs that date every line: Airflow, stdout)
_CONTINUES = ("Conflicting commit", "Refer to ", "Caused by", "Help:")
_ERROR_LINE = re.compile(r"^[^\n]{0,60}?\bERROR\b", re.MULTILINE)


@dataclass(slots=True)
class DriverLogScanner:
    """One driver-log file, fed its decoded pieces in order. A piece with no anchor sentence
    (and no window open) is only counted, never walked line by line."""

    source: str
    failures: list[FailedStatement] = field(default_factory=list)
    error_lines: int = 0  # ERROR records outside conflict windows
    _context: deque[str] = field(default_factory=lambda: deque(maxlen=LOOKBACK))
    _line_no: int = 1  # the number of the next line
    _partial: str = ""
    _window: list[str] | None = None
    _window_line: int = 0
    _remaining: int = 0

    def feed(self, piece: bytes) -> None:
        text = self._partial + piece.decode("utf-8", "replace")
        cut = text.rfind("\n")
        if cut < 0:
            self._partial = text
            return
        self._partial = text[cut + 1 :]
        self._lines(text[:cut])

    def end_part(self) -> None:
        if self._partial:
            self._lines(self._partial)
            self._partial = ""
        if self._window is not None:
            self._close()

    def _lines(self, chunk: str) -> None:
        lines = chunk.split("\n")
        self.error_lines += len(_ERROR_LINE.findall(chunk))
        if self._window is None and not any(lit in chunk for lit in _LITERALS):
            self._context.extend(lines[-LOOKBACK:])
            self._line_no += len(lines)
            return
        for line in lines:
            self._line(line)

    def _line(self, line: str) -> None:
        anchored = any(lit in line for lit in _LITERALS)
        if (
            self._window is not None
            and not anchored
            and parse_line_time(line) is not None
            and not any(c in line for c in _CONTINUES)
        ):
            self._close()  # the next log record: not part of the exception
        if self._window is not None:
            self._window.append(line)
            self._remaining = AFTER if anchored else self._remaining - 1
            if self._remaining <= 0:
                self._close()
        elif anchored:
            # the anchor's own log record only: from its dated head line (a line of an earlier
            # record — a configuration dump, say — is never taken along)
            context = list(self._context)
            head = context[-BEFORE:] if BEFORE else []
            dated_at = [i for i, h in enumerate(head) if parse_line_time(h) is not None]
            if parse_line_time(line) is not None:
                head = []
            elif dated_at:
                head = head[dated_at[-1] :]
            else:
                dated = next(
                    (c for c in reversed(context[:-BEFORE]) if parse_line_time(c) is not None),
                    None,
                )
                head = ([dated] if dated is not None else []) + head
            self._window = [*head, line]
            self._window_line = self._line_no - len(head)
            self._remaining = AFTER
        self._context.append(line)
        self._line_no += 1

    def _close(self) -> None:
        window, self._window = self._window or [], None
        self.error_lines -= sum(1 for line in window if _ERROR_LINE.match(line))
        failed_at = None
        for line in window:
            failed_at = parse_line_time(line)
            if failed_at is not None:
                break
        self.failures.append(
            FailedStatement(
                source_kind="driverlog",
                source=self.source,
                error_text="\n".join(window),
                line=self._window_line,
                failed_at=failed_at,
            )
        )
