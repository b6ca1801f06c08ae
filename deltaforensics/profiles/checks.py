"""The checks of Delta's conflict checker, as values a profile lists in the order it runs them.

Each rule module in :mod:`deltaforensics.conflicts.rules` names the check it models and
:mod:`deltaforensics.conflicts.registry` maps a check to its rule, so an engine's order is data
here and the rules stay one layer up. The value is the rule's code, which reports print.
"""

from __future__ import annotations

from enum import StrEnum


class Check(StrEnum):
    PROTOCOL_CHANGED = "DC001"
    METADATA_CHANGED = "DC002"
    DOMAIN_METADATA = "DC003"
    CONCURRENT_TRANSACTION = "DC004"
    CONCURRENT_WRITE = "DC005"
    CONCURRENT_APPEND = "DC010"
    CONCURRENT_DELETE_READ = "DC011"
    CONCURRENT_DELETE_DELETE = "DC012"


# Delta-Spark's order moved twice (semantics doc §A.8): 3.0 added the domain-metadata check
# last, 3.2 moved it and the app-transaction check before the file-level checks.
SPARK_ORDER_32 = (
    Check.CONCURRENT_WRITE, Check.PROTOCOL_CHANGED, Check.METADATA_CHANGED,
    Check.DOMAIN_METADATA, Check.CONCURRENT_TRANSACTION, Check.CONCURRENT_APPEND,
    Check.CONCURRENT_DELETE_READ, Check.CONCURRENT_DELETE_DELETE,
)  # fmt: skip
SPARK_ORDER_30 = (
    Check.CONCURRENT_WRITE, Check.PROTOCOL_CHANGED, Check.METADATA_CHANGED,
    Check.CONCURRENT_APPEND, Check.CONCURRENT_DELETE_READ, Check.CONCURRENT_DELETE_DELETE,
    Check.CONCURRENT_TRANSACTION, Check.DOMAIN_METADATA,
)  # fmt: skip
SPARK_ORDER_OLD = SPARK_ORDER_30[:-1]
DELTA_RS_ORDER = (
    Check.PROTOCOL_CHANGED, Check.METADATA_CHANGED, Check.CONCURRENT_APPEND,
    Check.CONCURRENT_DELETE_READ, Check.CONCURRENT_DELETE_DELETE, Check.CONCURRENT_TRANSACTION,
)  # fmt: skip
KERNEL_ORDER = (
    Check.PROTOCOL_CHANGED, Check.METADATA_CHANGED, Check.DOMAIN_METADATA,
    Check.CONCURRENT_TRANSACTION, Check.CONCURRENT_DELETE_DELETE,
)  # fmt: skip
