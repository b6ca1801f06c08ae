"""Where log bytes come from: the :class:`LogStore` protocol and the capabilities a store may add.

A :class:`LogStore` is read-only by construction: it can list ``_delta_log`` and read files,
nothing else. The table location is resolved once; every path it hands out is relative to
``_delta_log``. Messages name :attr:`LogStore.uri`, which never carries credentials.

Four members are all a store must have. What a reader does faster, or only, with some stores is
a capability: one protocol each below, with its contract, asked for with ``isinstance`` where it
is used (in the manner of delta-kernel-rs's ``StorageHandler``, which declares what an engine's
storage must do and leaves how to it; docs/architecture.md, "The storage seam").
:class:`~deltaforensics.log.fsspec_store.FsspecLogStore` has every capability, so a store built
on it (ADLS, and any other fsspec filesystem) has them too; a reader works without any of them.

fsspec and adlfs stay inside the log package (:mod:`.fsspec_store`, :mod:`.location` and
:mod:`.azure`; a test in tests/test_architecture.py holds every other module to that).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

LOG_DIR = "_delta_log"


@dataclass(frozen=True, slots=True)
class StoredFile:
    name: str  # relative to _delta_log, "/"-separated
    size: int | None = None
    # last-modified time in ms when the listing reports it: the same stat as the size, so a
    # time window need not list the log a second time (:mod:`deltaforensics.log.commit_times`).
    # Not part of a file's identity: a copy of the log on other storage is the same log.
    modified_ms: int | None = field(default=None, compare=False)


class LogStore(Protocol):
    """Read-only access to one table's ``_delta_log``: what every store has.

    - ``uri``: the table as the user named it, without credentials; every message names it.
    - ``list_log()``: every entry of ``_delta_log`` once, in any order, with its size and
      (when the storage says) modification time; a folder other than those Delta keeps files
      in (``_sidecars``, ``_staged_commits``, ``_commits``, whose files are listed as
      ``folder/name``) is listed as ``name/`` without a size. A log that is not there raises
      :class:`~deltaforensics.errors.NotADeltaTableError`, storage that fails
      :class:`~deltaforensics.errors.StorageError`.
    - ``read(name)``: one file's bytes; a file gone since the listing raises ``StorageError``.
    - ``read_many(names)``: the bytes of each of ``names``, keyed by name, as ``read`` would
      give them one by one (a store may fetch them side by side).
    """

    @property
    def uri(self) -> str: ...

    def list_log(self) -> list[StoredFile]: ...

    def read(self, name: str) -> bytes: ...

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]: ...


@runtime_checkable
class SupportsFileFacts(Protocol):
    """A store that can tell a listed file's size and modification time on its own.

    ``file_facts(names)`` answers, for each of ``names`` (relative to ``_delta_log``) that is
    still there and whose facts the store can read, a :class:`StoredFile` with its size and
    time in ms; a name it leaves out is gone, or one the store cannot tell about (a store that
    can tell nothing answers ``{}``). It never raises for a missing file. Used by the
    checkpoint prefetch (is a named checkpoint large enough to start early?) and by a listing
    of names alone (:class:`SupportsNameListing`)."""

    def file_facts(self, names: Sequence[str]) -> dict[str, StoredFile]: ...


@runtime_checkable
class SupportsNameListing(SupportsFileFacts, Protocol):
    """A store that can list ``_delta_log``'s names without each file's size and time.

    ``list_log_names()`` gives the names :meth:`LogStore.list_log` would give (a folder's with a
    trailing ``/``, the files of Delta's own folders as ``folder/name``), or ``None`` when this
    store's names come with their sizes and times at no extra cost (an object store's listing):
    the reader then calls ``list_log``. When it gives names, ``file_facts`` answers for them,
    and is asked only about the few files a reader needs (a ``stat`` per file of a 1,000,000
    commit log on a local disk cost ~10 s, issue #23)."""

    def list_log_names(self) -> list[str] | None: ...


@runtime_checkable
class SupportsModificationTimes(Protocol):
    """A store whose storage records when each log file was last modified.

    ``modification_times()`` lists ``_delta_log`` again and answers each file's last-modified
    time in ms (the files of Delta's own folders as ``folder/name``, or as the name the store
    shows them under); a file without a time is left out, and a store wrapping one that has
    none answers ``{}``. Delta takes a commit's time from its file when in-commit timestamps
    are off (``DeltaHistoryManager``); only ``--since``/``--until`` ask, and only when the
    listing lacked a time (:mod:`deltaforensics.log.commit_times`). A store without this
    capability reports no times, whatever its listing held."""

    def modification_times(self) -> dict[str, int]: ...


@runtime_checkable
class SupportsLocalFiles(Protocol):
    """A store that may keep the log on a local disk, readable in place.

    ``local_log_dir()`` is the operating system's path of ``_delta_log`` when the log is on a
    local disk, else ``None`` (Spark then reads it as a plain path, not a URI Hadoop would
    re-encode). ``local_file(name)`` is the path of one readable file of it, else ``None``
    (not local, or not there: :meth:`LogStore.read` then reports it); a parquet reader given a
    path reads only the column chunks it needs. Neither raises."""

    def local_log_dir(self) -> str | None: ...

    def local_file(self, name: str) -> str | None: ...


@runtime_checkable
class SupportsChunkedReads(Protocol):
    """A store that reads a long list of files in slices itself (to report progress over all).

    ``read_chunks(names, size)`` yields ``read_many`` of ``names[0:size]``, then of
    ``names[size:2 * size]``, ... in order, so a caller can work on one slice while the next
    is read; the bytes are those ``read_many`` gives. :func:`read_chunks` asks for it."""

    def read_chunks(self, names: Sequence[str], size: int) -> Iterator[dict[str, bytes]]: ...


def read_chunks(store: LogStore, names: Sequence[str], size: int) -> Iterator[dict[str, bytes]]:
    """``store.read_many`` of ``names[0:size]``, ``names[size:2 * size]``, ...: a caller can work
    on one slice while the next is read. A store with :class:`SupportsChunkedReads` reads them."""
    if isinstance(store, SupportsChunkedReads):
        yield from store.read_chunks(names, size)
        return
    for start in range(0, len(names), size):
        yield store.read_many(names[start : start + size])


def split_table_uri(uri: str) -> str:
    """Accept a table root, its ``_delta_log`` folder, or either with a trailing slash."""
    stripped = uri.rstrip("/")
    if stripped.endswith("/" + LOG_DIR) or stripped == LOG_DIR:
        stripped = stripped[: -len(LOG_DIR)].rstrip("/") or "."
    return stripped


class StoreWrapper:
    """A :class:`LogStore` that passes the protocol's calls to another one: the base of a
    store that changes one of them. No capability is passed on (names may mean other files
    through a wrapper); a wrapper declares the ones it keeps."""

    def __init__(self, inner: LogStore) -> None:
        self._inner = inner

    @property
    def uri(self) -> str:
        return self._inner.uri

    def list_log(self) -> list[StoredFile]:
        return self._inner.list_log()

    def read(self, name: str) -> bytes:
        return self._inner.read(name)

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        return self._inner.read_many(names)


class ReportingStore(StoreWrapper):
    """A store that reports how many of the requested log files it has read.

    ``read_many`` fetches in chunks (each chunk still concurrently) so a caller can show
    progress on long logs; everything else, each capability included, is the wrapped store's:
    a capability the wrapped store lacks gets the answer of a store that can tell nothing.
    """

    CHUNK = 2000

    def __init__(self, inner: LogStore, on_read: Callable[[int, int], None]) -> None:
        super().__init__(inner)
        self._on_read = on_read

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        return next(self.read_chunks(names, len(names)), {}) if names else {}

    def read_chunks(self, names: Sequence[str], size: int) -> Iterator[dict[str, bytes]]:
        """Slices of ``size`` names, as :func:`read_chunks`; progress counts over all of them."""
        total, done = len(names), 0
        for start in range(0, total, size):
            out: dict[str, bytes] = {}
            stop = min(start + size, total)
            for at in range(start, stop, self.CHUNK):
                out.update(self._inner.read_many(names[at : min(at + self.CHUNK, stop)]))
                self._on_read(done + len(out), total)
            done += len(out)
            yield out

    def list_log_names(self) -> list[str] | None:
        inner = self._inner
        return inner.list_log_names() if isinstance(inner, SupportsNameListing) else None

    def file_facts(self, names: Sequence[str]) -> dict[str, StoredFile]:
        inner = self._inner
        return inner.file_facts(names) if isinstance(inner, SupportsFileFacts) else {}

    def modification_times(self) -> dict[str, int]:
        inner = self._inner
        return inner.modification_times() if isinstance(inner, SupportsModificationTimes) else {}

    def local_log_dir(self) -> str | None:
        inner = self._inner
        return inner.local_log_dir() if isinstance(inner, SupportsLocalFiles) else None

    def local_file(self, name: str) -> str | None:
        inner = self._inner
        return inner.local_file(name) if isinstance(inner, SupportsLocalFiles) else None


def not_a_file(name: str) -> str:
    """How a listing names an entry of ``_delta_log`` that is neither a folder nor a regular
    file (a FIFO, socket, device, or a link to none): no Delta file is called so, and nothing
    named so is read (issue #32)."""
    return f"{name} (not a regular file)"
