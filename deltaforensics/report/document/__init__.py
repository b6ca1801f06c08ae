"""The report documents as typed values: built once from the analysis, formatted by the rest.

- :mod:`.explain`: the ``explain`` report (``report-v2``) from a ``ConflictAnalysis``;
- :mod:`.whatif`: the ``whatif`` report (``whatif-v2``) from a what-if ``Comparison``;
- :mod:`.history`: the ``history`` and ``snapshot`` documents from the log;
- :mod:`.entry`: ``FORMAT_VERSION`` and the one path from a typed value to its JSON form.

Each ``*_document`` function returns the JSON form (a dict), which ``--format json`` writes
and ``--redact`` rewrites before any renderer sees it; the schemas in ``report/schema/`` check it.
"""

from __future__ import annotations

from deltaforensics.report.document.entry import FORMAT_VERSION, Entry
from deltaforensics.report.document.explain import ExplainDocument, explain_document
from deltaforensics.report.document.history import (
    HistoryDocument,
    SnapshotDocument,
    history_document,
    snapshot_document,
)
from deltaforensics.report.document.whatif import WhatIfDocument, whatif_document

__all__ = [
    "FORMAT_VERSION",
    "Entry",
    "ExplainDocument",
    "HistoryDocument",
    "SnapshotDocument",
    "WhatIfDocument",
    "explain_document",
    "history_document",
    "snapshot_document",
    "whatif_document",
]
