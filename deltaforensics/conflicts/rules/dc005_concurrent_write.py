"""
## What it detects
A RESTORE, CLONE or CONVERT found any newer commit: these commit without conflict resolution.

## Why Delta raises it
They use `commitLarge`, which writes its version with put-if-absent and never rebases; any
winner makes it throw `ConcurrentWriteException` with the winner's commitInfo.

## Example
    v31 INSERT
    v32 RESTORE TABLE t TO VERSION AS OF 20, read at v30 -> DC005

## How to avoid it
- Run RESTORE/CLONE while no other writer commits.

## Delta source
`OptimisticTransaction.commitLarge`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    if not ctx.loser.provenance.is_commit_large:
        return None
    return Hit(
        reason=f"{ctx.loser.provenance.operation} does no conflict resolution; v{ctx.winner.version} "
        f"({ctx.winner.provenance.operation}) committed first",
    )


RULE = Rule(
    delta_check=Check.CONCURRENT_WRITE,
    name="concurrent-write",
    exception="ConcurrentWriteException",
    error_class="DELTA_CONCURRENT_WRITE",
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
