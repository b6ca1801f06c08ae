"""The Python API: one function per command, for notebooks and scripts.

::

    %pip install deltaforensics
    from deltaforensics import explain, history, snapshot, whatif

    report = explain("abfss://lake@account.dfs.core.windows.net/sales/orders")
    report                      # in a notebook: the HTML report
    report.races[0].winners     # typed values, the fields of docs/report-format.md
    report.to_json()            # the same JSON as `deltaforensics explain --format json`

Each function reads the table as its command does and returns the command's typed report
document (:mod:`deltaforensics.report.document`): a frozen value whose fields are the JSON
report's keys, with ``to_dict()``, ``to_json()`` and ``_repr_html_()`` (what Jupyter and
Databricks notebooks display). Failures raise the tool's own exceptions
(:mod:`deltaforensics.errors`) with the one-line messages the command prints: a
:class:`~deltaforensics.errors.UsageError` for a bad argument, a
:class:`~deltaforensics.errors.DeltaForensicsError` for a table that cannot be read.

``audit`` is the command's scheduled run over a config file; it returns the summary document
(``audit-summary-v1``) as a dict, and writes its outputs like the command.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from deltaforensics import commands
from deltaforensics.commands import AttemptSpec
from deltaforensics.errors import UsageError
from deltaforensics.report.document import (
    Entry,
    ExplainDocument,
    HistoryDocument,
    SnapshotDocument,
    WhatIfDocument,
)
from deltaforensics.report.document.entry import field_names

__all__ = [
    "AttemptSpec",
    "ExplainReport",
    "HistoryReport",
    "SnapshotReport",
    "WhatIfReport",
    "audit",
    "checked_profile",
    "explain",
    "history",
    "snapshot",
    "whatif",
]

Table = str | os.PathLike[str]
R = TypeVar("R", bound=Entry)
NOTEBOOK_HEIGHT_PX = 720  # the HTML report scrolls inside its frame beyond this


class NotebookView:
    """``to_json()`` and the notebook display of a report document."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, *, indent: int | None = 2) -> str:
        """The document as the command writes it with ``--format json``."""
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def _repr_html_(self) -> str:
        """What a notebook shows: the report in a frame of its own, so that its styles and the
        notebook's leave each other alone."""
        page = self.html_page()
        return (
            f'<iframe srcdoc="{html.escape(page, quote=True)}" title="deltaforensics report" '
            f'style="width:100%;height:{NOTEBOOK_HEIGHT_PX}px;border:1px solid #d9dee5"></iframe>'
        )

    def html_page(self) -> str:
        """A self-contained HTML page of the report."""
        return _text_page(self.text(), title=type(self).__name__)

    def text(self) -> str:
        """The report as the command prints it at a terminal."""
        raise NotImplementedError


class ExplainReport(ExplainDocument, NotebookView):
    """The ``explain`` report; shown in a notebook as ``explain --format html`` writes it."""

    __slots__ = ()

    def html_page(self) -> str:
        from deltaforensics.report.to_html import to_html  # noqa: PLC0415

        return to_html(self)

    def text(self) -> str:
        from deltaforensics.report.to_markdown import to_markdown  # noqa: PLC0415

        return to_markdown(self)


class WhatIfReport(WhatIfDocument, NotebookView):
    """The ``whatif`` report."""

    __slots__ = ()

    def text(self) -> str:
        from deltaforensics.report.to_markdown import whatif_to_markdown  # noqa: PLC0415

        return whatif_to_markdown(self)


class HistoryReport(HistoryDocument, NotebookView):
    """The ``history`` document: one row per commit."""

    __slots__ = ()

    def text(self) -> str:
        from deltaforensics.report.to_text import history_text  # noqa: PLC0415

        return history_text(self)


class SnapshotReport(SnapshotDocument, NotebookView):
    """The ``snapshot`` document: the live files at a version."""

    __slots__ = ()

    def text(self) -> str:
        from deltaforensics.report.to_text import snapshot_text  # noqa: PLC0415

        return snapshot_text(self)


def _text_page(text: str, *, title: str) -> str:
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title></head><body>"
        "<pre style='font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace;white-space:pre'>"
        f"{html.escape(text)}</pre></body></html>"
    )


