"""Failures of the tool itself. Findings about a log are values, never exceptions.

Every error carries what a user needs to act: which file or URL, which version, what is wrong.
The CLI prints ``str(err)`` on one line and exits 3; hints travel as ``add_note`` notes.
"""

from __future__ import annotations


class DeltaForensicsError(Exception):
    """Base of every error the CLI maps to exit code 3."""


class StorageError(DeltaForensicsError):
    """The table location could not be listed or read (auth, network, missing path)."""

    def __init__(self, uri: str, reason: str) -> None:
        super().__init__(f"{uri}: {reason}")
        self.uri = uri
        self.reason = reason


class NotADeltaTableError(DeltaForensicsError):
    """The location exists but holds no usable ``_delta_log``."""

    def __init__(self, uri: str, reason: str = "no _delta_log with commits or checkpoints") -> None:
        super().__init__(f"{uri}: not a Delta table ({reason})")
        self.uri = uri


class LogCorruptError(DeltaForensicsError):
    """A log file that the requested version depends on cannot be read correctly."""

    def __init__(self, path: str, reason: str, version: int | None = None) -> None:
        where = f"{path} (version {version})" if version is not None else path
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.reason = reason
        self.version = version


class VersionNotFoundError(DeltaForensicsError):
    """The requested version cannot be reconstructed from the retained log."""

    def __init__(self, uri: str, version: int, reason: str) -> None:
        super().__init__(f"{uri}: version {version} cannot be reconstructed: {reason}")
        self.uri = uri
        self.version = version


class UnsupportedFeatureError(DeltaForensicsError):
    """The log uses something this tool deliberately does not read."""

    def __init__(self, feature: str, reason: str) -> None:
        super().__init__(f"unsupported: {feature}: {reason}")
        self.feature = feature


class UsageError(DeltaForensicsError):
    """Bad arguments that typer could not catch (exit code 2)."""


class TimeWindowError(DeltaForensicsError):
    """``--since``/``--until`` name no retained commit (before the earliest, after the newest)."""


class CatalogError(DeltaForensicsError):
    """A catalog name could not be resolved: unknown table, no privilege, a view, not Delta."""

    def __init__(self, table: str, reason: str) -> None:
        super().__init__(f"{table}: {reason}")
        self.table = table
        self.reason = reason
