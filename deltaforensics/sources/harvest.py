"""Read failures from event logs and driver logs: a file, a folder, or a URL (``abfss://`` …).

Layouts recognised in a folder (any depth):

- Spark event logs, one file per application: ``app-…``, ``local-…``, ``application_…``
  with an optional codec suffix (``.zstd``, ``.lz4``, ``.lzf``, ``.snappy``) and
  ``.inprogress`` while the application runs (read to its last complete line);
- rolled event logs (``spark.eventLog.rolling.enabled``): a folder ``eventlog_v2_<app id>`` of
  ``events_<n>_<app id>[.codec]`` parts, read in order of ``n`` as one application
  (``appstatus_…`` is skipped);
- Databricks cluster log delivery: ``<destination>/<cluster id>/eventlog/<…>/<context id>/``
  holding ``eventlog`` and its gzip-rotated parts ``eventlog-<time>.gz`` (one application,
  rotated parts first), and ``<destination>/<cluster id>/driver/`` holding ``log4j-active.log``,
  ``log4j-<time>.log.gz``, ``stderr``, ``stdout`` and their rotated parts;
- any other file whose decoded text starts with ``{"Event":`` is an event log; any other
  ``*.log``/``*.log.gz``/``log4j*``/``stderr*``/``stdout*`` a driver log; the rest is skipped.

The codec is recognised from the bytes (:mod:`.codecs`), not the name. A part that cannot be
decoded to its end is a :class:`SourceDiagnostic` naming the file (what came before the damage
is still read); a source that cannot be listed raises :class:`StorageError` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Literal

from deltaforensics.errors import StorageError
from deltaforensics.failures import harvest_conflicts
from deltaforensics.failures.records import (
    FailedStatement,
    Harvest,
    SourceDiagnostic,
    TableCommits,
)
from deltaforensics.log.file_tree import FileTree, TreeFile
from deltaforensics.sources.codecs import CorruptDataError, decoded_pieces
from deltaforensics.sources.driverlog import DriverLogScanner
from deltaforensics.sources.eventlog import EventLogScanner
from deltaforensics.sources.openlineage import OpenLineageScanner
from deltaforensics.sources.spec import SourceSpec, parse_source

Kind = Literal["auto", "eventlog", "driverlog"]

_CODEC = r"(?:\.(?:zstd|zst|lz4|lzf|snappy|gz))?"
_APP_FILE = re.compile(rf"^(?:app-|local-|application_|spark-)[\w.-]*?{_CODEC}(?:\.inprogress)?$")
_ROLLED_PART = re.compile(rf"^events_(\d+)_[\w.-]+?{_CODEC}(?:\.inprogress)?$")
_DBX_EVENTLOG = re.compile(r"^eventlog(?:-[\w.:-]+)?(?:\.gz)?$")
_DRIVER = re.compile(r"^(?:log4j|stderr|stdout)[\w.:-]*$|\.log(?:\.gz)?$|\.out(?:\.gz)?$")
_SKIP = re.compile(r"^(?:appstatus_|\.|_SUCCESS)|\.crc$")


@dataclass(frozen=True, slots=True)
class LogGroup:
    """Files read as one log: an application's event log (parts in order) or one driver log."""

    kind: Literal["eventlog", "driverlog", "sniff"]
    files: tuple[TreeFile, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceReading:
    """What one source held: its failed statements, the parts not fully read, other errors a
    driver log recorded (counted only), and how many files were read."""

    source: str
    failures: tuple[FailedStatement, ...]
    diagnostics: tuple[SourceDiagnostic, ...]
    other_errors: int
    files_read: int
    cursor: int | None = None  # ms: the high-water mark read; the next incremental since_ms


def group_files(
    files: Iterable[TreeFile], kind: Kind = "auto", root_name: str = ""
) -> list[LogGroup]:
    """The logs in a listing: rolled and rotated parts grouped per application, in order.
    ``root_name`` names the file when the source is one file (its listing's name is empty)."""
    groups: dict[str, list[tuple[tuple[int, str], TreeFile]]] = {}
    kinds: dict[str, Literal["eventlog", "driverlog", "sniff"]] = {}
    for f in files:
        folder, _, base = f.name.rpartition("/") if f.name else ("", "", root_name)
        parts = folder.split("/") if folder else []
        if _SKIP.search(base):
            continue
        rolled = _ROLLED_PART.match(base)
        if rolled:  # events_<n>_<app id>: one part of a rolled eventlog_v2_<app id> folder
            key, order, k = f"v2:{folder}", (int(rolled.group(1)), base), "eventlog"
        elif _DBX_EVENTLOG.match(base):
            # the active file is the newest: rotated parts (named by time) come first
            key, order, k = f"dbx:{folder}", (1 if base == "eventlog" else 0, base), "eventlog"
        elif _APP_FILE.match(base):
            key, order, k = f"file:{f.name}", (0, base), "eventlog"
        elif _DRIVER.search(base) or "driver" in parts:
            key, order, k = f"file:{f.name}", (0, base), "driverlog"
        else:
            key, order, k = f"file:{f.name}", (0, base), "sniff"
        if kind != "auto" and (k == "sniff" or not key.startswith(("v2:", "dbx:"))):
            k = kind
        groups.setdefault(key, []).append((order, f))
        kinds[key] = k  # type: ignore[assignment]
    return [
        LogGroup(kinds[key], tuple(f for _, f in sorted(members, key=lambda m: m[0])))
        for key, members in sorted(groups.items())
    ]


def read_failures(
    source: str,
    *,
    kind: Kind = "auto",
    storage_options: Mapping[str, str] | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    profile: str | None = None,
    skip: Callable[[LogGroup], bool] | None = None,
) -> SourceReading:
    """Every failed statement a source recorded (a file, a folder, a URL, or a ``KIND:REST``
    spec of :mod:`.spec`), failed within ``[since_ms, until_ms]`` when given; files last
    modified before ``since_ms`` are not read, nor the logs ``skip`` says to skip (the audit's
    cursor: logs unchanged since its last run; ``skip`` sees every log listed, its files named
    relative to the source). ``profile`` names the ``~/.databrickscfg``
    profile of the ``databricks-…`` kinds. The reading's ``cursor`` is the high-water mark to
    pass as the next run's ``since_ms``."""
    spec = parse_source(source)
    if spec.kind in ("databricks-jobs", "databricks-queries"):
        return _read_databricks(spec, since_ms, until_ms, profile)
    if spec.kind != "auto":
        source = spec.target
        if spec.kind in ("eventlog", "driverlog"):
            kind = spec.kind
    tree = FileTree.from_uri(source, storage_options)
    listed = tree.list_files()
    failures: list[FailedStatement] = []
    diagnostics: list[SourceDiagnostic] = []
    other_errors = files_read = 0
    cursor = max((f.modified_ms for f in listed if f.modified_ms is not None), default=None)
    if spec.kind == "openlineage":
        failures, files_read = _read_openlineage(tree, listed, diagnostics, since_ms)
        listed = []
    for group in group_files(listed, kind, tree.root.rstrip("/").rpartition("/")[2]):
        if since_ms is not None and all(
            f.modified_ms is not None and f.modified_ms < since_ms for f in group.files
        ):
            continue
        if skip is not None and skip(group):
            continue
        found, errors, read = _read_group(tree, group, diagnostics)
        failures += found
        other_errors += errors
        files_read += read
    if since_ms is not None or until_ms is not None:
        failures = [f for f in failures if _in_window(f, since_ms, until_ms)]
    return SourceReading(
        source=tree.display_uri,
        failures=tuple(failures),
        diagnostics=tuple(diagnostics),
        other_errors=other_errors,
        files_read=files_read,
        cursor=cursor,
    )


def _read_databricks(
    spec: SourceSpec, since_ms: int | None, until_ms: int | None, profile: str | None
) -> SourceReading:
    from deltaforensics.sources import databricks  # noqa: PLC0415 - the SDK only when asked
    from deltaforensics.sources.databricks_jobs import read_job_failures  # noqa: PLC0415
    from deltaforensics.sources.databricks_queries import read_query_failures  # noqa: PLC0415

    workspace = databricks.connect(str(spec), profile)
    read = read_job_failures if spec.kind == "databricks-jobs" else read_query_failures
    failures, cursor = read(workspace, spec.target, since_ms=since_ms, until_ms=until_ms)
    return SourceReading(
        source=str(spec),
        failures=tuple(f for f in failures if _in_window(f, since_ms, until_ms)),
        diagnostics=(),
        other_errors=0,
        files_read=0,
        cursor=cursor,
    )


def _read_openlineage(
    tree: FileTree,
    listed: Sequence[TreeFile],
    diagnostics: list[SourceDiagnostic],
    since_ms: int | None,
) -> tuple[list[FailedStatement], int]:
    """The FAIL events of every file (any name: NDJSON, ``.gz`` …), files in name order;
    one run's START in an earlier file gives its start time."""
    starts: dict[str, int] = {}
    failures: list[FailedStatement] = []
    read = 0
    for f in listed:
        if _SKIP.search(f.name.rpartition("/")[2]) or (
            since_ms is not None and f.modified_ms is not None and f.modified_ms < since_ms
        ):
            continue
        where = tree.display(f.name)
        scanner = OpenLineageScanner(source=where, starts=starts)
        stream = _open(tree, f.name, diagnostics)
        if stream is None:
            continue
        read += 1
        try:
            with stream:
                for piece in decoded_pieces(stream):
                    scanner.feed(piece)
            scanner.finish()
        except CorruptDataError as exc:
            diagnostics.append(SourceDiagnostic(where, f"{exc}; the rest skipped"))
        except OSError as exc:
            diagnostics.append(SourceDiagnostic(where, f"read failed: {exc}"))
        failures += scanner.failures
    return failures, read


def harvest(
    sources: Sequence[str],
    tables: Sequence[TableCommits],
    *,
    kind: Kind = "auto",
    storage_options: Mapping[str, str] | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    profile: str | None = None,
) -> Harvest:
    """Read every source, then recognise, match to ``tables`` and de-duplicate
    (:func:`deltaforensics.failures.harvest_conflicts`)."""
    readings = [
        read_failures(
            s,
            kind=kind,
            storage_options=storage_options,
            since_ms=since_ms,
            until_ms=until_ms,
            profile=profile,
        )
        for s in sources
    ]
    return harvest_conflicts(
        (f for r in readings for f in r.failures),
        tables,
        diagnostics=[d for r in readings for d in r.diagnostics],
        other_failures=sum(r.other_errors for r in readings),
    )


def _in_window(f: FailedStatement, since_ms: int | None, until_ms: int | None) -> bool:
    moment = f.failed_at if f.failed_at is not None else f.started_at
    if moment is None:
        return True  # undated: kept, the caller's matching decides
    return (since_ms is None or moment >= since_ms) and (until_ms is None or moment <= until_ms)


def _open(tree: FileTree, name: str, diagnostics: list[SourceDiagnostic]) -> IO[bytes] | None:
    """One file's stream; a file that cannot be opened is a diagnostic, the rest is read."""
    try:
        return tree.open(name)
    except StorageError as exc:
        diagnostics.append(SourceDiagnostic(tree.display(name), f"cannot be read: {exc.reason}"))
        return None


def _read_group(
    tree: FileTree, group: LogGroup, diagnostics: list[SourceDiagnostic]
) -> tuple[list[FailedStatement], int, int]:
    """One log's failures, its other ERROR records (driver logs), and how many files were read."""
    kind: str = group.kind
    event = EventLogScanner(source=tree.display(group.files[0].name))
    failures: list[FailedStatement] = []
    errors = read = 0
    for f in group.files:
        where = tree.display(f.name)
        event.source = where
        driver = DriverLogScanner(source=where)
        stream = _open(tree, f.name, diagnostics)
        if stream is None:
            continue
        read += 1
        decoded = 0
        try:
            with stream:
                for piece in decoded_pieces(stream):
                    if kind == "sniff":
                        kind = "eventlog" if piece.lstrip().startswith(b'{"Event":') else "skip"
                    if kind == "skip":
                        break
                    decoded += len(piece)
                    (event if kind == "eventlog" else driver).feed(piece)
        except CorruptDataError as exc:
            if not (exc.truncated and where.endswith(".inprogress")):  # still being written
                diagnostics.append(
                    SourceDiagnostic(
                        where, f"{exc}; the {decoded} bytes before it were read, the rest skipped"
                    )
                )
        except OSError as exc:
            diagnostics.append(SourceDiagnostic(where, f"read failed after {decoded} bytes: {exc}"))
        if kind == "eventlog":
            event.end_part()
        elif kind == "driverlog":
            driver.end_part()
            failures += driver.failures
            errors += driver.error_lines
    event.finish()
    return [*event.failures, *failures], errors, read
