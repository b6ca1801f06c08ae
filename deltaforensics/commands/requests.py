"""What a command is asked: typed requests, one per command.

A request names the table (a path, a URL, a Unity Catalog name, or a store already opened),
ONE selection of versions (:mod:`deltaforensics.log.selection`), the engine profile, the
evidence the user brings, the command's options and whether to redact. The command line and
the Python API build requests; :mod:`deltaforensics.commands` runs them and returns the
typed report documents (:mod:`deltaforensics.report.document`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from deltaforensics.analysis import ErrorText, error_times, read_error_texts
from deltaforensics.errors import UsageError
from deltaforensics.log.selection import AroundErrors, AsOf, Between, Selection, Versions
from deltaforensics.log.storage import LogStore

if TYPE_CHECKING:
    from deltaforensics.attempts.specs import AttemptSpec
    from deltaforensics.whatif.scenario import Change

__all__ = [
    "AroundErrors",
    "AsOf",
    "AuditRequest",
    "Between",
    "Evidence",
    "ExplainRequest",
    "HistoryRequest",
    "Hooks",
    "Selection",
    "SnapshotRequest",
    "SparkChoice",
    "Table",
    "TableAccess",
    "Versions",
    "WhatIfRequest",
    "selection_of",
]

Table = str | os.PathLike[str] | LogStore
# told how many of the log files to read have been read: (done, total, what)
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableAccess:
    """How to reach the table: storage options, and for a Unity Catalog name its catalog.

    ``on_secret`` is told every secret as soon as it is known (the storage options' own, the
    catalog's token, a vended credential), so that no error message can show it."""

    storage_options: Mapping[str, str] = field(default_factory=dict)
    catalog_url: str | None = None
    catalog_profile: str | None = None
    on_secret: Callable[[tuple[str, ...]], None] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """What the user brings about a failure: ``--error`` texts, each read once for the Delta
    exceptions in it, and ``--attempt`` statements. (Failures read from sources, such as job
    runs, will join here.)"""

    error_texts: tuple[ErrorText, ...] = ()
    attempts: tuple[AttemptSpec, ...] = ()
    # Spark event logs or driver logs whose failures on the table are read as more texts
    # (``--failures-from``, docs/failures.md), once the table is opened
    failures_from: tuple[str, ...] = ()
    # when the texts' failures were logged (analysis.error_times), for the window around them
    error_times: tuple[int, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "error_times", error_times(self.error_texts))

    @classmethod
    def read(
        cls,
        error_texts: Iterable[tuple[str, str]] = (),
        attempts: Iterable[AttemptSpec] = (),
        failures_from: Iterable[str] = (),
    ) -> Evidence:
        """``(name, text)`` pairs parsed, with the attempts and the failures' sources."""
        return cls(
            error_texts=read_error_texts(error_texts),
            attempts=tuple(attempts),
            failures_from=tuple(failures_from),
        )

    def with_texts(self, texts: Iterable[tuple[str, str]]) -> Evidence:
        """This evidence with ``texts`` parsed after its own."""
        more = read_error_texts(texts)
        if not more:
            return self
        return replace(self, error_texts=(*self.error_texts, *more))


@dataclass(frozen=True, slots=True, kw_only=True)
class SparkChoice:
    """``--engine spark``: the master and the ``--spark-conf`` pairs as given."""

    master: str = "local[2]"
    conf: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Hooks:
    """What the caller's process hooks into a command, beside the request: ``progress`` opens
    a progress display around the reading of the log (a context giving the function told of
    each file read, or ``None`` when nothing is shown); ``keep`` is handed the analysis so
    that the command line can keep it alive to the process' end (releasing it costs time for
    nothing)."""

    progress: Callable[[str], AbstractContextManager[ProgressFn | None]] | None = None
    keep: Callable[[object], None] | None = None


NO_HOOKS = Hooks()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExplainRequest:
    table: Table
    access: TableAccess = TableAccess()
    selection: Selection = field(default_factory=Versions)
    profile: str | None = None
    evidence: Evidence = Evidence()
    recommendations: bool = True
    all_recommendations: bool = False
    redact: bool = False
    spark: SparkChoice | None = None  # the engine reading the log (None: polars)


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIfRequest:
    table: Table
    changes: tuple[Change, ...]
    access: TableAccess = TableAccess()
    selection: Selection = field(default_factory=Versions)
    profile: str | None = None
    evidence: Evidence = Evidence()
    redact: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryRequest:
    table: Table
    access: TableAccess = TableAccess()
    selection: Versions | Between = field(default_factory=Versions)
    redact: bool = False
    spark: SparkChoice | None = None  # the engine reading the log (None: polars)


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRequest:
    table: Table
    access: TableAccess = TableAccess()
    selection: AsOf = field(default_factory=AsOf)
    redact: bool = False
    spark: SparkChoice | None = None  # the engine reading the log (None: polars)


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRequest:
    """``deltaforensics audit``: the config file, and what the command line overrides."""

    config: Path
    state: Path | None = None
    output: Path | None = None
    fail_on: tuple[str, ...] = ()  # empty: the config's
    recommendations: bool | None = None  # None: the config's
    redact: bool = False
    jobs: int = 4
    spark: SparkChoice | None = None
    engine_name: str = "polars"
    on_secret: Callable[[tuple[str, ...]], None] | None = None
    progress: Callable[[str], AbstractContextManager[ProgressFn | None]] | None = None


def selection_of(
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    since: str | None = None,
    until: str | None = None,
) -> Versions | Between:
    """The one selection the range flags name: versions, or a time window, not both."""
    if since is None and until is None:
        return Versions(from_version=from_version, to_version=to_version)
    if from_version is not None or to_version is not None:
        raise UsageError("give --since/--until or --from-version/--to-version, not both")
    return Between(since=since, until=until)


def snapshot_selection(*, version: int | None = None, at: str | None = None) -> AsOf:
    if version is not None and at is not None:
        raise UsageError("give --version or --at, not both")
    return AsOf(version=version, at=at)
