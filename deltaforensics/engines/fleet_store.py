"""What a fleet job fetches for each table, and the :class:`LogStore` its work reads them from.

The driver lists each table and names the files its work will read (a run of commits, the
parts of a checkpoint, sidecars, ``_last_checkpoint``): a :class:`FleetTable`. On the executor
the fetched bytes become a :class:`FetchedStore`, which replays the driver's listing, so the
core readers run on them exactly as they run on the table's own store. Nothing here needs
Spark.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from deltaforensics.errors import DeltaForensicsError, StorageError
from deltaforensics.log.listing import LogListing
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LOG_DIR, LogStore, StoredFile


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetTable:
    """One table of a fleet job: where Spark reads its log and which files its work needs."""

    key: str  # unique in the job; the name results come back under
    log_uri: str  # where Spark reads the table's _delta_log (see spark_log_uri)
    store_uri: str  # what the FetchedStore reports as its uri
    stored: tuple[StoredFile, ...]  # the driver's listing, replayed by FetchedStore.list_log
    commits: tuple[tuple[int, str], ...] = ()  # consecutive commits (a segment's)
    files: tuple[str, ...] = ()  # other files under _delta_log, by name
    given: tuple[tuple[str, bytes], ...] = ()  # files the driver read (Spark skips _-names)
    context: Any = None  # handed to the work function; pickled with cloudpickle

    @classmethod
    def for_segment(
        cls,
        key: str,
        listing: LogListing,
        segment: LogSegment | None,
        *,
        log_uri: str,
        store: LogStore | None = None,
        context: Any = None,
    ) -> FleetTable:
        """The files a scan of ``segment`` reads, and ``_last_checkpoint`` (``list_log`` reads
        it), which the driver reads from ``store``: Spark's file listing skips names starting
        with ``_``."""
        files: list[str] = []
        given: list[tuple[str, bytes]] = []
        if store is not None and "_last_checkpoint" in listing.sizes:
            # unreadable: the work's list_log misses it, and the table is redone on the driver
            with contextlib.suppress(DeltaForensicsError):
                given.append(("_last_checkpoint", store.read("_last_checkpoint")))
        if segment is not None and segment.checkpoint is not None:
            files += segment.checkpoint.names
            # the sidecars it needs are named inside it; a V2 checkpoint may be classic-named
            files += sorted(listing.sidecars)
        return cls(
            key=key,
            log_uri=log_uri,
            store_uri=listing.uri,
            stored=stored_files(listing),
            commits=segment.commits if segment is not None else (),
            files=tuple(files),
            given=tuple(given),
            context=context,
        )


def stored_files(listing: LogListing) -> tuple[StoredFile, ...]:
    """The store's listing that ``listing`` was made from (``sizes`` keeps it, in order)."""
    return tuple(StoredFile(name, size) for name, size in listing.sizes.items())


@dataclass(slots=True)
class FetchedStore:
    """A :class:`LogStore` over the files a fleet job fetched for one table.

    Lists what the driver listed; reads what the job fetched. An empty file reads as empty
    (Spark plans no split for one, so it never comes back as a row). Any other file is recorded
    in ``missed`` and fails with :class:`StorageError`: its table is redone on the driver.
    """

    uri: str
    stored: tuple[StoredFile, ...]
    files: dict[str, bytes]
    missed: list[str] = field(default_factory=list)

    def list_log(self) -> list[StoredFile]:
        return list(self.stored)

    def read(self, name: str) -> bytes:
        data = self.files.get(name)
        if data is not None:
            return data
        if any(f.name == name and f.size == 0 for f in self.stored):
            return b""
        self.missed.append(name)
        raise StorageError(self.uri, f"{LOG_DIR}/{name} was not fetched by the Spark job")

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        return {n: self.read(n) for n in names}


__all__ = ["FetchedStore", "FleetTable", "stored_files"]
