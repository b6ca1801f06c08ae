"""
## What it detects
The winning commit changed table metadata (schema, partitioning, properties) that the current
transaction did not see.

## Why Delta raises it
A transaction's plan and file layout depend on the metadata it read. Delta-Spark ≥ 4.1 lets a
small allow-list of property changes pass (enabling deletion vectors, row tracking, in-commit
timestamps, column mapping none→name; each only in that direction, so disabling fails) when
the current transaction changes no metadata itself; ≥ 3.3 tolerates identity high-water-mark
updates. Everything else, and every metadata change on
delta-rs, fails.

A MERGE racing a change of the number of columns (ADD, DROP or REPLACE COLUMNS) can fail
before its commit instead: when the change lands after the MERGE was analysed and before its
transaction began, Delta-Spark raises `DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS` (a
DeltaAnalysisException, `MergeIntoCommand.runMerge`); the finding carries it as `engine_error`.

## Example
    v11 ALTER TABLE ADD COLUMNS
    v12 INSERT, read at v10   -> DC002 MetadataChangedException

## How to avoid it
- Run DDL and property changes outside the windows in which writers run.

## Delta source
`ConflictChecker.checkNoMetadataUpdates` / `attemptToResolveMetadataConflicts`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext
from deltaforensics.profiles import Check
from deltaforensics.transactions import Transaction

# MergeIntoCommand.runMerge fails a MERGE whose target had another number of columns when it was
# analysed than when its transaction began (``target.schema.size != deltaTxn.metadata.schema
# .size``, every release from 2.4.0 to 4.4.0): a DeltaAnalysisException, not a conflict
SCHEMA_CHANGE_SINCE_ANALYSIS = "DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS"
COLUMN_COUNT_CHANGES = frozenset({"ADD COLUMNS", "DROP COLUMNS", "REPLACE COLUMNS"})

# Allow-listed keys (≥ 4.1) and the changes Delta accepts for each: None = any value,
# "new" = only newly added, otherwise the only value it may be set to.
ALLOWED: dict[str, str | None] = {
    "delta.enableRowTracking": "true", "delta.enableDeletionVectors": "true",
    "delta.checkpointPolicy": "v2", "delta.enableInCommitTimestamps": "true",
    "delta.inCommitTimestampEnablementVersion": "new", "delta.inCommitTimestampEnablementTimestamp": "new",
    "delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": None,
    "delta.rowTracking.materializedRowIdColumnName": None,
    "delta.rowTracking.materializedRowCommitVersionColumnName": None,
}  # fmt: skip


def check(ctx: RuleContext) -> Hit | None:
    w, lo, profile = ctx.winner, ctx.loser, ctx.profile
    if not w.written.changes_metadata:
        return None
    what = ", ".join(w.written.metadata_change.keys[:5]) or "schema or layout"
    if lo.written.changes_metadata:
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) and this transaction both change metadata"
        )
    if w.written.metadata_change.identity_only and profile.identity_tolerance:
        return None  # OSS >= 3.3; Databricks documents no concurrency on identity tables
    if (
        profile.metadata_allow_list
        and not w.written.metadata_change.other
        and all(_allowed(w, k) for k in w.written.metadata_change.keys)
    ):
        # an allow-listed change, or a metaData action equal to the one read (a RESTORE, a
        # protocol-only SET TBLPROPERTIES): real Delta 4.4.0 commits the loser (docs/fidelity.md)
        return None
    if (
        profile.spark_sql
        and lo.provenance.operation == "MERGE"
        and w.provenance.operation in COLUMN_COUNT_CHANGES
    ):
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) changed table metadata ({what}); had it "
            "committed after this MERGE was analysed and before its transaction began, Delta "
            f"raises {SCHEMA_CHANGE_SINCE_ANALYSIS} instead",
            engine_error=SCHEMA_CHANGE_SINCE_ANALYSIS,
        )
    return Hit(reason=f"v{w.version} ({w.provenance.operation}) changed table metadata ({what})")


def _allowed(w: Transaction, key: str) -> bool:
    if key not in ALLOWED:
        return False
    if key not in w.written.metadata_change.values:
        return True  # values not known (a reconstructed attempt): judge by the key alone
    before, after = w.written.metadata_change.values[key]
    want = ALLOWED[key]
    if want is None:
        return True
    if want == "new":
        return before is None
    if key == "delta.columnMapping.mode" and (before or "none").lower() != "none":
        return False
    return (after or "").strip().lower() == want


RULE = Rule(
    delta_check=Check.METADATA_CHANGED,
    name="metadata-changed",
    exception="MetadataChangedException",
    error_class="DELTA_METADATA_CHANGED",
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
