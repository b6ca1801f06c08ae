"""``explain``: races and conflicts in the history, and the rule that decides each."""

from __future__ import annotations

from dataclasses import replace

from deltaforensics.analysis import analyze
from deltaforensics.commands.finish import redacted
from deltaforensics.commands.harvest import failure_input
from deltaforensics.commands.profiles import checked_profile
from deltaforensics.commands.reading import Progress
from deltaforensics.commands.requests import NO_HOOKS, ExplainRequest, Hooks
from deltaforensics.commands.tables import open_table
from deltaforensics.log.selection import resolve_range
from deltaforensics.report.document import ExplainDocument


def explain_report(request: ExplainRequest, hooks: Hooks = NO_HOOKS) -> ExplainDocument:
    """The explain report of ``request``'s table over its selection."""
    checked_profile(request.profile)
    evidence = request.evidence
    progress = Progress(hooks)
    opened = open_table(request.table, request.access, request.spark, progress)
    selected = resolve_range(opened.store, request.selection, error_times=evidence.error_times)
    with progress.shown("reading the log"):
        analysis = analyze(
            opened.watched,
            selected=selected,
            profile_name=request.profile,
            error_texts=evidence.error_texts,
            attempts=evidence.attempts,
            engine=opened.reader,
            recommendations=request.recommendations,
            all_recommendations=request.all_recommendations,
            failures=failure_input(evidence, selected, request.access.storage_options),
        )
    doc = ExplainDocument.from_analysis(analysis)
    doc = redacted(doc, request.redact, analysis.transactions.commit_infos())
    if hooks.keep is not None:
        hooks.keep(analysis)
    return replace(
        doc,
        time_window=selected.window,
        diagnostics=(*doc.diagnostics, *opened.notes),
    )
