"""Missing versions as ranges: a gap of 10,000 commits is one range, never 10,000 entries.

Computed from the versions present (sorted once), so a lone commit named with a huge version
costs nothing, where enumerating ``range(first, last)`` would not finish.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np

Range = tuple[int, int]  # first and last missing version, inclusive


def missing_ranges(present: Iterable[int], start: int, end: int) -> list[Range]:
    """The runs of versions in ``start..end`` (inclusive) that are not in ``present``.

    Column-wise where the versions fit 64 bits (a listing's always do): a segment of
    1,000,000 commits asks this a few times, and a Python sort of the versions each time
    cost ~0.5 s there."""
    if not isinstance(present, Collection):
        present = list(present)  # read twice when a version needs more than 64 bits
    try:
        found = np.fromiter(present, dtype=np.int64)
        lo, hi = np.int64(start), np.int64(end)
    except (OverflowError, TypeError, ValueError):
        return _missing_ranges(present, start, end)
    found = np.unique(found[(found >= lo) & (found <= hi)])
    if found.size == end - start + 1:
        return []
    bounds = np.concatenate(([start - 1], found, [end + 1]))
    at = np.flatnonzero(np.diff(bounds) > 1)
    return [(int(bounds[i]) + 1, int(bounds[i + 1]) - 1) for i in at]


def _missing_ranges(present: Iterable[int], start: int, end: int) -> list[Range]:
    out: list[Range] = []
    expected = start
    for v in sorted(v for v in set(present) if start <= v <= end):
        if v > expected:
            out.append((expected, v - 1))
        expected = v + 1
    if expected <= end:
        out.append((expected, end))
    return out


def count(ranges: Iterable[Range]) -> int:
    return sum(hi - lo + 1 for lo, hi in ranges)


def describe(ranges: Iterable[Range]) -> str:
    """``1-9998, 10001`` for the ranges ``(1, 9998), (10001, 10001)``."""
    return ", ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ranges)


def runs(versions: Iterable[int]) -> list[Range]:
    """The versions given, as runs of consecutive versions."""
    out: list[Range] = []
    for v in sorted(set(versions)):
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out
