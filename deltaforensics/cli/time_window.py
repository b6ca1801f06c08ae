"""``--since``/``--until`` (and ``snapshot --at``) as versions, and the window an ``--error``
text's time suggests when no version is named.

The times are the user's words: ISO-8601 (no zone means UTC), epoch milliseconds, or an age
(``7d``, ``36h``, ``90m``, ``2w``, ``45s`` before now). Which commits they select is
:mod:`deltaforensics.log.commit_times` (Delta's timestamp time-travel rules).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deltaforensics.cli.attempt_specs import parse_time_ms
from deltaforensics.cli.options import TimeWindow
from deltaforensics.errors import TimeWindowError, UsageError
from deltaforensics.model.commit_info import epoch_ms

_AGE = re.compile(r"(\d+)\s*([wdhms])")
_UNIT_MS = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000}
# An --error text without a version: the failed transaction's winners committed before the
# failure was logged, usually within the job's run; a day before covers long jobs, and a few
# minutes after covers a log line written before the commit it reports landed (clock skew).
ERROR_LOOKBACK_MS = 24 * 3_600_000
ERROR_LOOKAHEAD_MS = 15 * 60_000


def parse_moment(text: str, option: str, now_ms: int) -> int:
    """``text`` as ms since the epoch, a time a date shows."""
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


@dataclass(frozen=True, slots=True, kw_only=True)
class ChosenVersions:
    """The versions a command reads, and the window that chose them (``None``: none did)."""

    from_version: int | None
    to_version: int | None
    window: Any = None  # a log.commit_times.VersionWindow
    # the listing the window was placed on (a log.listing.LogListing): the analysis reads that
    # same cut of the log instead of listing it again (a second listing of a long log costs
    # as much as the first)
    listing: Any = None
    # the newest checkpoint, decoding since before that listing, for a window that reaches
    # the table's end (a log.checkpoint_prefetch.CheckpointPrefetch, or None)
    prefetched: Any = None

    @property
    def window_from(self) -> int | None:
        """Where a time window starts: the analysis then reads from a checkpoint shortly
        before it instead of the whole log (``--from-version`` keeps the whole log)."""
        return self.from_version if self.window is not None else None

    def window_dict(self) -> dict[str, Any] | None:
        return None if self.window is None else self.window.to_dict()


def chosen_versions(
    store: Any,
    window: TimeWindow,
    *,
    from_version: int | None,
    to_version: int | None,
    error_texts: Sequence[tuple[str, str]] = (),
    now_ms: int | None = None,
) -> ChosenVersions:
    """The version range of ``--from-version``/``--to-version``, or of ``--since``/``--until``,
    or of the ``--error`` texts' time (when they name no version and nothing else was given)."""
    if window.given and (from_version is not None or to_version is not None):
        raise UsageError("give --since/--until or --from-version/--to-version, not both")
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if window.given:
        since = None if window.since is None else parse_moment(window.since, "--since", now)
        until = None if window.until is None else parse_moment(window.until, "--until", now)
        if since is not None and until is not None and since > until:
            raise UsageError("--since must not be later than --until")
        prefetched = _prefetch(store, since) if since is not None and until is None else None
        found, listing = _window(store, since, until)
        return ChosenVersions(
            from_version=found.first_version if since is not None else None,
            to_version=found.last_version if until is not None else None,
            window=found,
            listing=listing,
            prefetched=prefetched,
        )
    if from_version is None and to_version is None and error_texts:
        return _around_errors(store, error_texts)
    return ChosenVersions(from_version=from_version, to_version=to_version)


def version_at(store: Any, at: str, *, now_ms: int | None = None) -> ChosenVersions:
    """``snapshot --at``: the version active at that time, as Delta's ``TIMESTAMP AS OF``."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    found, listing = _window(store, None, parse_moment(at, "--at", now))
    return ChosenVersions(
        from_version=None, to_version=found.last_version, window=found, listing=listing
    )


def _window(store: Any, since: int | None, until: int | None) -> tuple[Any, Any]:
    """The window, and the listing it was placed on."""
    from deltaforensics.log.commit_times import window_versions  # noqa: PLC0415
    from deltaforensics.log.listing import list_log  # noqa: PLC0415

    listing = list_log(store)
    return window_versions(store, listing, since_ms=since, until_ms=until), listing


def _prefetch(store: Any, since: int) -> Any:
    """The newest checkpoint, decoding while the log is listed, when the window is bound to
    start from it (:mod:`deltaforensics.log.checkpoint_prefetch`)."""
    from deltaforensics.analysis import FILE_STATS_BUDGET, WINDOW_LOOKBACK  # noqa: PLC0415
    from deltaforensics.log.checkpoint_prefetch import prefetch_checkpoint  # noqa: PLC0415

    return prefetch_checkpoint(
        store, since_ms=since, lookback=WINDOW_LOOKBACK, without_stats_from=FILE_STATS_BUDGET
    )


def _around_errors(store: Any, texts: Sequence[tuple[str, str]]) -> ChosenVersions:
    """The window around the times the ``--error`` texts were logged; none when a text names
    the winning version (the analysis finds it by number) or carries no time."""
    from dataclasses import replace  # noqa: PLC0415

    from deltaforensics.evidence.error_text import extract_conflicts  # noqa: PLC0415

    found = [c for name, text in texts for c in extract_conflicts(text, source=name)]
    if not found or any(c.winner_version is not None for c in found):
        return ChosenVersions(from_version=None, to_version=None)
    times = [c.observed_at for c in found if c.observed_at is not None]
    if not times:
        return ChosenVersions(from_version=None, to_version=None)
    try:
        window, listing = _window(
            store, min(times) - ERROR_LOOKBACK_MS, max(times) + ERROR_LOOKAHEAD_MS
        )
    except TimeWindowError:  # no commit near the error's time: read the whole log as before
        return ChosenVersions(from_version=None, to_version=None)
    window = replace(window, narrowed_by="the --error text")
    return ChosenVersions(
        from_version=window.first_version,
        to_version=window.last_version,
        window=window,
        listing=listing,
    )
