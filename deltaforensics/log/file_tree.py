"""Read-only access to a file or a folder tree that is not a table: where Spark's event logs and
driver logs lie (a local path, ``abfss://`` and the other locations a table may have).

The same resolution as a table's location (:mod:`.location`, :mod:`.azure`), so credentials
and display URIs behave alike; fsspec stays inside this package. Files are opened as binary
streams and read by the caller in pieces: nothing here reads a whole file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlparse

import fsspec

from deltaforensics.errors import StorageError
from deltaforensics.log.resolved_location import plain_reason


@dataclass(frozen=True, slots=True)
class TreeFile:
    """One file under a :class:`FileTree`: its path relative to the tree's root (``/``-separated;
    ``""`` when the tree is that single file), size and last-modified time when listed."""

    name: str
    size: int | None = None
    modified_ms: int | None = None


@dataclass(slots=True)
class FileTree:
    """A file, or a folder and everything under it, read-only."""

    fs: Any
    root: str  # the filesystem's own path form
    display_uri: str  # never carries credentials
    classify: Callable[[BaseException], str] = field(default=plain_reason)

    @classmethod
    def from_uri(cls, uri: str, storage_options: Mapping[str, str] | None = None) -> FileTree:
        scheme = urlparse(uri).scheme
        if scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt"):
            path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
            root = os.path.abspath(Path(path).expanduser())  # noqa: PTH100 - keeps symlinks as named
            return cls(fs=fsspec.filesystem("file"), root=root, display_uri=root)
        from deltaforensics.log import location  # noqa: PLC0415 - keeps azure code off local runs

        resolved = location.resolve_remote(uri.rstrip("/"), dict(storage_options or {}))
        return cls(
            fs=resolved.fs,
            root=resolved.root,
            display_uri=resolved.display_uri,
            classify=resolved.classify,
        )

    def display(self, name: str) -> str:
        """The credential-free URI of one file of the tree."""
        return f"{self.display_uri.rstrip('/')}/{name}" if name else self.display_uri

    def _path(self, name: str) -> str:
        return f"{self.root.rstrip('/')}/{name}" if name else self.root

    def list_files(self) -> list[TreeFile]:
        """Every file under the root (the root itself when it is a file), sorted by name.
        A root that cannot be listed or read raises :class:`StorageError` naming it."""
        try:
            info = self.fs.info(self.root)
            if info.get("type") != "directory":
                return [TreeFile("", info.get("size"), _modified_ms(info))]
            found = self.fs.find(self.root, detail=True, withdirs=False)
        except (OSError, ValueError) as exc:
            raise StorageError(self.display_uri, self.classify(exc)) from None
        base = self.root.rstrip("/") + "/"
        out = [
            TreeFile(str(path)[len(base) :], entry.get("size"), _modified_ms(entry))
            for path, entry in found.items()
            if str(path).startswith(base)
        ]
        return sorted(out, key=lambda f: f.name)

    def open(self, name: str) -> IO[bytes]:
        """A binary stream of one file; :class:`StorageError` naming it when it cannot be opened."""
        try:
            stream: IO[bytes] = self.fs.open(self._path(name), "rb")
        except (OSError, ValueError) as exc:
            raise StorageError(self.display(name), self.classify(exc)) from None
        return stream


def _modified_ms(entry: Mapping[str, Any]) -> int | None:
    for key in ("mtime", "last_modified", "LastModified"):
        value = entry.get(key)
        if isinstance(value, int | float):
            return int(value * 1000)
        stamp = getattr(value, "timestamp", None)
        if callable(stamp):
            return int(stamp() * 1000)
    return None
