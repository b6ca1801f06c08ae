"""Every rule, in the order Delta-Spark ≥ 3.2 runs them. Profiles pick their own order."""

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
_BY_CODE = {r.code: r for r in RULES}


def rule_by_code(code: str) -> Rule:
    try:
        return _BY_CODE[code.upper()]
    except KeyError:
        raise KeyError(f"no rule {code!r}; known: {', '.join(_BY_CODE)}") from None
