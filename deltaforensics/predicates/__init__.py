"""Read predicates as data: parse what the log recorded, find Delta's partition part, and
evaluate it over partition values (Delta-Spark) or file statistics (delta-rs).

Depends on nothing in the project but polars and sqlglot; see each module's docstring for why.
"""

from __future__ import annotations

from deltaforensics.predicates.ir import (
    FALSE,
    TRUE,
    And,
    Column,
    Compare,
    FalseExpr,
    In,
    IsNull,
    Like,
    Literal,
    Not,
    Opaque,
    Or,
    Predicate,
    TrueExpr,
    Unknown,
    all_of,
    any_of,
    conjuncts,
    negation_normal_form,
)
from deltaforensics.predicates.operations import ReadPredicateInfo, parse_operation_predicates
from deltaforensics.predicates.parse import parse_predicate
from deltaforensics.predicates.partition import (
    PartitionReadPredicate,
    partition_read_predicate,
    partition_read_predicate_for,
    written_partitions_predicate,
)
from deltaforensics.predicates.stats import may_match_stats
from deltaforensics.predicates.to_polars import evaluate, to_polars

__all__ = [
    "FALSE",
    "TRUE",
    "And",
    "Column",
    "Compare",
    "FalseExpr",
    "In",
    "IsNull",
    "Like",
    "Literal",
    "Not",
    "Opaque",
    "Or",
    "PartitionReadPredicate",
    "Predicate",
    "ReadPredicateInfo",
    "TrueExpr",
    "Unknown",
    "all_of",
    "any_of",
    "conjuncts",
    "evaluate",
    "may_match_stats",
    "negation_normal_form",
    "parse_operation_predicates",
    "parse_predicate",
    "partition_read_predicate",
    "partition_read_predicate_for",
    "to_polars",
    "written_partitions_predicate",
]
