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
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from deltaforensics.errors import UsageError
from deltaforensics.log.checkpoint_prefetch import CheckpointPrefetch
from deltaforensics.log.commit_times import VersionWindow, window_versions
from deltaforensics.log.listing import LogListing, list_log
from deltaforensics.log.storage import LogStore


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


_AGE = re.compile(r"(\d+)\s*([wdhms])")
_UNIT_MS = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000}


def parse_moment(text: str, option: str, now_ms: int) -> int:
    """``text`` (ISO-8601, epoch ms, or an age before ``now_ms``) as ms since the epoch."""
    age = _AGE.fullmatch(text.strip().lower())
    if age:
        return now_ms - int(age.group(1)) * _UNIT_MS[age.group(2)]
    return parse_time_ms(text, option)


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
