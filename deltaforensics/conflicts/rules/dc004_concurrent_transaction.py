"""
## What it detects
The winner committed an application transaction (`txn` appId) that the current transaction
also read and writes: the same streaming query or idempotent writer ran twice.

## Why Delta raises it
Exactly-once writers read their last committed `txn.version` before writing; a winner that
advanced it makes the current batch a duplicate.

## Example
    v20 STREAMING UPDATE txn(appId=Q, version=41)
    v21 STREAMING UPDATE txn(appId=Q, version=41), read at v19 -> DC004

## How to avoid it
- One running query per checkpoint location; a unique `txnAppId` per writer.

## Delta source
`ConflictChecker.checkForUpdatedApplicationTransactionIdsThatCurrentTxnDependsOn`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    common = ctx.winner.written.app_ids & ctx.loser.written.app_ids
    if not common:
        return None
    return Hit(
        reason=f"v{ctx.winner.version} committed app transaction {sorted(common)[0]!r} that this "
        "transaction also read: two instances of the same streaming query or idempotent writer",
    )


RULE = Rule(
    delta_check=Check.CONCURRENT_TRANSACTION,
    name="concurrent-transaction",
    exception="ConcurrentTransactionException",
    error_class="DELTA_CONCURRENT_TRANSACTION",
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
