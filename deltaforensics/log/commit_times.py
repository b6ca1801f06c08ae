"""Times to versions: which retained commits ``--since`` and ``--until`` select.

Delta's rules for timestamp time travel, read in ``DeltaHistoryManager.getActiveCommitAtTime``
(Delta-Spark) and PROTOCOL.md "In-Commit Timestamps":

- A commit's time is its ``commitInfo.inCommitTimestamp`` from the version where in-commit
  timestamps were enabled (``delta.inCommitTimestampEnablementVersion``, or every version when
  the table was created with them); before that, the commit file's modification time.
- Modification times are made monotonic before use: a commit stamped at or before its
  predecessor counts as one millisecond after it (``DeltaHistoryManager.monotonizeCommitTimestamps``).
- ``--until T`` is the version active at T: the last commit at or before T
  (``getActiveCommitAtTime`` with ``canReturnLastCommit``); ``--since T`` is the first commit at
  or after T (how change data feed's ``startingTimestamp`` is mapped,
  ``DeltaSource.getStartingVersionFromTimestamp``).

One deliberate difference: a copied or cloned log resets modification times. When they are
plainly unreliable (all one instant, running backwards, or far from the ``commitInfo.timestamp``
the writer recorded) this module uses ``commitInfo.timestamp`` instead and says so.

It reads only what it needs: the listing, the newest commit (are in-commit timestamps on?),
and single commits at the probes of a binary search over versions; never the whole window.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import orjson

from deltaforensics.errors import TimeWindowError
from deltaforensics.log.file_facts import fetch_facts
from deltaforensics.log.listing import LogListing
from deltaforensics.log.storage import LogStore, SupportsModificationTimes
from deltaforensics.model.commit_info import epoch_ms, json_integer

ENABLEMENT_VERSION = "delta.inCommitTimestampEnablementVersion"
# A writer records commitInfo.timestamp when it starts committing; the file lands moments later.
# Further apart than this, the file's time is a copy's, not the commit's.
MODIFICATION_TOLERANCE_MS = 60 * 60 * 1000
BACKWARDS_TOLERANCE_MS = 60 * 1000  # one storage clock never runs backwards by a minute
TEXT_WIDTH = 80


class Clock(StrEnum):
    """Which time a commit is placed at; the words the report uses."""

    IN_COMMIT = "in-commit timestamps"
    MODIFICATION = "file modification times"
    COMMIT_INFO = "commitInfo.timestamp"


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitStamp:
    """The times one commit records about itself."""

    in_commit_timestamp: int | None = None
    commit_info_timestamp: int | None = None
    enablement_version: int | None = None
    # a time recorded but no date (nanoseconds, 2^63): read as none (issue #32)
    out_of_range: bool = False


def read_stamp(data: bytes) -> CommitStamp:
    """The commitInfo times and the in-commit enablement version of one commit's bytes (only
    the commitInfo and metaData lines are parsed)."""
    ict = ts = enabled = None
    odd = False
    for line in data.splitlines():
        if b'"commitInfo"' not in line and b'"metaData"' not in line:
            continue
        try:
            action = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        info = action.get("commitInfo") if isinstance(action, dict) else None
        if isinstance(info, dict):
            raw_ict, raw_ts = (
                json_integer(info.get("inCommitTimestamp")),
                json_integer(info.get("timestamp")),
            )
            ict, ts = epoch_ms(raw_ict), epoch_ms(raw_ts)
            odd = (ict, ts) != (raw_ict, raw_ts)
        meta = action.get("metaData") if isinstance(action, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("configuration"), dict):
            enabled = json_integer(meta["configuration"].get(ENABLEMENT_VERSION))
    return CommitStamp(
        in_commit_timestamp=ict,
        commit_info_timestamp=ts,
        enablement_version=enabled,
        out_of_range=odd,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionWindow:
    """The retained commits a time window selects, and how they were placed in time."""

    first_version: int
    last_version: int
    since_ms: int | None
    until_ms: int | None
    first_commit_ms: int
    last_commit_ms: int
    clock: str
    clock_note: str | None = None
    commits_read: int = 0
    timeless: tuple[int, ...] = ()  # commits read whose recorded time is no date
    narrowed_by: str | None = None  # "--error" when an error text's time chose the window

    def describe(self) -> str:
        """``versions 812..1040 = 2026-11-18 06:00 .. now (file modification times)``; the
        clock, a note on it and the narrowing go on lines of their own past 80 columns."""
        since = "the first retained commit" if self.since_ms is None else minute(self.since_ms)
        until = "now" if self.until_ms is None else minute(self.until_ms)
        head = f"versions {self.first_version}..{self.last_version} = {since} .. {until}"
        lines = [f"{head} ({self.clock})"]
        if len(lines[0]) > TEXT_WIDTH:
            lines = [head, f"  ({self.clock})"]
        if self.clock_note:
            lines.append(f"  {self.clock_note}")
        if self.timeless:
            shown = ", ".join(f"v{v}" for v in self.timeless[:5])
            more = f" (+{len(self.timeless) - 5})" if len(self.timeless) > 5 else ""
            lines.append(f"  {shown}{more}: a time no date shows, read as none (W207)")
        if self.narrowed_by:
            lines.append(f"  narrowed to the time of {self.narrowed_by}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "since": iso_ms(self.since_ms),
            "until": iso_ms(self.until_ms),
            "first_version": self.first_version,
            "last_version": self.last_version,
            "first_commit_at": iso_ms(self.first_commit_ms),
            "last_commit_at": iso_ms(self.last_commit_ms),
            "clock": self.clock,
            "clock_note": self.clock_note,
            "narrowed_by": self.narrowed_by,
            "text": self.describe(),
        }


def minute(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


def iso_ms(ms: int | None) -> str | None:
    if ms is None:
        return None
    return (
        datetime.fromtimestamp(ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


class _Stamps:
    """Single commits read on demand, each once."""

    def __init__(self, store: LogStore, listing: LogListing) -> None:
        self._store, self._listing = store, listing
        self._seen: dict[int, CommitStamp] = {}

    def __call__(self, version: int) -> CommitStamp:
        if version not in self._seen:
            self._seen[version] = read_stamp(self._store.read(self._listing.commits[version]))
        return self._seen[version]

    @property
    def read(self) -> int:
        return len(self._seen)

    @property
    def timeless(self) -> tuple[int, ...]:
        """The versions read whose recorded time is no date (W207)."""
        return tuple(sorted(v for v, s in self._seen.items() if s.out_of_range))


def window_versions(
    store: LogStore, listing: LogListing, *, since_ms: int | None, until_ms: int | None
) -> VersionWindow:
    """The retained commits from ``since_ms`` to ``until_ms`` (either may be open)."""
    versions = listing.commit_versions
    if not versions:
        raise TimeWindowError(f"{store.uri}: no retained commit to place in time")
    stamps = _Stamps(store, listing)
    ict_from = _in_commit_start(versions, stamps)
    clock, note, times = _clock(store, listing, versions, ict_from, stamps)
    first = 0 if since_ms is None else _first_at_or_after(len(versions), times, since_ms)
    last = (
        len(versions) - 1
        if until_ms is None
        else _first_at_or_after(len(versions), times, until_ms + 1) - 1
    )
    if since_ms is not None and first == len(versions):
        raise TimeWindowError(
            f"{store.uri}: no commit since {minute(since_ms)} UTC; the newest, version "
            f"{versions[-1]}, is from {minute(times(len(versions) - 1))} ({clock})"
        )
    if until_ms is not None and last < 0:
        raise TimeWindowError(
            f"{store.uri}: {minute(until_ms)} UTC is before the earliest retained commit, "
            f"version {versions[0]} at {minute(times(0))} ({clock})"
        )
    if first > last:
        raise TimeWindowError(
            f"{store.uri}: no commit between {minute(since_ms or 0)} and "
            f"{minute(until_ms or 0)} UTC ({clock})"
        )
    return VersionWindow(
        first_version=versions[first],
        last_version=versions[last],
        since_ms=since_ms,
        until_ms=until_ms,
        first_commit_ms=times(first),
        last_commit_ms=times(last),
        clock=clock,
        clock_note=note,
        commits_read=stamps.read,
        timeless=stamps.timeless,
    )


def _in_commit_start(versions: Sequence[int], stamps: _Stamps) -> int | None:
    """The index of the first commit of the newest run of commits with in-commit timestamps
    (``None``: the newest commit has none, so they are off). The enabling commit's metaData
    names its version; else a binary search finds where the run starts."""
    if stamps(versions[-1]).in_commit_timestamp is None:
        return None
    lo, hi = 0, len(versions) - 1  # invariant: versions[hi] has one
    while lo < hi:
        mid = (lo + hi) // 2
        if stamps(versions[mid]).in_commit_timestamp is None:
            lo = mid + 1
        else:
            hi = mid
    named = stamps(versions[hi]).enablement_version
    if named is not None and named in versions and named > versions[hi]:
        return versions.index(named)
    return hi


def _clock(
    store: LogStore,
    listing: LogListing,
    versions: Sequence[int],
    ict_from: int | None,
    stamps: _Stamps,
) -> tuple[str, str | None, Callable[[int], int]]:
    """The clock, a note on it, and the time of the commit at each index."""
    older = len(versions) if ict_from is None else ict_from
    if older == 0:
        return Clock.IN_COMMIT, None, lambda i: _need(stamps(versions[i]).in_commit_timestamp)
    mtimes, problem = _modification_times(store, listing, versions[:older], stamps)
    if problem is not None:
        base: Callable[[int], int] = lambda i: _commit_info_time(stamps, versions, i)  # noqa: E731
        clock, note = Clock.COMMIT_INFO, f"file times unreliable: {problem}"
    else:
        adjusted = _monotonic(mtimes)
        base, clock, note = adjusted.__getitem__, Clock.MODIFICATION, None
    if ict_from is None:
        return clock, note, base
    label = f"{clock} before version {versions[ict_from]}, {Clock.IN_COMMIT} from it"

    def mixed(i: int) -> int:
        return base(i) if i < older else _need(stamps(versions[i]).in_commit_timestamp)

    return label, note, mixed


def _modification_times(
    store: LogStore, listing: LogListing, versions: Sequence[int], stamps: _Stamps
) -> tuple[list[int], str | None]:
    """Each commit file's modification time, or why they cannot be trusted.

    The listing's own times when it has one for every commit (the stat that gave the sizes
    gave them too, or a local listing's stat on demand); else the store's, from a listing of
    their own. A store that reports no times has none, whatever its listing held.

    The first, middle and newest commits' times are held against their ``commitInfo``
    first: a copy fails there, and then no other file's time is read (a stat each of
    1,000,000 commits on a local disk took ~10 s, issue #23)."""
    if not isinstance(store, SupportsModificationTimes):
        return [], "the storage does not report them"
    found: Mapping[str, int] = listing.modified
    probes = sorted({0, len(versions) // 2, len(versions) - 1})
    probed = [listing.commits[versions[i]] for i in probes]
    fetch_facts(found, probed)
    if all(n in found for n in probed):
        far = _far_from_commit_info(versions, [found[n] for n in probed], probes, stamps)
        if far is not None:
            return [], far
    names = [listing.commits[v] for v in versions]
    fetch_facts(found, names)
    if not all(n in found for n in names):
        found = store.modification_times()
    if not all(n in found for n in names):
        return [], "the storage does not report them"
    times = [found[n] for n in names]
    if len(times) > 1 and len(set(times)) == 1:
        return times, "all one instant (a copy)"
    back = next(
        (i for i in range(1, len(times)) if times[i] < times[i - 1] - BACKWARDS_TOLERANCE_MS),
        None,
    )
    if back is not None:
        return times, f"v{versions[back]} older than v{versions[back - 1]}"
    probes = sorted({0, len(times) // 2, len(times) - 1})
    return times, _far_from_commit_info(versions, [times[i] for i in probes], probes, stamps)


def _far_from_commit_info(
    versions: Sequence[int], times: Sequence[int], probes: Sequence[int], stamps: _Stamps
) -> str | None:
    """Why a probed commit's file time is not its commit's: further from the time its
    ``commitInfo`` records than a commit takes to land."""
    for i, time in zip(probes, times, strict=True):
        recorded = stamps(versions[i]).commit_info_timestamp
        if recorded is not None and abs(time - recorded) > MODIFICATION_TOLERANCE_MS:
            return f"v{versions[i]} file {minute(time)}, commitInfo {minute(recorded)}"
    return None


def _monotonic(times: Sequence[int]) -> list[int]:
    """Delta's adjustment: a commit never counts as earlier than its predecessor + 1 ms."""
    out: list[int] = []
    for t in times:
        out.append(t if not out or t > out[-1] else out[-1] + 1)
    return out


def _commit_info_time(stamps: _Stamps, versions: Sequence[int], index: int) -> int:
    """``commitInfo.timestamp``; a commit without one takes the nearest older commit's."""
    for i in range(index, max(-1, index - 50), -1):
        found = stamps(versions[i]).commit_info_timestamp
        if found is not None:
            return found
    raise TimeWindowError(
        f"version {versions[index]} and the 50 commits before it record no commitInfo.timestamp"
    )


def _need(value: int | None) -> int:
    if value is None:
        raise TimeWindowError("a commit after in-commit timestamps were enabled has none")
    return value


def _first_at_or_after(count: int, times: Callable[[int], int], target: int) -> int:
    """The smallest index whose time is at least ``target`` (``count`` if none): a binary
    search, so a window at the end of a long log reads about log2(count) commits."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        if times(mid) < target:
            lo = mid + 1
        else:
            hi = mid
    return lo
