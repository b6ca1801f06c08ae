"""The application layer: one function per command, typed requests in, typed documents out.

The command line (:mod:`deltaforensics.cli`) and the Python API (:mod:`deltaforensics.api`)
both build a request (:mod:`deltaforensics.commands.requests`) and call the command here; the
command opens the table, resolves the selection to versions (:func:`deltaforensics.loading.
resolve_range`), runs the analysis and finishes the document (time window, catalog notes,
redaction). The command line then only renders it and gates on it; the API wraps it in its
notebook view. Nothing above this layer imports the log or the analysis.
"""

from __future__ import annotations

from deltaforensics.attempts.specs import AttemptSpec
from deltaforensics.commands.audit_run import AuditPlan, AuditResult, audit, plan_audit, run_planned
from deltaforensics.commands.explain_report import explain_report
from deltaforensics.commands.history_read import HistoryRead, history, read_history
from deltaforensics.commands.profiles import checked_profile
from deltaforensics.commands.requests import (
    AroundErrors,
    AsOf,
    AuditRequest,
    Between,
    Evidence,
    ExplainRequest,
    HistoryRequest,
    Hooks,
    Selection,
    SnapshotRequest,
    SparkChoice,
    Table,
    TableAccess,
    Versions,
    WhatIfRequest,
    selection_of,
    snapshot_selection,
)
from deltaforensics.commands.snapshot_read import SnapshotRead, read_snapshot, snapshot
from deltaforensics.commands.whatif_report import scenario_changes, whatif_report
from deltaforensics.evidence.bounded import read_bounded, truncation_warning
from deltaforensics.log.selection import parse_time_ms

# the commands by the names the Python API gives them
explain = explain_report
whatif = whatif_report

__all__ = [
    "AroundErrors",
    "AsOf",
    "AttemptSpec",
    "AuditPlan",
    "AuditRequest",
    "AuditResult",
    "Between",
    "Evidence",
    "ExplainRequest",
    "HistoryRead",
    "HistoryRequest",
    "Hooks",
    "Selection",
    "SnapshotRead",
    "SnapshotRequest",
    "SparkChoice",
    "Table",
    "TableAccess",
    "Versions",
    "WhatIfRequest",
    "audit",
    "checked_profile",
    "explain",
    "history",
    "parse_time_ms",
    "plan_audit",
    "read_bounded",
    "read_history",
    "read_snapshot",
    "run_planned",
    "scenario_changes",
    "selection_of",
    "snapshot",
    "snapshot_selection",
    "truncation_warning",
    "whatif",
]
