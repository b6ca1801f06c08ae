"""Log file names <-> :class:`LogPath`. Pure: no I/O.

Names follow PROTOCOL.md and Delta-Spark's ``FileNames``: 20-digit zero-padded versions,
``N.json`` commits, ``N.checkpoint.parquet`` classic checkpoints,
``N.checkpoint.PPPPPPPPPP.TTTTTTTTTT.parquet`` multi-part parts, ``N.checkpoint.<uuid>.{json,parquet}``
V2 checkpoints, ``X.Y.compacted.json`` log compactions and ``N.crc`` checksums.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class LogFileKind(StrEnum):
    COMMIT = "commit"
    CHECKPOINT = "checkpoint"  # classic single-file (V1 or V2 content)
    CHECKPOINT_PART = "checkpoint-part"  # classic multi-part
    CHECKPOINT_V2 = "checkpoint-v2"  # UUID-named V2 (json or parquet)
    COMPACTED = "compacted"
    CRC = "crc"
    LAST_CHECKPOINT = "last-checkpoint"
    SIDECAR = "sidecar"
    STAGED_COMMIT = "staged-commit"


# ASCII digits only: `\d` also matches Arabic-Indic and fullwidth digits, which Delta never writes
_V = r"([0-9]{20})"
_UUID = r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
_PATTERNS: tuple[tuple[LogFileKind, re.Pattern[str]], ...] = (
    (LogFileKind.COMMIT, re.compile(rf"^{_V}\.json$")),
    (LogFileKind.CHECKPOINT, re.compile(rf"^{_V}\.checkpoint\.parquet$")),
    (
        LogFileKind.CHECKPOINT_PART,
        re.compile(rf"^{_V}\.checkpoint\.([0-9]{{10}})\.([0-9]{{10}})\.parquet$"),
    ),
    (LogFileKind.CHECKPOINT_V2, re.compile(rf"^{_V}\.checkpoint\.{_UUID}\.(json|parquet)$")),
    (LogFileKind.COMPACTED, re.compile(rf"^{_V}\.{_V}\.compacted\.json$")),
    (LogFileKind.CRC, re.compile(rf"^{_V}\.crc$")),
)
# Delta versions are a Java long (Delta-Spark ``FileNames.getFileVersion`` is ``toLong``); a
# 20-digit name beyond it is no commit any reader takes, so it is junk (listed, W-diagnosed).
MAX_VERSION = 2**63 - 1
# ``_staged_commits/`` in the protocol's catalog-managed tables; ``_commits/`` is where Delta
# 3.x-4.x's coordinated commits keep their unbackfilled commits (an empty folder on most tables)
_STAGED = re.compile(rf"^_(?:staged_)?commits/{_V}\.{_UUID}\.json$")
_SIDECAR = re.compile(r"^_sidecars/([^/]+\.parquet)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class LogPath:
    """One recognised file under ``_delta_log``; ``name`` is relative to ``_delta_log``."""

    name: str
    kind: LogFileKind
    version: int = -1
    end_version: int | None = None  # compacted files: last version covered
    part: int | None = None  # multi-part: 1-based part number
    num_parts: int | None = None
    uuid: str | None = None
    file_format: str = "json"

    @property
    def is_checkpoint(self) -> bool:
        return self.kind in (
            LogFileKind.CHECKPOINT,
            LogFileKind.CHECKPOINT_PART,
            LogFileKind.CHECKPOINT_V2,
        )


def parse_log_path(name: str) -> LogPath | None:
    """Classify a name relative to ``_delta_log``; ``None`` for anything Delta does not define."""
    if name == "_last_checkpoint":
        return LogPath(name=name, kind=LogFileKind.LAST_CHECKPOINT)
    if m := _STAGED.match(name):
        if int(m[1]) > MAX_VERSION:
            return None
        return LogPath(
            name=name, kind=LogFileKind.STAGED_COMMIT, version=int(m[1]), uuid=m[2].lower()
        )
    if _SIDECAR.match(name):
        return LogPath(name=name, kind=LogFileKind.SIDECAR, file_format="parquet")
    for kind, pattern in _PATTERNS:
        m = pattern.match(name)
        if m is None:
            continue
        version = int(m[1])
        if version > MAX_VERSION or (kind is LogFileKind.COMPACTED and int(m[2]) > MAX_VERSION):
            return None  # Delta versions are signed 64-bit: no reader reads such a name
        if kind is LogFileKind.CHECKPOINT_PART:
            part, total = int(m[2]), int(m[3])
            if part < 1 or part > total:
                return None
            return LogPath(
                name=name,
                kind=kind,
                version=version,
                part=part,
                num_parts=total,
                file_format="parquet",
            )
        if kind is LogFileKind.CHECKPOINT_V2:
            return LogPath(
                name=name, kind=kind, version=version, uuid=m[2].lower(), file_format=m[3]
            )
        if kind is LogFileKind.COMPACTED:
            end = int(m[2])
            if end < version:
                return None
            return LogPath(name=name, kind=kind, version=version, end_version=end)
        fmt = "parquet" if kind is LogFileKind.CHECKPOINT else "json"
        return LogPath(name=name, kind=kind, version=version, file_format=fmt)
    return None


# One name format per kind: ``v`` is the 20-digit version, ``p`` the LogPath.
_NAME_FORMATS: dict[LogFileKind, str] = {
    LogFileKind.COMMIT: "{v}.json",
    LogFileKind.CHECKPOINT: "{v}.checkpoint.parquet",
    LogFileKind.CHECKPOINT_PART: "{v}.checkpoint.{p.part:010d}.{p.num_parts:010d}.parquet",
    LogFileKind.CHECKPOINT_V2: "{v}.checkpoint.{p.uuid}.{p.file_format}",
    LogFileKind.COMPACTED: "{v}.{p.end_version:020d}.compacted.json",
    LogFileKind.CRC: "{v}.crc",
    LogFileKind.LAST_CHECKPOINT: "_last_checkpoint",
    LogFileKind.STAGED_COMMIT: "_staged_commits/{v}.{p.uuid}.json",
    LogFileKind.SIDECAR: "{p.name}",
}


def format_log_path(path: LogPath) -> str:
    """Inverse of :func:`parse_log_path` for every kind it recognises."""
    return _NAME_FORMATS[path.kind].format(v=f"{path.version:020d}", p=path)


def commit_name(version: int) -> str:
    return f"{version:020d}.json"
