"""The report documents as typed values: built once from the analysis, formatted by the rest.

- :mod:`.explain`: the ``explain`` report (``report-v2``) from a ``ConflictAnalysis``;
- :mod:`.whatif`: the ``whatif`` report (``whatif-v2``) from a what-if ``Comparison``;
- :mod:`.history`: the ``history`` and ``snapshot`` documents from the log;
- :mod:`.entry`: ``FORMAT_VERSION`` and the one path from a typed value to its JSON form.

Each ``*_document`` function returns the typed document; ``--redact`` rewrites it into another
(:func:`~deltaforensics.report.redact.redact_document`), the renderers, the gate and the audit
datasets read its fields, and only the JSON writers and the schema validator ask for its JSON
form (``to_dict``, a :data:`~.entry.JsonValue`), which the schemas in ``report/schema/`` check.
The report layer computes nothing: the what-if comparison it lays out is
:func:`deltaforensics.whatif.document.compare_scenario`'s.
"""

from __future__ import annotations

from deltaforensics.report.document.entry import FORMAT_VERSION, Entry, JsonValue
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
    "JsonValue",
    "SnapshotDocument",
    "WhatIfDocument",
    "explain_document",
    "history_document",
    "snapshot_document",
    "whatif_document",
]
