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

from deltaforensics.attempts.specs import AttemptSpec
from deltaforensics.errors import UsageError
from deltaforensics.log.storage import LogStore
from deltaforensics.profiles import profile_by_name
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
D = TypeVar("D", bound=Entry)
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
    errors: Iterable[str | tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    recommendations: bool = True,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> ExplainReport:
    """Races and conflicts in the table's history, the rule of Delta's checker that decides
    each, and why (``deltaforensics explain``).

    ``errors``: texts holding a failure (a driver log, a job's output, a stack trace), as
    ``--error`` reads them from files, or ``(name, text)`` pairs whose name messages show;
    ``attempts``: statements that failed or are planned (``--attempt``);
    ``recommendations=False`` skips measuring the what-if recommendations (the slow part on
    long histories)."""
    from deltaforensics.analysis import analyze  # noqa: PLC0415

    checked_profile(profile)
    _check_range(from_version, to_version)
    store = _opened(table, storage_options)
    analysis = analyze(
        store,
        from_version=from_version,
        to_version=to_version,
        profile_name=profile,
        error_texts=_named(errors),
        attempts=attempts,
        recommendations=recommendations,
    )
    doc = ExplainDocument.from_analysis(analysis)
    if redact:
        doc = _redacted(doc, analysis.transactions.commit_infos())
    return _viewed(ExplainReport, doc)


def history(
    table: Table,
    *,
    from_version: int | None = None,
    to_version: int | None = None,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> HistoryReport:
    """One row per commit: operation, parameters, readVersion, isolation level, writer, files
    (``deltaforensics history``)."""
    from deltaforensics.analysis import load_commits  # noqa: PLC0415

    _check_range(from_version, to_version)
    store = _opened(table, storage_options)
    _, commits, diagnostics = load_commits(store, from_version=from_version, to_version=to_version)
    doc = HistoryDocument.from_commits(store.uri, commits, diagnostics)
    return _viewed(HistoryReport, _redacted(doc) if redact else doc)


def snapshot(
    table: Table,
    *,
    version: int | None = None,
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> SnapshotReport:
    """The live files of the table at ``version`` (default: the latest), its protocol and
    application transactions (``deltaforensics snapshot``)."""
    from deltaforensics.analysis import load  # noqa: PLC0415
    from deltaforensics.engines.polars_engine import PolarsEngine  # noqa: PLC0415

    _check_range(version, None, name="version")
    store = _opened(table, storage_options)
    loaded = load(
        store, version=version, mode="snapshot", engine=PolarsEngine(store, with_stats=False)
    )
    snap = loaded.replay.snapshot_at(version)
    doc = SnapshotDocument.from_snapshot(store.uri, snap, loaded.diagnostics)
    return _viewed(SnapshotReport, _redacted(doc) if redact else doc)


def whatif(
    table: Table,
    *,
    partition_by: Sequence[str] = (),
    isolation: str | None = None,
    deletion_vectors: bool = False,
    liquid: Sequence[str] = (),
    explicit_merge_predicates: bool = False,
    profile: str | None = None,
    errors: Iterable[str | tuple[str, str]] = (),
    attempts: Sequence[AttemptSpec] = (),
    storage_options: Mapping[str, str] | None = None,
    redact: bool = False,
) -> WhatIfReport:
    """Which conflicts and fragile races a change would avoid or introduce, measured on this
    table's history (``deltaforensics whatif``); name at least one change."""
    from deltaforensics.analysis import analyze, observed_attempts  # noqa: PLC0415
    from deltaforensics.report.document import whatif_document  # noqa: PLC0415
    from deltaforensics.whatif.document import compare_scenario  # noqa: PLC0415
    from deltaforensics.whatif.scenario import Scenario  # noqa: PLC0415

    checked_profile(profile)
    changes = scenario_changes(
        partition_by=tuple(partition_by),
        isolation=isolation,
        deletion_vectors=deletion_vectors,
        liquid=tuple(liquid),
        explicit_merge_predicates=explicit_merge_predicates,
    )
    store = _opened(table, storage_options)
    analysis = analyze(
        store,
        profile_name=profile,
        error_texts=_named(errors),
        attempts=attempts,
        recommendations=False,
    )
    comparison = compare_scenario(
        analysis, Scenario.of(*changes), attempts=observed_attempts(analysis)
    )
    doc = whatif_document(analysis, comparison)
    if redact:
        doc = _redacted(doc, analysis.transactions.commit_infos())
    return _viewed(WhatIfReport, doc)


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
    from dataclasses import replace  # noqa: PLC0415

    from deltaforensics.audit.config import load_config  # noqa: PLC0415
    from deltaforensics.audit.core import AuditSettings  # noqa: PLC0415
    from deltaforensics.audit.run import run_audit  # noqa: PLC0415
    from deltaforensics.report.gates import FAIL_ON_CHOICES  # noqa: PLC0415
    from deltaforensics.report.redact import Redactor  # noqa: PLC0415

    unknown = [f for f in fail_on if f not in FAIL_ON_CHOICES]
    if unknown:
        raise UsageError(f"fail_on {unknown[0]!r} is not one of {', '.join(FAIL_ON_CHOICES)}")
    cfg = load_config(Path(config), os.environ)
    if output is not None:
        cfg = replace(cfg, output=Path(output).resolve())
    settings = AuditSettings(
        recommendations=cfg.recommendations if recommendations is None else recommendations,
        redact=Redactor() if redact else None,
    )
    return run_audit(
        cfg,
        state_dir=Path(state).resolve() if state is not None else cfg.state,
        fail_on=tuple(fail_on) or cfg.fail_on,
        settings=settings,
        jobs=jobs,
    )


def checked_profile(name: str | None) -> None:
    """Refuse a ``--profile`` name no engine release has, suggesting the nearest one."""
    if name is None:
        return
    try:
        profile_by_name(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def scenario_changes(
    *,
    partition_by: tuple[str, ...] = (),
    isolation: str | None = None,
    deletion_vectors: bool = False,
    liquid: tuple[str, ...] = (),
    explicit_merge_predicates: bool = False,
) -> list[Any]:
    """The what-if changes named, in this order; at least one."""
    from deltaforensics.whatif.scenario import (  # noqa: PLC0415
        DeletionVectors,
        ExplicitMergePredicates,
        IsolationChange,
        Liquid,
        PartitionBy,
    )

    changes: list[Any] = []
    if partition_by:
        changes.append(PartitionBy(partition_by))
    if isolation:
        if isolation.strip().lower() not in (
            "serializable",
            "writeserializable",
            "snapshotisolation",
        ):
            raise UsageError("--isolation is Serializable or WriteSerializable")
        changes.append(IsolationChange(isolation.strip()))
    if deletion_vectors:
        changes.append(DeletionVectors())
    if liquid:
        changes.append(Liquid(liquid))
    if explicit_merge_predicates:
        changes.append(ExplicitMergePredicates())
    if not changes:
        raise UsageError(
            "name at least one change: --partition-by, --isolation, --deletion-vectors, "
            "--liquid, --explicit-merge-predicates"
        )
    return changes


def _check_range(first: int | None, last: int | None, *, name: str = "from_version") -> None:
    for label, value in ((name, first), ("to_version", last)):
        if value is not None and value < 0:
            raise UsageError(f"{label} must be 0 or more, got {value}")
    if first is not None and last is not None and first > last:
        raise UsageError("--from-version must not be greater than --to-version")


def _viewed(kind: type[R], document: Entry) -> R:
    """``document`` as ``kind``, its subclass with the notebook view (the same field values)."""
    base: Any = type(document)
    return kind(**{name: getattr(document, name) for name in field_names(base)})


def _opened(table: Table, storage_options: Mapping[str, str] | None) -> LogStore:
    from deltaforensics.analysis import open_store  # noqa: PLC0415

    return open_store(os.fspath(table), storage_options)


def _named(errors: Iterable[str | tuple[str, str]]) -> list[tuple[str, str]]:
    """Error texts as the analysis reads them, ``(name, text)``; a bare text is named by its
    place (``<error 1>``)."""
    return [e if isinstance(e, tuple) else (f"<error {i}>", e) for i, e in enumerate(errors, 1)]


def _redacted(doc: D, commit_infos: Iterable[Mapping[str, Any]] = ()) -> D:
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    for commit_info in commit_infos:
        redactor.learn_commit_info(commit_info)
    return redact_document(doc, redactor)
