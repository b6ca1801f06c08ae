"""Operation names as Delta groups them: those that run through ``commitLarge``, those that
change data (so Delta keeps the recorded isolation level), those that rewrite the whole table,
and the column change that reads the whole table when it is not a blind append."""

from __future__ import annotations

COMMIT_LARGE_OPERATIONS = frozenset({"RESTORE", "CLONE", "CONVERT", "SHALLOW CLONE", "DEEP CLONE"})
CHANGES_DATA = frozenset(
    {
        "WRITE",
        "STREAMING UPDATE",
        "DELETE",
        "TRUNCATE",
        "CONVERT",
        "MERGE",
        "UPDATE",
        "REPLACE TABLE",
        "CREATE OR REPLACE TABLE",
        "REPLACE TABLE AS SELECT",
        "CREATE OR REPLACE TABLE AS SELECT",
        "CREATE TABLE AS SELECT",
        "RESTORE",
        "CLONE",
    }
)
WHOLE_TABLE_OPERATIONS = frozenset(
    {
        "TRUNCATE",
        "REPLACE TABLE",
        "CREATE OR REPLACE TABLE",
        "REPLACE TABLE AS SELECT",
        "CREATE OR REPLACE TABLE AS SELECT",
        "ADD CONSTRAINT",
    }
)
# ALTER TABLE … ALTER COLUMN … SYNC IDENTITY is recorded as CHANGE COLUMN (CHANGE COLUMNS when
# it is one of several changes), isBlindAppend=false, with the metaData action only; the
# other column changes read nothing and are blind (delta-io/delta DeltaOperations.ChangeColumn,
# commands/alterDeltaTableCommands.scala AlterTableChangeColumnDeltaCommand)
READS_WHOLE_TABLE_UNLESS_BLIND = frozenset({"CHANGE COLUMN", "CHANGE COLUMNS"})
# The commands that run Delta-Spark's OptimizeExecutor: OPTIMIZE and REORG … APPLY (PURGE),
# recorded as REORG ("REORG operations have isolation semantics identical to OPTIMIZE when
# rewriting data files", Databricks "Isolation levels and write conflicts"; delta-io/delta
# DeltaOperations.Reorg extends OptimizeOrReorg). REORG … UPGRADE UNIFORM is recorded as
# "REORG TABLE UPGRADE UNIFORM", a protocol change, and is not one of them.
COMPACTIONS = frozenset({"OPTIMIZE", "REORG"})
