"""The versions a command reads: one check for every command and the Python API.

``explain``, ``whatif``, ``history`` and the API all pass their ``--from-version`` /
``--to-version`` (or the versions a time window chose) through :class:`VersionRange` before
reading the log, so a reversed or negative range is refused the same way everywhere (exit 2),
never read as an empty, clean history.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.errors import UsageError


@dataclass(frozen=True, slots=True)
class VersionRange:
    """``first``..``last`` inclusive; ``None`` leaves that end open (the log's first or latest
    version). Raises :class:`~deltaforensics.errors.UsageError` when a version is negative or
    ``first`` is after ``last``."""

    first: int | None = None
    last: int | None = None

    def __post_init__(self) -> None:
        for label, value in (("--from-version", self.first), ("--to-version", self.last)):
            if value is not None and value < 0:
                raise UsageError(f"{label} must be 0 or more, got {value}")
        if self.first is not None and self.last is not None and self.first > self.last:
            raise UsageError("--from-version must not be greater than --to-version")
