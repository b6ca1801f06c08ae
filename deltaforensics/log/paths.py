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


_V = r"(\d{20})"
_UUID = r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
_PATTERNS: tuple[tuple[LogFileKind, re.Pattern[str]], ...] = (
    (LogFileKind.COMMIT, re.compile(rf"^{_V}\.json$")),
    (LogFileKind.CHECKPOINT, re.compile(rf"^{_V}\.checkpoint\.parquet$")),
    (
        LogFileKind.CHECKPOINT_PART,
        re.compile(rf"^{_V}\.checkpoint\.(\d{{10}})\.(\d{{10}})\.parquet$"),
    ),
    (LogFileKind.CHECKPOINT_V2, re.compile(rf"^{_V}\.checkpoint\.{_UUID}\.(json|parquet)$")),
    (LogFileKind.COMPACTED, re.compile(rf"^{_V}\.{_V}\.compacted\.json$")),
    (LogFileKind.CRC, re.compile(rf"^{_V}\.crc$")),
)
_STAGED = re.compile(rf"^_staged_commits/{_V}\.{_UUID}\.json$")
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


def format_log_path(path: LogPath) -> str:
    """Inverse of :func:`parse_log_path` for every kind it recognises."""
    v = f"{path.version:020d}"
    match path.kind:
        case LogFileKind.COMMIT:
            return f"{v}.json"
        case LogFileKind.CHECKPOINT:
            return f"{v}.checkpoint.parquet"
        case LogFileKind.CHECKPOINT_PART:
            return f"{v}.checkpoint.{path.part:010d}.{path.num_parts:010d}.parquet"
        case LogFileKind.CHECKPOINT_V2:
            return f"{v}.checkpoint.{path.uuid}.{path.file_format}"
        case LogFileKind.COMPACTED:
            return f"{v}.{path.end_version:020d}.compacted.json"
        case LogFileKind.CRC:
            return f"{v}.crc"
        case LogFileKind.LAST_CHECKPOINT:
            return "_last_checkpoint"
        case LogFileKind.STAGED_COMMIT:
            return f"_staged_commits/{v}.{path.uuid}.json"
        case LogFileKind.SIDECAR:
            return path.name
    raise AssertionError(path.kind)  # pragma: no cover - exhaustive


def commit_name(version: int) -> str:
    return f"{version:020d}.json"
