"""Every rule, in the order Delta-Spark ≥ 3.2 runs them, and the rule of each check.

A profile lists the :class:`~deltaforensics.profiles.Check` values its engine runs, in its
order; :func:`rule_for` turns each into the rule that models it.
"""

from __future__ import annotations

from deltaforensics.conflicts.rule import Rule
from deltaforensics.conflicts.rules import (
    dc001_protocol_changed,
    dc002_metadata_changed,
    dc003_domain_metadata,
    dc004_concurrent_transaction,
    dc005_concurrent_write,
    dc010_concurrent_append,
    dc011_concurrent_delete_read,
    dc012_concurrent_delete_delete,
)
from deltaforensics.profiles import Check

RULES: tuple[Rule, ...] = (
    dc005_concurrent_write.RULE,
    dc001_protocol_changed.RULE,
    dc002_metadata_changed.RULE,
    dc003_domain_metadata.RULE,
    dc004_concurrent_transaction.RULE,
    dc010_concurrent_append.RULE,
    dc011_concurrent_delete_read.RULE,
    dc012_concurrent_delete_delete.RULE,
)
_BY_CHECK: dict[Check, Rule] = {r.delta_check: r for r in RULES}


def rule_for(check: Check) -> Rule:
    return _BY_CHECK[check]


def rule_by_code(code: str) -> Rule:
    try:
        return _BY_CHECK[Check(code.upper())]
    except ValueError:
        raise KeyError(f"no rule {code!r}; known: {', '.join(_BY_CHECK)}") from None
