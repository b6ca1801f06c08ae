"""What is in ``_delta_log``: every file classified, gaps and junk included.

A :class:`LogListing` is raw: it may have commit gaps, incomplete multi-part checkpoints and a
stale ``_last_checkpoint``. :class:`~deltaforensics.log.segment.LogSegment` validates it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from deltaforensics.errors import NotADeltaTableError
from deltaforensics.log.commit_names import CommitNames
from deltaforensics.log.file_facts import FileFacts, ListedSizes, ListedTimes
from deltaforensics.log.paths import MAX_VERSION, LogFileKind, LogPath, parse_log_path
from deltaforensics.log.storage import LogStore, StoredFile, SupportsNameListing
from deltaforensics.model.gaps import Range, SortedVersions, distinct_sorted


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointFiles:
    """All files of one checkpoint: a single file, every part of a multi-part set, or a V2 file."""

    version: int
    kind: str  # "classic" | "multi-part" | "v2"
    names: tuple[str, ...]
    expected_parts: int = 1

    @property
    def complete(self) -> bool:
        return len(self.names) == self.expected_parts

    @property
    def label(self) -> str:
        return (
            self.names[0] if len(self.names) == 1 else f"{self.names[0]} (+{len(self.names) - 1})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LastCheckpointHint:
    """``_last_checkpoint`` as found: ``version`` is ``None`` when empty or unreadable."""

    version: int | None
    parts: int | None = None
    problem: str | None = None
    size_in_bytes: int | None = None  # of the checkpoint's files, where the writer says


@dataclass(frozen=True, slots=True, kw_only=True)
class LogListing:
    uri: str
    commits: Mapping[int, str]  # a CommitNames when listed; any mapping will do
    checkpoints: dict[int, tuple[CheckpointFiles, ...]]
    compacted: tuple[LogPath, ...] = ()
    crc_versions: frozenset[int] = frozenset()
    last_checkpoint: LastCheckpointHint | None = None
    sidecars: frozenset[str] = frozenset()
    staged_commits: tuple[LogPath, ...] = ()
    junk: tuple[str, ...] = ()
    # every listed name (in listing order) with its size; a local listing reads sizes and
    # times only for the names asked about (:class:`FileFacts`)
    sizes: Mapping[str, int | None] = field(default_factory=dict)
    modified: Mapping[str, int] = field(default_factory=dict)  # ms, where the listing says
    # the commit versions in order, sorted once when first asked for: a load asks for them,
    # the latest version and the gaps several times, and each sort of 1,000,000 versions cost
    # ~0.3 s (a listing's ``commits`` are never changed after it is made)
    _ordered: SortedVersions | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def _versions(self) -> SortedVersions:
        if self._ordered is None:
            known = self.commits.versions if isinstance(self.commits, CommitNames) else None
            object.__setattr__(self, "_ordered", known or SortedVersions.of(self.commits))
        assert self._ordered is not None
        return self._ordered

    @property
    def commit_versions(self) -> list[int]:
        return self._versions.values

    @property
    def latest_version(self) -> int:
        complete = [v for v, cps in self.checkpoints.items() if any(c.complete for c in cps)]
        newest = self._versions.newest
        candidates = complete if newest is None else [newest, *complete]
        if not candidates:
            raise NotADeltaTableError(self.uri, "_delta_log holds no commits or checkpoints")
        return max(candidates)

    def first_of_run(self, version: int) -> int:
        """The first version of the unbroken run of listed commits that holds ``version``."""
        return self._versions.first_of_run(version)

    def missing_commits(self, start: int, end: int) -> list[Range]:
        """The missing commit versions in ``start..end`` as ranges (never enumerated)."""
        return self._versions.missing(start, end)


def list_log(store: LogStore) -> LogListing:
    """List once. Files committed after this call are never read (a consistent cut).

    A store that can list names alone (:class:`SupportsNameListing`, on a local disk)
    is listed so, and its files' sizes and times are read when asked for (:class:`FileFacts`).
    """
    names, sizes, modified, read_facts = _listed(store)
    plain, rest = plain_commits(names)
    del names  # the commits' names live on as their versions
    odd: dict[int, str] = {}
    singles: dict[int, list[CheckpointFiles]] = defaultdict(list)
    parts: dict[tuple[int, int], list[LogPath]] = defaultdict(list)
    compacted: list[LogPath] = []
    crc: set[int] = set()
    sidecars: set[str] = set()
    staged: list[LogPath] = []
    junk: list[str] = []
    has_last_checkpoint = False
    for name in rest:
        parsed = parse_log_path(name)
        if parsed is None:
            if not _is_hadoop_checksum(name):
                junk.append(name)
            continue
        match parsed.kind:
            case LogFileKind.COMMIT:
                odd[parsed.version] = name
            case LogFileKind.CHECKPOINT:
                singles[parsed.version].append(
                    CheckpointFiles(version=parsed.version, kind="classic", names=(name,))
                )
            case LogFileKind.CHECKPOINT_V2:
                singles[parsed.version].append(
                    CheckpointFiles(version=parsed.version, kind="v2", names=(name,))
                )
            case LogFileKind.CHECKPOINT_PART:
                assert parsed.num_parts is not None
                parts[(parsed.version, parsed.num_parts)].append(parsed)
            case LogFileKind.COMPACTED:
                compacted.append(parsed)
            case LogFileKind.CRC:
                crc.add(parsed.version)
            case LogFileKind.SIDECAR:
                sidecars.add(name)
            case LogFileKind.STAGED_COMMIT:
                staged.append(parsed)
            case LogFileKind.LAST_CHECKPOINT:
                has_last_checkpoint = True
    for (version, total), found in parts.items():
        unique = sorted({p.part: p for p in found}.values(), key=lambda p: p.part or 0)
        singles[version].append(
            CheckpointFiles(
                version=version,
                kind="multi-part",
                names=tuple(p.name for p in unique),
                expected_parts=total,
            )
        )
    checkpoints = {v: _prefer(cps) for v, cps in singles.items()}
    commits = CommitNames(distinct_sorted(plain), odd)
    hint = read_last_checkpoint(store) if has_last_checkpoint else None
    if read_facts is not None:
        facts = FileFacts(commits, rest, read_facts)
        sizes, modified = ListedSizes(facts), ListedTimes(facts)
    return LogListing(
        uri=store.uri,
        commits=commits,
        checkpoints=checkpoints,
        compacted=tuple(sorted(compacted, key=lambda p: (p.version, p.end_version or 0))),
        crc_versions=frozenset(crc),
        last_checkpoint=hint,
        sidecars=frozenset(sidecars),
        staged_commits=tuple(sorted(staged, key=lambda p: (p.version, p.uuid or ""))),
        junk=tuple(sorted(junk)),
        sizes=sizes,
        modified=modified,
    )


def _listed(
    store: LogStore,
) -> tuple[
    list[str],
    Mapping[str, int | None],
    Mapping[str, int],
    Callable[[Sequence[str]], dict[str, StoredFile]] | None,
]:
    """The names, their sizes and times as the listing gave them, and how to read them
    instead when the store named its files alone (:class:`SupportsNameListing`)."""
    if isinstance(store, SupportsNameListing):
        listed = store.list_log_names()
        if listed is not None:
            return listed, {}, {}, store.file_facts
    files = store.list_log()
    sizes = {f.name: f.size for f in files}
    modified = {f.name: f.modified_ms for f in files if f.modified_ms is not None}
    return [f.name for f in files], sizes, modified, None


MAX_VERSION_DIGITS = f"{MAX_VERSION:020d}"


def plain_commits(names: Sequence[str]) -> tuple[npt.NDArray[np.int64], list[str]]:
    """The versions of the ``NNNNNNNNNNNNNNNNNNNN.json`` commits among ``names`` (ASCII
    digits, a version that fits Delta's signed 64-bit long), found column-wise: nearly every
    name of a long log is one, and a Python test per name cost seconds at 1,000,000 commits.
    The other names, in listing order, are classified by :func:`parse_log_path`."""
    if not names:
        return np.empty(0, dtype=np.int64), []
    column = pl.Series(names, dtype=pl.String)
    digits = column.str.slice(0, 20)
    plain = (
        (column.str.len_bytes() == 25)
        & column.str.ends_with(".json")
        & digits.str.contains(r"^[0-9]{20}$")
        & (digits <= MAX_VERSION_DIGITS)
    )
    versions = digits.filter(plain).cast(pl.Int64).to_numpy()
    return versions, column.filter(~plain).to_list()


def _prefer(cps: list[CheckpointFiles]) -> tuple[CheckpointFiles, ...]:
    """Order one version's checkpoints: complete first, then V2, classic, multi-part."""
    rank = {"v2": 0, "classic": 1, "multi-part": 2}
    return tuple(sorted(cps, key=lambda c: (not c.complete, rank[c.kind], c.names)))


def read_last_checkpoint(store: LogStore) -> LastCheckpointHint:
    try:
        raw = store.read("_last_checkpoint")
    except Exception as exc:
        return LastCheckpointHint(version=None, problem=f"unreadable: {type(exc).__name__}")
    if not raw.strip():
        return LastCheckpointHint(version=None, problem="empty")
    try:
        doc = json.loads(raw)
        version = doc["version"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise TypeError("version is not a non-negative integer")
        parts, size = doc.get("parts"), doc.get("sizeInBytes")
        return LastCheckpointHint(
            version=version,
            parts=parts if isinstance(parts, int) else None,
            size_in_bytes=size if isinstance(size, int) and not isinstance(size, bool) else None,
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return LastCheckpointHint(version=None, problem=f"corrupt ({type(exc).__name__})")


def _is_hadoop_checksum(name: str) -> bool:
    """``.00000000000000000003.json.crc``: the checksum Hadoop's local file system writes beside
    every file it writes (Delta-Spark on a local path or DBFS mount). Not Delta's, not junk."""
    return name.startswith(".") and name.endswith(".crc") and len(name) > len("..crc")
