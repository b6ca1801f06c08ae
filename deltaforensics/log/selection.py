"""Which versions a command reads: the user's selection, and the range it resolves to.

A command reads the log over ONE selection: version numbers (``--from-version``/
``--to-version``), a window of commit times (``--since``/``--until``), the time around which
the ``--error`` texts were logged, or, for a snapshot, one version or the version active at a
time (``--version``/``--at``). Resolving it lists the log once and places the window in time
(:mod:`deltaforensics.log.commit_times`, Delta's timestamp time-travel rules); the resolved
range carries that listing on, so that the history is read from the same cut of the log.

The times are the user's words: ISO-8601 (no zone means UTC), epoch milliseconds, or an age
(``7d``, ``36h``, ``90m``, ``2w``, ``45s`` before now).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from deltaforensics.errors import TimeWindowError, UsageError
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch, prefetch_checkpoint
from deltaforensics.log.commit_times import VersionWindow, window_versions
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.storage import LogStore
from deltaforensics.model.commit_info import epoch_ms


@dataclass(frozen=True, slots=True, kw_only=True)
class Versions:
    """``--from-version``/``--to-version`` (either open; both open: the whole retained log)."""

    from_version: int | None = None
    to_version: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Between:
    """``--since``/``--until``, in the user's words (either open, not both)."""

    since: str | None = None
    until: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AroundErrors:
    """The window around the times the ``--error`` texts were logged (chosen when they name no
    version and nothing else was selected)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AsOf:
    """``snapshot --version`` or ``--at`` (Delta's ``VERSION AS OF`` / ``TIMESTAMP AS OF``);
    neither: the latest version."""

    version: int | None = None
    at: str | None = None


Selection = Versions | Between | AroundErrors | AsOf


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedRange:
    """The versions a command reads, and the window that chose them (``None``: none did).

    ``listing``: the listing the window was placed on; the analysis reads that same cut of the
    log instead of listing it again (a second listing of a long log costs as much as the
    first). ``prefetched``: the newest checkpoint, decoding since before that listing, for a
    window that reaches the table's end."""

    from_version: int | None = None
    to_version: int | None = None
    window: VersionWindow | None = None
    listing: LogListing | None = None
    prefetched: CheckpointPrefetch | None = None

    @property
    def window_from(self) -> int | None:
        """Where a time window starts: the analysis then reads from a checkpoint shortly
        before it instead of the whole log (``--from-version`` keeps the whole log)."""
        return self.from_version if self.window is not None else None

    def window_dict(self) -> dict[str, Any] | None:
        """The report's ``time_window`` (absent without a window)."""
        return None if self.window is None else self.window.to_dict()


def placed_window(
    store: LogStore,
    since_ms: int | None,
    until_ms: int | None,
    *,
    prefetched: CheckpointPrefetch | None = None,
    narrowed_by: str | None = None,
) -> ResolvedRange:
    """The retained commits from ``since_ms`` to ``until_ms`` as a range; an open end stays
    open (the analysis reads to the latest version, or from the start)."""
    listing = list_log(store)
    found = window_versions(store, listing, since_ms=since_ms, until_ms=until_ms)
    if narrowed_by is not None:
        found = replace(found, narrowed_by=narrowed_by)
    return ResolvedRange(
        from_version=found.first_version if since_ms is not None else None,
        to_version=found.last_version if until_ms is not None else None,
        window=found,
        listing=listing,
        prefetched=prefetched,
    )


# A time window's analysis starts from a checkpoint at least this many commits before the
# window: a transaction in it that read an older version has winners before that (a W302
# diagnostic names them), which on a busy table means a job that ran through 250 commits.
WINDOW_LOOKBACK = 250


# A history whose segment (commit files and checkpoint) is smaller than this many bytes is
# loaded with its files' statistics; a larger one without them, and they are read back from
# the log for the rows a rule, an attempt or a what-if asks about (log/file_stats.py). The
# statistics are two thirds of a log's bytes: on benchmarks/' synthetic logs (docs/
# performance.md, issue #23, session 10) the 100,000-commit log (416 MB) holds 192 MB of them
# in its frames and `explain` peaks 185-358 MB higher with them, a 10,000-commit window over a
# 72 MB checkpoint ~250 MB higher, while the 10,000-commit log (42 MB) costs the same either
# way. 64 MB keeps that log, every corpus table and the samples holding them (a what-if layout
# estimate reads every add's statistics, so small race-heavy logs keep their speed) and puts
# the window and the 100,000-commit log above it.
FILE_STATS_BUDGET = 64 * 2**20


# An --error text without a version: the failed transaction's winners committed before the
# failure was logged, usually within the job's run; a day before covers long jobs, and a few
# minutes after covers a log line written before the commit it reports landed (clock skew).
ERROR_LOOKBACK_MS = 24 * 3_600_000
ERROR_LOOKAHEAD_MS = 15 * 60_000


def resolve_range(
    store: LogStore,
    selection: Selection,
    *,
    error_times: Sequence[int] = (),
    now_ms: int | None = None,
) -> ResolvedRange:
    """The versions ``selection`` names in ``store``'s log.

    ``error_times``: when the ``--error`` texts were logged; with nothing else selected, the
    window around them is read (:class:`AroundErrors`). None (a text naming its winner's
    version, or no time logged) reads the whole log."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if selection == Versions() and error_times:
        selection = AroundErrors()  # nothing selected: the window around the failure
    if isinstance(selection, Versions):
        return ResolvedRange(from_version=selection.from_version, to_version=selection.to_version)
    if isinstance(selection, AsOf):
        if selection.at is None:
            return ResolvedRange(to_version=selection.version)
        return placed_window(store, None, parse_moment(selection.at, "--at", now))
    if isinstance(selection, Between):
        return _between(store, selection, now)
    return _around(store, error_times)  # AroundErrors


def _between(store: LogStore, selection: Between, now: int) -> ResolvedRange:
    since = None if selection.since is None else parse_moment(selection.since, "--since", now)
    until = None if selection.until is None else parse_moment(selection.until, "--until", now)
    if since is not None and until is not None and since > until:
        raise UsageError("--since must not be later than --until")
    # a window to the table's end is bound to start from its newest checkpoint: decoding it
    # starts while the log is listed (log/checkpoint_prefetch.py)
    prefetched = (
        prefetch_checkpoint(
            store, since_ms=since, lookback=WINDOW_LOOKBACK, without_stats_from=FILE_STATS_BUDGET
        )
        if since is not None and until is None
        else None
    )
    return placed_window(store, since, until, prefetched=prefetched)


def _around(store: LogStore, times: Sequence[int]) -> ResolvedRange:
    """The window around the times the ``--error`` texts were logged."""
    if not times:
        return ResolvedRange()
    try:
        window = placed_window(
            store,
            min(times) - ERROR_LOOKBACK_MS,
            max(times) + ERROR_LOOKAHEAD_MS,
            narrowed_by="the --error text",
        )
    except TimeWindowError:  # no commit near the error's time: read the whole log as before
        return ResolvedRange()
    return window


_AGE = re.compile(r"(\d+)\s*([wdhms])")
_UNIT_MS = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000}


def parse_moment(text: str, option: str, now_ms: int) -> int:
    """``text`` (ISO-8601, epoch ms, or an age before ``now_ms``) as ms since the epoch, a
    time a date shows."""
    age = _AGE.fullmatch(text.strip().lower())
    try:
        found = (
            now_ms - int(age.group(1)) * _UNIT_MS[age.group(2)]
            if age
            else parse_time_ms(text, option)
        )
    except UsageError:
        found = None
    if found is None or epoch_ms(found) is None:
        raise UsageError(f"{option} {text!r}: give an age (7d, 36h), an ISO-8601 time or epoch ms")
    return found


def parse_time_ms(text: str, option: str = "--started-at") -> int:
    """ISO-8601 (no zone: UTC) or epoch milliseconds, as ms since the epoch."""
    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    try:
        moment = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{option} {text!r}: not ISO-8601 or epoch milliseconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
