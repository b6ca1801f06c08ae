"""The listed commit files by version, held as one sorted array of versions.

Nearly every name in a long log is a plain ``NNNNNNNNNNNNNNNNNNNN.json`` commit, whose name
its version spells. A dictionary from version to name held 1,000,000 Python integers and
strings (~150 MB) and cost ~0.5 s to build (issue #23); :class:`CommitNames` keeps the plain
commits' versions in a numpy array and only the other commit names (a writer's odd spelling
that :func:`~deltaforensics.log.paths.parse_log_path` still reads as a commit) by version.
It is the same mapping to a reader, iterated in version order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import numpy.typing as npt
import polars as pl

from deltaforensics.model.gaps import SortedVersions


def plain_name(version: int) -> str:
    return f"{version:020d}.json"


class CommitNames(Mapping[int, str]):
    """``plain`` (sorted, distinct) versions named :func:`plain_name`, and ``odd`` names,
    which win where both name a version (as the listing's later entry did)."""

    __slots__ = ("_all", "_odd", "_plain")

    def __init__(self, plain: npt.NDArray[np.int64], odd: Mapping[int, str]) -> None:
        self._plain, self._odd = plain, dict(odd)
        self._all: SortedVersions | None = None

    @property
    def versions(self) -> SortedVersions:
        """Every version, sorted once."""
        if self._all is None:
            if not self._odd:
                self._all = SortedVersions(self._plain)
            else:
                self._all = SortedVersions.of([*self._plain.tolist(), *self._odd])
        return self._all

    def _has_plain(self, version: object) -> bool:
        if not isinstance(version, int) or isinstance(version, bool):
            return False
        if not 0 <= version < 2**63 or not self._plain.size:
            return False
        at = int(np.searchsorted(self._plain, version))
        return at < self._plain.size and int(self._plain[at]) == version

    def __getitem__(self, version: int) -> str:
        odd = self._odd.get(version)
        if odd is not None:
            return odd
        if self._has_plain(version):
            return plain_name(version)
        raise KeyError(version)

    def __contains__(self, version: object) -> bool:
        return version in self._odd or self._has_plain(version)

    def __iter__(self) -> Iterator[int]:
        return iter(self.versions.values)

    def __len__(self) -> int:
        versions = self.versions
        return len(versions.wide) if versions.array is None else int(versions.array.size)

    def between(self, first: int, last: int) -> list[tuple[int, str]]:
        """``(version, name)`` of every listed commit in ``first..last``, in order, named
        column-wise: ``[(v, self[v]) for v in ...]`` cost ~2 s at 1,000,000 commits."""
        if self._odd:
            return [(v, self[v]) for v in self if first <= v <= last]
        if last < 0 or first >= 2**63:
            return []
        lo = int(np.searchsorted(self._plain, first, side="left")) if first > 0 else 0
        hi = int(np.searchsorted(self._plain, min(last, 2**63 - 1), side="right"))
        picked = pl.Series(self._plain[lo:hi], dtype=pl.Int64)
        names = picked.cast(pl.String).str.zfill(20) + ".json"
        return list(zip(picked.to_list(), names.to_list(), strict=True))


def commits_between(commits: Mapping[int, str], first: int, last: int) -> list[tuple[int, str]]:
    """``(version, name)`` of the commits of ``commits`` in ``first..last``, in order."""
    if isinstance(commits, CommitNames):
        return commits.between(first, last)
    return [(v, commits[v]) for v in sorted(commits) if first <= v <= last]
