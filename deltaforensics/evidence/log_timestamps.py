"""When a log line was written, read from the head of the line: ``observed_at`` in ms since epoch.

delta-rs conflict messages name no winning version, so the time the failure was logged is the
best handle for finding the winner in ``_delta_log``. Recognised line heads (first 64 chars):

| format | example | zone |
| --- | --- | --- |
| ISO-8601, ``T`` or space, ``.``/``,`` fraction | ``2026-08-21T10:15:03.412Z``, ``2026-08-21 10:15:03,412`` | ``Z``/``UTC``/``GMT``/``±hh[:]mm``; none → UTC |
| Airflow task log | ``[2025-01-15, 10:22:31 UTC]`` | as ISO |
| Spark log4j | ``24/03/19 14:50:44`` (YY/MM/DD) | UTC |
| epoch milliseconds | ``1710859844174 ERROR …``, ``{"ts":1710859844174,…`` | UTC |

A line without a time inherits the time of the nearest line above that has one (a stack trace
or traceback continues the log record that started it).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from datetime import UTC, datetime, timedelta, timezone

HEAD_CHARS = 64
MAX_LOOKBACK_LINES = 5000

_ISO = re.compile(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[T ]|, )(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(?:\s?(Z|UTC|GMT|[+-]\d{2}:?\d{2})(?![\w:]))?"
)
_LOG4J = re.compile(
    r"(?<![\d/])(\d{2})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?!\d)"
)
_EPOCH_MS = re.compile(r'^[\s\[{(]*(?:"?[A-Za-z_@]\w{0,19}"?\s*[:=]\s*)?(1\d{12})(?![\d.])')


def parse_line_time(head: str) -> int | None:
    """The time at the head of one log line, in ms since epoch (UTC unless a zone is given)."""
    head = head[:HEAD_CHARS]
    m = _ISO.search(head)
    if m:
        y, mo, d, h, mi, s, frac, zone = m.groups()
        return _to_ms(int(y), int(mo), int(d), int(h), int(mi), int(s), frac, zone)
    m = _LOG4J.search(head)
    if m:
        yy, mo, d, h, mi, s, frac = m.groups()
        return _to_ms(2000 + int(yy), int(mo), int(d), int(h), int(mi), int(s), frac, None)
    m = _EPOCH_MS.search(head)
    return int(m.group(1)) if m else None


def _to_ms(
    y: int, mo: int, d: int, h: int, mi: int, s: int, frac: str | None, zone: str | None
) -> int | None:
    tz = _zone(zone)
    if tz is None:
        return None
    try:
        moment = datetime(y, mo, d, h, mi, min(s, 59), tzinfo=tz)
        seconds = int(moment.timestamp())
    except (ValueError, OverflowError):  # 2024-13-45 looks like a time but is not one
        return None
    return seconds * 1000 + int((frac or "0")[:3].ljust(3, "0"))


def _zone(zone: str | None) -> timezone | None:
    if zone is None or zone in ("Z", "UTC", "GMT"):
        return UTC
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        return None
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if zone[0] == "-" else offset)


class LineTimes:
    """Line numbers and inherited log times for one text (newline positions computed once)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self._cache: dict[int, int | None] = {}

    def line_of(self, pos: int) -> int:
        """1-based line number of a character offset."""
        return bisect_left(self._newlines, pos) + 1

    def line_start(self, line: int) -> int:
        return 0 if line <= 1 else self._newlines[line - 2] + 1

    def observed_at(self, line: int) -> int | None:
        """The time of ``line``, or of the nearest line above it that carries one."""
        for candidate in range(line, max(0, line - MAX_LOOKBACK_LINES), -1):
            if candidate not in self._cache:
                start = self.line_start(candidate)
                self._cache[candidate] = parse_line_time(self._text[start : start + HEAD_CHARS])
            found = self._cache[candidate]
            if found is not None:
                return found
        return None
