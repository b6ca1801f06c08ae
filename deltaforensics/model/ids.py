"""Small identifiers from Delta's vocabulary."""

from __future__ import annotations

from enum import StrEnum


class IsolationLevel(StrEnum):
    """Isolation levels as Delta-Spark prints them in ``commitInfo.isolationLevel``."""

    SERIALIZABLE = "Serializable"
    WRITE_SERIALIZABLE = "WriteSerializable"
    SNAPSHOT_ISOLATION = "SnapshotIsolation"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


def dv_unique_id(storage_type: str | None, path_or_inline: str | None, offset: int | None) -> str:
    """Delta's ``DeletionVectorDescriptor.uniqueId``: ``<type><pathOrInlineDv>[@<offset>]``."""
    if storage_type is None and path_or_inline is None:
        return ""
    base = f"{storage_type or ''}{path_or_inline or ''}"
    return base if offset is None else f"{base}@{offset}"
