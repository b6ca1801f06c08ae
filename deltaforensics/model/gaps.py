"""Missing versions as ranges: a gap of 10,000 commits is one range, never 10,000 entries.

Computed from the versions present (sorted once), so a lone commit named with a huge version
costs nothing, where enumerating ``range(first, last)`` would not finish.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Range = tuple[int, int]  # first and last missing version, inclusive


def missing_ranges(present: Iterable[int], start: int, end: int) -> list[Range]:
    """The runs of versions in ``start..end`` (inclusive) that are not in ``present``."""
    return SortedVersions.of(present).missing(start, end)


@dataclass(frozen=True, slots=True)
class SortedVersions:
    """Versions sorted once, for many questions about gaps.

    Column-wise where they fit 64 bits (a listing's always do): a segment of 1,000,000
    commits asks about its gaps a few times, and a Python sort of the versions each time
    cost ~0.5 s there. Either ``array`` holds the sorted, distinct versions, or (a version
    beyond 64 bits) ``wide`` does."""

    array: npt.NDArray[np.int64] | None
    wide: tuple[int, ...] = ()

    @classmethod
    def of(cls, present: Iterable[int]) -> SortedVersions:
        if not isinstance(present, Collection):
            present = list(present)  # read twice when a version needs more than 64 bits
        try:
            array = np.fromiter(present, dtype=np.int64)
        except (OverflowError, TypeError, ValueError):
            return cls(None, tuple(sorted(set(present))))
        return cls(distinct_sorted(array))

    @property
    def values(self) -> list[int]:
        """The sorted, distinct versions."""
        return list(self.wide) if self.array is None else self.array.tolist()

    @property
    def newest(self) -> int | None:
        if self.array is None:
            return self.wide[-1] if self.wide else None
        return int(self.array[-1]) if self.array.size else None

    def first_of_run(self, version: int) -> int:
        """The first version of the run of consecutive versions that holds ``version`` (one
        of them): where ``versions[i] - i`` first takes the value it has at ``version``."""
        if self.array is None or not _fits(version):
            values = self.values
            at = values.index(version)
            while at and values[at - 1] == values[at] - 1:
                at -= 1
            return values[at]
        at = int(np.searchsorted(self.array, version))
        offsets = self.array[: at + 1] - np.arange(at + 1, dtype=np.int64)
        return int(self.array[int(np.searchsorted(offsets, offsets[at]))])

    def missing(self, start: int, end: int) -> list[Range]:
        if self.array is None or not _fits(start) or not _fits(end):
            return _missing_ranges(self.values, start, end)
        lo = int(np.searchsorted(self.array, start, side="left"))
        hi = int(np.searchsorted(self.array, end, side="right"))
        if hi - lo == end - start + 1:  # distinct and in range: every version is there
            return []
        bounds = np.concatenate(([start - 1], self.array[lo:hi], [end + 1]))
        at = np.flatnonzero(np.diff(bounds) > 1)
        return [(int(bounds[i]) + 1, int(bounds[i + 1]) - 1) for i in at]


def distinct_sorted(array: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``np.unique(array)``, at the cost of one comparison when ``array`` is already strictly
    increasing, as a listing's versions nearly always are: numpy's ``unique`` hashes every
    value first, ~0.9 s for 1,000,000 versions, where the check takes milliseconds."""
    if array.size < 2 or bool((array[1:] > array[:-1]).all()):
        return array
    ordered = np.sort(array)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _fits(value: int) -> bool:
    """Whether ``value`` and its neighbours (``start - 1``, ``end + 1``) fit 64 bits."""
    return -(2**63) < value < 2**63 - 1


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


def version_spans(ranges: Iterable[Sequence[int]]) -> str:
    """``v2–v9998, v10001`` for the ranges ``[2, 9998], [10001, 10001]``: as a report shows
    versions."""
    return ", ".join(f"v{lo}" if lo == hi else f"v{lo}–v{hi}" for lo, hi in ranges)


def runs(versions: Iterable[int]) -> list[Range]:
    """The versions given, as runs of consecutive versions."""
    out: list[Range] = []
    for v in sorted(set(versions)):
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out
