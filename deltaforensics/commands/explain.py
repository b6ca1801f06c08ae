"""``explain``: races and conflicts in the history, and the rule that decides each."""

from __future__ import annotations

from dataclasses import replace

from deltaforensics.analysis import analyze, read_error_texts
from deltaforensics.commands.finish import redacted
from deltaforensics.commands.profiles import checked_profile
from deltaforensics.commands.reading import reporting, spark_engine
from deltaforensics.commands.requests import ExplainRequest
from deltaforensics.commands.selection import resolved
from deltaforensics.commands.tables import open_table
from deltaforensics.report.document import ExplainDocument


def explain(request: ExplainRequest) -> ExplainDocument:
    """The explain report of ``request``'s table over its selection."""
    checked_profile(request.profile)
    opened = open_table(request.table, request.access)
    errors = read_error_texts(request.evidence.error_texts)
    selected = resolved(opened.store, request.selection, errors=errors)
    with reporting(opened.store, request.reading, "reading the log") as store:
        analysis = analyze(
            store,
            selected=selected,
            profile_name=request.profile,
            error_texts=errors,
            attempts=request.evidence.attempts,
            engine=spark_engine(opened.store, request.reading.spark),
            recommendations=request.recommendations,
            all_recommendations=request.all_recommendations,
        )
    doc = redacted(
        ExplainDocument.from_analysis(analysis),
        request.redact,
        analysis.transactions.commit_infos(),
    )
    if request.reading.keep is not None:
        request.reading.keep(analysis)
    return replace(
        doc,
        time_window=selected.window_dict(),
        diagnostics=(*doc.diagnostics, *opened.notes),
    )
