"""
## What it detects
The winning commit changed the protocol in a way the current transaction cannot adopt.

## Why Delta raises it
Delta-Spark fails when both commits carry a `protocol` action (also two writers creating the same
table at version 0), or when the winner drops features the current transaction read. delta-rs
fails when both carry a protocol, or the winner needs a higher reader or lower writer version.

## Example
    v3  SET TBLPROPERTIES delta.enableDeletionVectors=true  (protocol 3/7)
    v4  delta-rs append, read at v2                           -> DC001 (delta-rs)
    v0  writer A creates the table; writer B also creates v0  -> DC001 "empty directory"

## How to avoid it
- Create the table and upgrade features before starting concurrent writers.

## Delta source
`ConflictChecker.checkProtocolCompatibility`; delta-rs `conflict_checker.rs` protocol check.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    w, lo = ctx.winner, ctx.loser
    if not w.written.changes_protocol:
        return None
    if lo.written.changes_protocol:
        extra = (
            " (both created the table: multiple writers in an empty directory)"
            if w.version == 0
            else ""
        )
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) and this transaction both change the protocol{extra}",
        )
    if ctx.profile.protocol_compared_by_versions:
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) changed the protocol; delta-rs fails when the winner "
            "raises the reader version or lowers the writer version",
            confidence="medium",
        )
    if w.written.protocol_drops_features:
        return Hit(
            reason=f"v{w.version} ({w.provenance.operation}) dropped table features this transaction read",
        )
    return None


RULE = Rule(
    delta_check=Check.PROTOCOL_CHANGED,
    name="protocol-changed",
    exception="ProtocolChangedException",
    error_class="DELTA_PROTOCOL_CHANGED",
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
