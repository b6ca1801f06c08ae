"""An attempted Spark SQL write statement, read: which table, conditions, rows and clauses.

The losing side of a conflict leaves nothing in ``_delta_log``, so ``explain --attempt`` takes
the statement the user ran. This package only *reads* it (sqlglot, and the target-alias
guess of :mod:`deltaforensics.predicates.partition`); what the statement means for a commit is
decided in :mod:`deltaforensics.attempts`, against the table. It sits beside
``replay``, below the packages that simulate or report anything.
"""

from __future__ import annotations

from deltaforensics.statements.literals import cell
from deltaforensics.statements.model import (
    KINDS,
    UNKNOWN,
    AlterAction,
    Cell,
    Clause,
    Statement,
    Value,
)
from deltaforensics.statements.parse import normalise_condition, parse_statement
from deltaforensics.statements.reading import parse_condition

__all__ = [
    "KINDS",
    "UNKNOWN",
    "AlterAction",
    "Cell",
    "Clause",
    "Statement",
    "Value",
    "cell",
    "normalise_condition",
    "parse_condition",
    "parse_statement",
]
