"""
## What it detects
Both commits write the same metadata domain (for example `delta.clustering`).

## Why Delta raises it
Domain metadata is table-level state; two writers setting one domain cannot both be right.
`delta.rowTracking` is merged instead of failing.

## Example
    v7  ALTER TABLE CLUSTER BY (a)      writes domain delta.clustering
    v8  ALTER TABLE CLUSTER BY (b), read at v6 -> DC003 ConcurrentTransactionException

## How to avoid it
- Serialise the jobs that change clustering or other domains.

## Delta source
`ConflictChecker.checkIfDomainMetadataConflict`.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Hit, Rule, RuleContext
from deltaforensics.profiles import Check


def check(ctx: RuleContext) -> Hit | None:
    common = (ctx.winner.written.domains & ctx.loser.written.domains) - {"delta.rowTracking"}
    if not common:
        return None
    domain = sorted(common)[0]
    return Hit(
        reason=f"A conflicting metadata domain {domain} is added (v{ctx.winner.version} wrote it too)",
    )


RULE = Rule(
    delta_check=Check.DOMAIN_METADATA,
    name="domain-metadata-conflict",
    exception="ConcurrentTransactionException",
    error_class="DELTA_CONCURRENT_TRANSACTION",
    check=check,
    doc=__doc__ or "",
    suggests=("schedule",),
)
