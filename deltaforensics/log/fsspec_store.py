"""The :class:`~deltaforensics.log.storage.LogStore` over any fsspec filesystem, with every
capability :mod:`deltaforensics.log.storage` declares.

A store for another fsspec filesystem (ADLS through adlfs today) is this class over that
filesystem (:func:`deltaforensics.log.location.resolve_remote`), and so has the capabilities
too: on a local disk each of them is the fast path; elsewhere each gives the answer of a
store that cannot tell (``None``, ``{}``) or lists once more (modification times).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

import fsspec

from deltaforensics.errors import NotADeltaTableError, StorageError
from deltaforensics.log.storage import LOG_DIR, StoredFile, not_a_file, split_table_uri

_NESTED_DIRS = ("_sidecars", "_staged_commits", "_commits")
_READ_BUFFER = 1 << 20
T = TypeVar("T")


def _is_local(uri: str) -> bool:
    scheme = urlparse(uri).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


@dataclass(slots=True)
class FsspecLogStore:
    """A :class:`~deltaforensics.log.storage.LogStore` over any fsspec filesystem (local,
    ``memory://``, ADLS via adlfs), with all of its capabilities: ``SupportsNameListing``
    (and so ``SupportsFileFacts``), ``SupportsModificationTimes``, ``SupportsLocalFiles``."""

    fs: Any
    root: str  # table root in the filesystem's own path form
    display_uri: str
    retries: int = 3
    backoff_seconds: float = 0.5
    batch_size: int = 256
    classify: Callable[[BaseException], str] = field(default=lambda e: f"{type(e).__name__}: {e}")

    @classmethod
    def from_uri(
        cls, uri: str, storage_options: Mapping[str, str] | None = None, **kwargs: Any
    ) -> FsspecLogStore:
        table = split_table_uri(uri)
        if _is_local(table):
            path = unquote(urlparse(table).path) if table.startswith("file:") else table
            # absolute, but symlinks kept: the table is reported as the user named it
            root = os.path.abspath(Path(path).expanduser())  # noqa: PTH100 - resolve() would follow symlinks
            return cls(fs=fsspec.filesystem("file"), root=root, display_uri=root, **kwargs)
        from deltaforensics.log import location  # noqa: PLC0415 - keeps azure code off local runs

        resolved = location.resolve_remote(table, dict(storage_options or {}))
        return cls(
            fs=resolved.fs,
            root=resolved.root,
            display_uri=resolved.display_uri,
            classify=resolved.classify,
            **kwargs,
        )

    @property
    def uri(self) -> str:
        return self.display_uri

    @property
    def log_path(self) -> str:
        return f"{self.root.rstrip('/')}/{LOG_DIR}"

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        delay = self.backoff_seconds
        for attempt in range(self.retries + 1):
            try:
                return fn()
            except (FileNotFoundError, NotADirectoryError, PermissionError, IsADirectoryError):
                raise
            except OSError as exc:
                flagged = getattr(exc, "transient", None)
                transient = flagged if isinstance(flagged, bool) else _transient(exc)
                if attempt == self.retries or not transient:
                    raise StorageError(self.display_uri, f"{what}: {self.classify(exc)}") from None
            time.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    @property
    def _local(self) -> bool:
        protocol = getattr(self.fs, "protocol", ())
        return "file" in (protocol if isinstance(protocol, tuple | list) else (protocol,))

    def list_log(self) -> list[StoredFile]:
        base = self.log_path
        if self._local:
            found = self._list_local(base)
            if found is not None:
                return found
        try:
            entries = self._call("listing _delta_log", lambda: self.fs.ls(base, detail=True))
        except FileNotFoundError:
            if not self._exists(self.root):
                raise StorageError(self.display_uri, "path not found") from None
            raise NotADeltaTableError(self.display_uri, "no _delta_log folder") from None
        except NotADirectoryError:
            raise NotADeltaTableError(self.display_uri, "_delta_log is not a folder") from None
        except PermissionError as exc:
            raise StorageError(
                self.display_uri, f"permission denied: {self.classify(exc)}"
            ) from None
        out: list[StoredFile] = []
        for entry in entries:
            name = _relative(entry["name"], base)
            if entry.get("type") == "directory":
                if name in _NESTED_DIRS:
                    out.extend(self._list_nested(f"{base}/{name}", name))
                else:
                    out.append(StoredFile(name + "/", None))
                continue
            if entry.get("type") == "other":  # fsspec's local FIFO, socket or device
                out.append(StoredFile(not_a_file(name), None))
                continue
            out.append(StoredFile(name, entry.get("size"), _modified_ms(entry)))
        return out

    def _list_local(self, base: str) -> list[StoredFile] | None:
        """``os.scandir`` instead of fsspec's ``ls`` (a stat per entry through three layers of
        path normalisation); ``None`` on any error, so the fsspec path reports it as before."""
        out: list[StoredFile] = []
        try:
            with os.scandir(base) as it:
                for entry in it:
                    if entry.is_dir():
                        out.extend(self._folder(base, entry.name))
                        continue
                    if not entry.is_file():
                        out.append(StoredFile(not_a_file(entry.name), None))
                        continue
                    stat = entry.stat()
                    out.append(StoredFile(entry.name, stat.st_size, stat.st_mtime_ns // 1_000_000))
        except OSError:
            return None
        return out

    def _folder(self, base: str, name: str) -> list[StoredFile]:
        """A folder in ``_delta_log``: the files of one Delta keeps files in, else itself."""
        if name in _NESTED_DIRS:
            return self._list_nested(f"{base}/{name}", name)
        return [StoredFile(name + "/", None)]

    def _names_local(self, base: str) -> list[str] | None:
        """``os.scandir``: each entry's kind comes with its name (``d_type``), so a FIFO,
        socket or device named like a commit is known without a ``stat`` (a link is followed)
        and never read: reading one blocks or never ends (issue #32). Such an entry is named
        :func:`not_a_file`, which the listing files as junk. About the time of ``os.listdir``
        here (0.11-0.14 s for 200,000 names, each way)."""
        names: list[str] = []
        folders: list[str] = []
        try:
            with os.scandir(base) as it:
                for entry in it:
                    if entry.is_file():
                        names.append(entry.name)
                    elif entry.is_dir():
                        folders.append(entry.name)
                    else:
                        names.append(not_a_file(entry.name))
        except OSError:
            return None
        for folder in sorted(folders):
            names += [f.name for f in self._folder(base, folder)]
        return names

    def list_log_names(self) -> list[str] | None:
        """The names :meth:`list_log` would give (a folder's with a trailing ``/``) on a local
        disk, without a ``stat`` per file: the directory itself names them, and a stat of each
        of 1,000,000 commit files cost ~10 s here (issue #23); :meth:`file_facts` then reads
        the sizes and times of the few files a reader asks about. ``None`` where names come
        with their sizes and times at no extra cost (object stores): use :meth:`list_log`."""
        return self._names_local(self.log_path) if self._local else None

    def file_facts(self, names: Sequence[str]) -> dict[str, StoredFile]:
        """Size and modification time of each of ``names`` (relative to ``_delta_log``) that
        is still there: a ``stat`` each (:meth:`list_log_names`)."""
        base, out = self.log_path, {}
        for name in names:
            try:
                found = Path(f"{base}/{name}").stat()
            except OSError:
                continue
            out[name] = StoredFile(name, found.st_size, found.st_mtime_ns // 1_000_000)
        return out

    def _list_nested(self, path: str, prefix: str) -> list[StoredFile]:
        try:
            entries = self._call(f"listing {prefix}", lambda: self.fs.ls(path, detail=True))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return []
        return [
            StoredFile(f"{prefix}/{_relative(e['name'], path)}", e.get("size"))
            for e in entries
            if e.get("type") not in ("directory", "other")
        ]

    def modification_times(self) -> dict[str, int]:
        """Each ``_delta_log`` file's last-modified time in ms, from one more listing: Delta's
        commit timestamp when in-commit timestamps are off (``DeltaHistoryManager``); read only
        for ``--since``/``--until`` (:mod:`deltaforensics.log.commit_times`), and only when the
        listing they were placed on lacks a commit's time (``StoredFile.modified_ms``)."""
        base = self.log_path
        if self._local:
            try:
                with os.scandir(base) as it:
                    return {e.name: e.stat().st_mtime_ns // 1_000_000 for e in it if e.is_file()}
            except OSError:
                pass
        entries = self._call("listing _delta_log", lambda: self.fs.ls(base, detail=True))
        out: dict[str, int] = {}
        for entry in entries:
            stamp = _modified_ms(entry)
            if stamp is not None and entry.get("type") != "directory":
                out[_relative(entry["name"], base)] = stamp
        return out

    def _exists(self, path: str) -> bool:
        try:
            return bool(self.fs.exists(path))
        except OSError:
            return False

    def local_log_dir(self) -> str | None:
        """The OS path of ``_delta_log`` on a local disk, else ``None``."""
        return self.log_path if self._local else None

    def local_file(self, name: str) -> str | None:
        """The OS path of a readable local log file, else ``None`` (not local, or not there:
        :meth:`read` then reports it). A parquet reader given the path reads only the column
        chunks it needs; most of a large checkpoint's bytes are statistics it may skip."""
        if not self._local:
            return None
        path = f"{self.log_path}/{name}"
        return path if Path(path).is_file() and os.access(path, os.R_OK) else None

    def read(self, name: str) -> bytes:
        path = f"{self.log_path}/{name}"
        try:
            data: bytes = self._call(f"reading {name}", lambda: self.fs.cat_file(path))
        except FileNotFoundError:
            raise StorageError(
                self.display_uri, f"{LOG_DIR}/{name} vanished while reading"
            ) from None
        except IsADirectoryError:
            raise StorageError(self.display_uri, f"{LOG_DIR}/{name} is a folder") from None
        except PermissionError as exc:
            raise StorageError(
                self.display_uri, f"permission denied on {name}: {self.classify(exc)}"
            ) from None
        return data

    def read_many(self, names: Sequence[str]) -> dict[str, bytes]:
        """Fetch many files concurrently where the filesystem supports it (adlfs batches)."""
        if not names:
            return {}
        if getattr(self.fs, "async_impl", False):
            return self._read_many_async(names)
        if self._local:
            return self._read_many_local(names)
        return {name: self.read(name) for name in names}

    def _read_many_local(self, names: Sequence[str]) -> dict[str, bytes]:
        """``os.open``/``os.read``: per small file, fsspec's ``cat_file`` costs several times the
        read itself (``info``, ``_strip_protocol`` x3, a ``LocalFileOpener``; builtin ``open``
        still builds a buffered reader). On any error the file goes through ``read``, which
        retries and words the error exactly as before."""
        base = self.log_path
        flags = os.O_RDONLY | getattr(os, "O_BINARY", 0)
        out: dict[str, bytes] = {}
        for name in names:
            try:
                fd = os.open(f"{base}/{name}", flags)
                try:
                    # a regular file reads short only at its end: a commit smaller than the
                    # buffer takes one read, not a second that returns nothing
                    chunks = [os.read(fd, _READ_BUFFER)]
                    while len(chunks[-1]) == _READ_BUFFER:
                        chunks.append(os.read(fd, _READ_BUFFER))
                finally:
                    os.close(fd)
                out[name] = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            except OSError:
                out[name] = self.read(name)
        return out

    def _read_many_async(self, names: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        base = self.log_path
        for start in range(0, len(names), self.batch_size * 16):
            chunk = names[start : start + self.batch_size * 16]
            paths = [f"{base}/{n}" for n in chunk]
            got = self._call(
                "reading commits",
                lambda paths=paths: self.fs.cat(  # type: ignore[misc]
                    paths, on_error="return", batch_size=self.batch_size
                ),
            )
            for name, path in zip(chunk, paths, strict=True):
                value = _lookup(got, path)
                if isinstance(value, BaseException):
                    if isinstance(value, FileNotFoundError):
                        raise StorageError(
                            self.display_uri, f"{LOG_DIR}/{name} vanished while reading"
                        )
                    out[name] = self.read(name)  # retried singly with backoff
                else:
                    out[name] = value
        return out


def _lookup(got: Mapping[str, Any], path: str) -> Any:
    if path in got:
        return got[path]
    stripped = path.split("://", 1)[-1]
    for key, value in got.items():
        if key.split("://", 1)[-1].lstrip("/") == stripped.lstrip("/"):
            return value
    return FileNotFoundError(path)


def _relative(name: str, base: str) -> str:
    n = name.replace("\\", "/").split("://", 1)[-1].lstrip("/")
    b = base.replace("\\", "/").split("://", 1)[-1].lstrip("/").rstrip("/")
    return n[len(b) + 1 :] if n.startswith(b + "/") else n.rsplit("/", 1)[-1]


def _transient(exc: OSError) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return any(
        word in text
        for word in (
            "timeout",
            "timed out",
            "throttl",
            "503",
            "500",
            "429",
            "connection reset",
            "temporarily",
            "serverbusy",
            "too many requests",
        )
    )


def _modified_ms(entry: Mapping[str, Any]) -> int | None:
    """An fsspec listing entry's last-modified time in ms (object stores say
    ``last_modified``, a datetime; local and others ``mtime``, seconds)."""
    stamp = entry.get("last_modified", entry.get("mtime"))
    if hasattr(stamp, "timestamp"):
        stamp = stamp.timestamp()
    return int(stamp * 1000) if isinstance(stamp, int | float) else None
