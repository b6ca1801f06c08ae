"""The sentences Delta writers put in conflict exceptions, as patterns (semantics doc A.7, A.9).

Each ``Anchor`` is the one sentence that identifies an exception whatever wraps it (a Java
``Caused by:``, a PySpark traceback, a notebook cell, a JSON log record). Templates, verbatim:

| anchor | era | sentence |
| --- | --- | --- |
| ``append`` | A/B | ``Files were added to {partition [k=v, …] \\| the root of the table} by a concurrent update.`` |
| ``delete-read`` | A/B | ``This transaction attempted to read one or more files that were deleted (for example <file>) by a concurrent update.`` |
| ``delete-delete`` | A/B | ``This transaction attempted to delete one or more files that were deleted (for example <file>) by a concurrent update.`` |
| ``metadata`` | A/B/C | ``The metadata of the Delta table [<tableName> ]has been changed by a concurrent update.`` (table name since 4.4) |
| ``protocol`` | A/B/C | ``The protocol version of the Delta table has been changed by a concurrent update.`` |
| ``transaction`` | A/B/C | ``This error occurs when multiple streaming queries are using the same checkpoint to write into this table.`` |
| ``write`` | A/B/C | ``A concurrent transaction has written new data since the current transaction read the table.`` |
| ``max-retries`` | A/B/C | ``This commit has failed as it has been tried <n> times but did not succeed.`` |
| ``schema-since-analysis`` | B/C | ``The schema of your Delta table has changed in an incompatible way since your DataFrame or DeltaTable object was created.`` (``DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS``, not a conflict exception) |
| ``c-append`` | C, DBR | ``Transaction conflict detected. a concurrent <op> added data to table <t> committed at version <v>.`` |
| ``c-delete-read`` | C, DBR | ``Transaction conflict detected, a concurrent <op> deleted data from table <t> (committed at version <v>) that this transaction read.`` |
| ``c-delete-delete`` | C, DBR | ``… that this transaction attempted to delete.`` |
| ``rs-*`` | delta-rs | ``Commit failed: a concurrent transactions added new data.`` … ``Failed to commit transaction: <n>`` and the Rust ``Debug`` forms ``CommitConflict(ConcurrentAppend)``, ``MaxCommitAttempts(<n>)`` |

Databricks capitalises ``A concurrent`` in its sub-class messages; OSS writes ``a concurrent``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# The language of the library that worded a message: Delta's Scala (Delta-Spark, Databricks) or
# delta-rs's Rust. A property of the text, named apart from the engines (who printed it is
# ``ConflictEvidence.engine``).
Family = Literal["scala", "rust"]

APPEND = "ConcurrentAppendException"
DELETE_READ = "ConcurrentDeleteReadException"
DELETE_DELETE = "ConcurrentDeleteDeleteException"
METADATA = "MetadataChangedException"
PROTOCOL = "ProtocolChangedException"
TRANSACTION = "ConcurrentTransactionException"
WRITE = "ConcurrentWriteException"
MAX_RETRIES = "MaxCommitRetriesExceeded"
# Errors an engine raises for a concurrent change outside its conflict checker: the anchor that
# finds each, and the error class it carries (the report's ``engine_error``)
SCHEMA_CHANGE_SINCE_ANALYSIS = "DELTA_SCHEMA_CHANGE_SINCE_ANALYSIS"
ENGINE_ERRORS = {"schema-since-analysis": SCHEMA_CHANGE_SINCE_ANALYSIS}


@dataclass(frozen=True, slots=True)
class Anchor:
    name: str
    exception: str
    family: Family
    pattern: re.Pattern[str]

    @property
    def literal(self) -> str:
        """The fixed text every match starts with: found with ``str.find`` before matching."""
        return leading_literal(self.pattern.pattern)


_QUANTIFIERS = "?*+{"
_SPECIAL = "()[]{}?*+|^$."


def leading_literal(regex: str) -> str:
    """The literal prefix of a regular expression (``Commit failed: a concurrent transaction``
    for ``Commit failed: a concurrent transactions?``)."""
    out: list[str] = []
    i = 0
    while i < len(regex):
        char = regex[i]
        if char == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            char, step = regex[i + 1], 2
        elif char == "\\" or char in _SPECIAL:
            break
        else:
            step = 1
        if regex[i + step : i + step + 1] in tuple(_QUANTIFIERS):
            break
        out.append(char)
        i += step
    return "".join(out)


_UPDATE = r"by a concurrent update\."
# Operation names are words and spaces ("CREATE OR REPLACE TABLE AS SELECT", "Manual Update").
_C_TABLE = r"(?P<article>[aA]) concurrent (?P<operation>[\w][\w -]{0,79}?)"
_RS_DEBUG = {
    "ConcurrentAppend": APPEND,
    "ConcurrentDeleteRead": DELETE_READ,
    "ConcurrentDeleteDelete": DELETE_DELETE,
    "MetadataChanged": METADATA,
    "ConcurrentTransaction": TRANSACTION,
    "ProtocolChanged": PROTOCOL,
}

ANCHORS: tuple[Anchor, ...] = (
    Anchor(
        "append",
        APPEND,
        "scala",
        re.compile(
            r"Files were added to (?:partition (?P<partition>\[[^\n]*?\])|(?P<root>the root of the table)) "
            + _UPDATE
        ),
    ),
    Anchor(
        "delete-read",
        DELETE_READ,
        "scala",
        re.compile(
            r"This transaction attempted to read one or more files that were deleted "
            r"\(for example (?P<file>[^\n]*?)\) " + _UPDATE
        ),
    ),
    Anchor(
        "delete-delete",
        DELETE_DELETE,
        "scala",
        re.compile(
            r"This transaction attempted to delete one or more files that were deleted "
            r"\(for example (?P<file>[^\n]*?)\) " + _UPDATE
        ),
    ),
    Anchor(
        "metadata",
        METADATA,
        "scala",
        re.compile(
            r"The metadata of the Delta table (?:(?P<table>[^\n]{1,500}?) )?has been changed "
            + _UPDATE
        ),
    ),
    Anchor(
        "protocol",
        PROTOCOL,
        "scala",
        re.compile(r"The protocol version of the Delta table has been changed " + _UPDATE),
    ),
    Anchor(
        "transaction",
        TRANSACTION,
        "scala",
        re.compile(
            r"This error occurs when multiple streaming queries are using the same checkpoint to write "
            r"into this table\."
        ),
    ),
    Anchor(
        "write",
        WRITE,
        "scala",
        re.compile(
            r"A concurrent transaction has written new data since the current transaction read the table\."
        ),
    ),
    Anchor(
        "max-retries",
        MAX_RETRIES,
        "scala",
        re.compile(
            r"This commit has failed as it has been tried (?P<attempts>\d{1,12}) times but did not succeed\."
        ),
    ),
    # MergeIntoCommand.runMerge: the target's schema at analysis is not the one its transaction
    # read (a column added or dropped in between); DeltaAnalysisException, not a conflict, and
    # the concurrent change is a metadata change: it stands for MetadataChangedException
    Anchor(
        "schema-since-analysis",
        METADATA,
        "scala",
        re.compile(
            r"The schema of your Delta table has changed in an incompatible way since your "
            r"DataFrame\s+or DeltaTable object was created\."
        ),
    ),
    Anchor(
        "c-append",
        APPEND,
        "scala",
        re.compile(
            r"Transaction conflict detected\. "
            + _C_TABLE
            + r" added data to table (?P<table>[^\n]{1,500}?) committed at version (?P<version>\d{1,19})\."
        ),
    ),
    Anchor(
        "c-delete-read",
        DELETE_READ,
        "scala",
        re.compile(
            r"Transaction conflict detected, "
            + _C_TABLE
            + r" deleted data from table (?P<table>[^\n]{1,500}?) "
            r"\(committed at version (?P<version>\d{1,19})\) that this transaction read\."
        ),
    ),
    Anchor(
        "c-delete-delete",
        DELETE_DELETE,
        "scala",
        re.compile(
            r"Transaction conflict detected, "
            + _C_TABLE
            + r" deleted data from table (?P<table>[^\n]{1,500}?) "
            r"\(committed at version (?P<version>\d{1,19})\) that this transaction attempted to delete\."
        ),
    ),
    Anchor(
        "rs-append",
        APPEND,
        "rust",
        re.compile(r"Commit failed: a concurrent transactions? added new data\.?"),
    ),
    Anchor(
        "rs-delete-read",
        DELETE_READ,
        "rust",
        re.compile(r"Commit failed: a concurrent transaction deleted data this operation read\.?"),
    ),
    Anchor(
        "rs-delete-delete",
        DELETE_DELETE,
        "rust",
        re.compile(
            r"Commit failed: a concurrent transaction deleted the same data your transaction deletes\.?"
        ),
    ),
    Anchor("rs-metadata", METADATA, "rust", re.compile(r"Metadata changed since last commit\.?")),
    Anchor(
        "rs-protocol",
        PROTOCOL,
        "rust",
        re.compile(r"Protocol changed since last commit(?::[ \t]*(?P<detail>[^\n'\"\\]{0,300}))?"),
    ),
    Anchor("rs-transaction", TRANSACTION, "rust", re.compile(r"Concurrent transaction failed\.?")),
    Anchor(
        "rs-max-attempts",
        MAX_RETRIES,
        "rust",
        re.compile(r"Failed to commit transaction: (?P<attempts>\d{1,9})(?![\d\w]|\.\d)"),
    ),
    Anchor(
        "rs-debug",
        APPEND,
        "rust",
        re.compile(
            r"CommitConflict\((?P<variant>" + "|".join(_RS_DEBUG) + r")"
            r"(?:\(\"?(?P<detail>[^)\n\"]{0,300})\"?\))?\)"
        ),
    ),
    Anchor(
        "rs-debug-max-attempts",
        MAX_RETRIES,
        "rust",
        re.compile(r"MaxCommitAttempts\((?P<attempts>\d{1,9})\)"),
    ),
)


def debug_variant_exception(variant: str) -> str:
    """The Delta exception name of a delta-rs ``CommitConflictError`` variant name."""
    return _RS_DEBUG.get(variant, APPEND)


# --- the text around an anchor -----------------------------------------------------------------

ERROR_CLASS = re.compile(
    r"\[(?P<ec>DELTA_[A-Z0-9_]{1,80}(?:\.[A-Z0-9_]{1,80})?)\]\s*(?:[A-Za-z]\w{0,80}Exception:\s*)?$"
)
CLASS_NAME = re.compile(
    r"\b(?:Concurrent(?:Append|DeleteRead|DeleteDelete|Transaction|Write)Exception"
    r"|DeltaConcurrentModificationException|MetadataChangedException|ProtocolChangedException"
    r"|DeltaIllegalStateException|IllegalStateException|CommitFailedError|DeltaError)\b"
)
PACKAGE = re.compile(r"(?:[A-Za-z_$][\w$]{0,100}\.){1,12}$")
RS_PREFIX = re.compile(
    r"(?:Transaction failed: )?Failed to commit transaction: $|(?:\w{1,40} \{ (?:source: )?){1,4}$"
)
RS_HELP = re.compile(
    r"(?:\\{1,3}n|\r?\n)[^\n]{0,40}?Help: [^\n]{0,400}?(?:Snapshot Isolation|generating the data)\."
)
DOC_LINK = re.compile(
    r"Refer to (?P<link>https?://[^\s\"'<>]{1,300}?)\.? for more (?:details|information)"
)
RETRY_HINT = re.compile(
    r"upgrad(?:e|ing) all (?:your|their|there) concurrent writers", re.IGNORECASE
)
C_PARTITION = re.compile(
    r"(?:modified|deleted) data in the partition (?P<partition>\[[^\n]*?\]) that (?:should have been|was) read"
)
RS_PROTOCOL = re.compile(
    r"required read/write (?P<rr>\d{1,4})/(?P<rw>\d{1,4}), current read/write (?P<cr>\d{1,4})/(?P<cw>\d{1,4})"
)
# DeltaErrors.schemaChangedSinceAnalysis lists what changed, e.g. "Latest schema has additional
# field(s): note" or "Latest schema is missing field(s): note"
CHANGED_FIELDS = re.compile(
    r"Latest schema (?:has additional|is missing) field\(s\): (?P<fields>[^\n\"\\]{1,500})"
)
EMPTY_DIRECTORY = "This happens when multiple writers are writing to an empty directory."
MAX_RETRY_LINES = {
    "start_version": re.compile(r"Commit started at version: (\d{1,19})"),
    "failed_version": re.compile(r"Commit failed at version: (\d{1,19})"),
    "actions": re.compile(r"Number of actions attempted to commit: (\d{1,19})"),
    "time_spent_ms": re.compile(r"Total time spent attempting this commit: (\d{1,19}) ms"),
}

# Databricks-only sub-classes (row-level concurrency reasons) and the sentence each one prints,
# for renderings that drop the ``[CLASS.SUBCLASS]`` prefix. WITH/WITHOUT_HINT are OSS ≥ 4.1 too.
DATABRICKS_SUBCLASSES = frozenset(
    {
        "WHOLE_TABLE_READ",
        "WHOLE_TABLE_REPLACE",
        "ROW_LEVEL_CHANGES",
        "PARTITIONED_TABLE_WITHOUT_MERGE_SOURCE",
        "PREDICATES_NEED_REWRITE",
        "METADATA_CHANGE",
        "PROTOCOL_CHANGE",
        "CHANGE_TYPE_COLUMN",
        "ALLOTTED_TIME_EXCEEDED",
        "EMPTY_READ_PREDICATES",
    }
)
WHOLE_TABLE_SUBCLASSES = frozenset(
    {"WHOLE_TABLE_READ", "WHOLE_TABLE_REPLACE", "EMPTY_READ_PREDICATES"}
)
SUBCLASS_SENTENCES: tuple[tuple[str, str], ...] = (
    ("Row-level conflict resolution exceeded the allotted time", "ALLOTTED_TIME_EXCEEDED"),
    ("conflicts with Change Data Feed (CDC) metadata columns", "CHANGE_TYPE_COLUMN"),
    ("This transaction did not include any filters and", "EMPTY_READ_PREDICATES"),
    ("The concurrent operation changed the table metadata", "METADATA_CHANGE"),
    (
        "Row-level conflict detection could not be performed on this partitioned table",
        "PARTITIONED_TABLE_WITHOUT_MERGE_SOURCE",
    ),
    ("could not be applied for row-level conflict detection", "PREDICATES_NEED_REWRITE"),
    ("The concurrent operation upgraded the table protocol", "PROTOCOL_CHANGE"),
    ("This transaction attempted to read the entire table", "WHOLE_TABLE_READ"),
    ("The concurrent operation replaced all data in the table", "WHOLE_TABLE_REPLACE"),
    ("rows that this transaction attempted to", "ROW_LEVEL_CHANGES"),
    ("The concurrent operation modified the same rows", "ROW_LEVEL_CHANGES"),
    ("data in the partition", "WITH_PARTITION_HINT"),
    ("The concurrent operation modified data that", "WITHOUT_HINT"),
    ("The concurrent operation deleted data that", "WITHOUT_HINT"),
    ("Please retry the operation.", "WITHOUT_HINT"),
)
DATABRICKS_HOSTS = ("databricks.com", "microsoft.com", "azure.cn", "azure.com")
DATABRICKS_CLASS_PREFIX = "com.databricks."

_PARTITION_SPLIT = re.compile(r", (?=[^,=\[\]\s]{1,200}=)")


def parse_partition(text: str) -> dict[str, str | None]:
    """``[date=2024-01-01, country=US]`` → dict; a literal ``null`` value is a null partition value."""
    inner = text.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    out: dict[str, str | None] = {}
    if not inner.strip():
        return out
    for part in _PARTITION_SPLIT.split(inner):
        key, sep, value = part.partition("=")
        if sep and key.strip():
            out[key.strip()] = None if value == "null" else value
    return out


def split_example_file(
    text: str, *, bare_means_whole_table: bool
) -> tuple[str, dict[str, str | None] | None, bool]:
    """``<path> in partition [..]`` / ``<path> in the root of the table`` / ``<path>``.

    Returns the path, the partition (``{}`` for the table root, None when not named) and whether
    the message places the file at table level. A bare path means a whole-table read in
    DELETE_READ; DELETE_DELETE always prints the bare path.
    """
    path, sep, rest = text.partition(" in partition [")
    if sep and rest.endswith("]"):
        return path, parse_partition("[" + rest), False
    path, sep, _ = text.partition(" in the root of the table")
    if sep:
        return path, {}, True
    return text, None, bare_means_whole_table