def explain(
    table: Table,
    *,
    profile: str | None = None,
    from_version: int | None = None,
    to_version: int | None = None,
    since: str | None = None,
    until: str | None = None,
    errors: Iterable[str | tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    recommendations: bool = True,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> ExplainReport:
    """Races and conflicts in the table's history, the rule of Delta's checker that decides
    each, and why (``deltaforensics explain``).

    ``since``/``until``: a window of commit times instead of versions (ISO-8601, epoch ms, or
    an age such as ``"7d"``); ``errors``: texts holding a failure (a driver log, a job's
    output, a stack trace), as ``--error`` reads them from files, or ``(name, text)`` pairs
    whose name messages show (a text with a time but no version reads the day before it, as
    the command does); ``attempts``: statements that failed or are planned (``--attempt``);
    ``recommendations=False`` skips measuring the what-if recommendations (the slow part on
    long histories)."""
    _check_range(from_version, to_version)
    request = commands.ExplainRequest(
        table=table,
        access=_access(storage_options),
        selection=_selection(from_version, to_version, since, until),
        profile=profile,
        evidence=commands.Evidence.read(_named(errors), attempts),
        recommendations=recommendations,
        redact=redact,
    )
    return _viewed(ExplainReport, commands.explain(request))


def history(
    table: Table,
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    since: str | None = None,
    until: str | None = None,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> HistoryReport:
    """One row per commit: operation, parameters, readVersion, isolation level, writer, files
    (``deltaforensics history``)."""
    _check_range(from_version, to_version)
    request = commands.HistoryRequest(
        table=table,
        access=_access(storage_options),
        selection=_selection(from_version, to_version, since, until),
        redact=redact,
    )
    return _viewed(HistoryReport, commands.history(request))


def snapshot(
    table: Table,
    *,
    version: int | None = None,
    at: str | None = None,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> SnapshotReport:
    """The live files of the table at ``version``, or at the version active at time ``at``
    (default: the latest), its protocol and application transactions
    (``deltaforensics snapshot``)."""
    _check_range(version, None, name="version")
    request = commands.SnapshotRequest(
        table=table,
        access=_access(storage_options),
        selection=commands.snapshot_selection(version=version, at=at),
        redact=redact,
    )
    return _viewed(SnapshotReport, commands.snapshot(request))


def whatif(
    table: Table,
    *,
    partition_by: Sequence[str] = (),
    isolation: str | None = None,
    deletion_vectors: bool = False,
    liquid: Sequence[str] = (),
    explicit_merge_predicates: bool = False,
    profile: str | None = None,
    from_version: int | None = None,
    to_version: int | None = None,
    since: str | None = None,
    until: str | None = None,
    errors: Iterable[str | tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> WhatIfReport:
    """Which conflicts and fragile races a change would avoid or introduce, measured on this
    table's history (``deltaforensics whatif``); name at least one change."""
    commands.checked_profile(profile)
    changes = commands.scenario_changes(
        partition_by=tuple(partition_by),
        isolation=isolation,
        deletion_vectors=deletion_vectors,
        liquid=tuple(liquid),
        explicit_merge_predicates=explicit_merge_predicates,
    )
    _check_range(from_version, to_version)
    request = commands.WhatIfRequest(
        table=table,
        changes=changes,
        access=_access(storage_options),
        selection=_selection(from_version, to_version, since, until),
        profile=profile,
        evidence=commands.Evidence.read(_named(errors), attempts),
        redact=redact,
    )
    return _viewed(WhatIfReport, commands.whatif(request))


def audit(
    config: str | os.PathLike[str],
    *,
    state: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    fail_on: Sequence[str] = (),
    recommendations: bool | None = None,
    redact: bool = False,
    jobs: int = 4,
) -> dict[str, Any]:
    """Audit every table of a config (``deltaforensics audit``): one report each, the
    summary, the parquet datasets, the kept state; returns the summary document."""
    request = commands.AuditRequest(
        config=Path(config),
        state=None if state is None else Path(state),
        output=None if output is None else Path(output),
        fail_on=tuple(fail_on),
        recommendations=recommendations,
        redact=redact,
        jobs=jobs,
    )
    return dict(commands.audit(request).summary)


checked_profile = commands.checked_profile


def _check_range(first: int | None, last: int | None, *, name: str = "from_version") -> None:
    for label, value in ((name, first), ("to_version", last)):
        if value is not None and value < 0:
            raise UsageError(f"{label} must be 0 or more, got {value}")
    if first is not None and last is not None and first > last:
        raise UsageError("--from-version must not be greater than --to-version")


def _selection(
    first: int | None, last: int | None, since: str | None, until: str | None
) -> commands.Versions | commands.Between:
    return commands.selection_of(from_version=first, to_version=last, since=since, until=until)


def _access(storage_options: Mapping[str, str] | None) -> commands.TableAccess:
    return commands.TableAccess(storage_options=dict(storage_options or {}))


def _viewed(kind: type[R], document: Entry) -> R:
    """``document`` as ``kind``, its subclass with the notebook view (the same field values)."""
    base: Any = type(document)
    return kind(**{name: getattr(document, name) for name in field_names(base)})


def _named(errors: Iterable[str | tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Error texts as the analysis reads them, ``(name, text)``; a bare text is named by its
    place (``<error 1>``)."""
    return tuple(
        e if isinstance(e, tuple) else (f"<error {i}>", e) for i, e in enumerate(errors, 1)
    )
