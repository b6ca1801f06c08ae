"""Operation names as Delta groups them: those that run through ``commitLarge``, those that
change data (so Delta keeps the recorded isolation level), those that rewrite the whole table."""

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
        "SYNC IDENTITY",
    }
)
