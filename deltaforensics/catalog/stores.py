"""Stores a catalog table is read through: credentials renewed before they expire, and the
commits a catalog-managed table's catalog has ratified but not yet published.

Both are :class:`~deltaforensics.log.storage.StoreWrapper` s: everything below them sees an
ordinary ``_delta_log``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from deltaforensics.log.paths import commit_name
from deltaforensics.log.storage import (
    LogStore,
    StoredFile,
    StoreWrapper,
    SupportsModificationTimes,
)

# Renew this long before the vended SAS expires: a long audit's read must not start on a
# credential that dies halfway (Unity Catalog vends them for about an hour).
REFRESH_MARGIN_MS = 5 * 60 * 1000


class RefreshingStore(StoreWrapper):
    """A store opened with vended credentials, opened again with fresh ones before they expire.

    ``open_store`` vends a credential and opens the store with it, returning the store and the
    credential's expiry (epoch ms; ``None``: it does not expire)."""

    def __init__(
        self,
        open_store: Callable[[], tuple[LogStore, int | None]],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        inner, expires = open_store()
        super().__init__(inner)
        self._open, self._clock, self._expires = open_store, clock, expires
        self.renewals = 0

    def _fresh(self) -> LogStore:
        if self._expires is not None and self._clock() * 1000 >= self._expires - REFRESH_MARGIN_MS:
            self._inner, self._expires = self._open()
            self.renewals += 1
        return self._inner

    def list_log(self) -> list[StoredFile]:
        return self._fresh().list_log()

    def read(self, name: str) -> bytes:
        return self._fresh().read(name)

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        return self._fresh().read_many(names)

    def modification_times(self) -> dict[str, int]:
        inner = self._fresh()
        return inner.modification_times() if isinstance(inner, SupportsModificationTimes) else {}


@dataclass(frozen=True, slots=True, kw_only=True)
class RatifiedCommit:
    """A commit the catalog ratified: its version and its file under ``_staged_commits/``."""

    version: int
    file_name: str
    size: int | None = None
    modified_ms: int | None = None


class RatifiedCommitsStore(StoreWrapper):
    """A catalog-managed table's log as its catalog sees it: each ratified, unpublished
    commit listed as the published ``NNN.json`` it will become, read from its staged file."""

    def __init__(self, inner: LogStore, ratified: Sequence[RatifiedCommit]) -> None:
        super().__init__(inner)
        self._staged: Mapping[str, RatifiedCommit] = {commit_name(c.version): c for c in ratified}
        self._shown = dict(self._staged)  # those not published yet, as of the last listing

    def list_log(self) -> list[StoredFile]:
        files = self._inner.list_log()
        published = {f.name for f in files}
        self._shown = {n: c for n, c in self._staged.items() if n not in published}
        hidden = {f"_staged_commits/{c.file_name}" for c in self._shown.values()}
        return [f for f in files if f.name not in hidden] + [
            StoredFile(name, c.size) for name, c in self._shown.items()
        ]

    def read(self, name: str) -> bytes:
        return self._inner.read(self._where(name))

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        got = self._inner.read_many([self._where(n) for n in names])
        return {n: got[self._where(n)] for n in names}

    def modification_times(self) -> dict[str, int]:
        inner = self._inner
        found = inner.modification_times() if isinstance(inner, SupportsModificationTimes) else {}
        for name, c in self._staged.items():
            staged = found.get(f"_staged_commits/{c.file_name}", c.modified_ms)
            if name not in found and staged is not None:
                found[name] = staged
        return found

    def _where(self, name: str) -> str:
        c = self._shown.get(name)
        return name if c is None else f"_staged_commits/{c.file_name}"
