"""An attempted Spark SQL write statement -> :class:`Statement` (sqlglot only).

This module only *reads* the statement: which table, which conditions (with the target's
qualifiers removed and the source's kept, the way Delta-Spark's resolved ``simpleString``
shows target columns), which literal rows an INSERT writes, which MERGE clauses exist, which
DDL actions an ALTER TABLE has. What those mean for a commit (reads, adds, removes) is decided
in :mod:`deltaforensics.attempts`, against the table.

Every problem is a one-line :class:`ValueError` (the CLI turns it into exit code 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from deltaforensics.statements.dataframe import looks_like_dataframe_write, read_dataframe_write
from deltaforensics.statements.ddl import (
    read_alter,
    read_alter_command,
    read_create,
    read_optimize,
    read_reorg,
    read_restore,
    read_sync_identity,
    read_truncate,
    read_unset_properties,
)
from deltaforensics.statements.dml import read_delete, read_insert, read_merge, read_update
from deltaforensics.statements.model import Statement
from deltaforensics.statements.names import clean_name, requalify, to_sql
from deltaforensics.statements.reading import parse_condition, parse_tree

_OPTIMIZE = re.compile(
    r"^\s*OPTIMIZE\s+(?P<table>(?:`[^`]*`|[^\s`])+)"
    r"(?:\s+WHERE\s+(?P<where>.+?))?"
    r"(?:\s+(?P<full>FULL))?"
    r"(?:\s+ZORDER\s+BY\s*(?P<z>\(.*\)|[^()]+?))?\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
# Delta's own grammar (DeltaSqlBase.g4 ``reorgTable``), which sqlglot does not know
_REORG = re.compile(
    r"^\s*REORG\s+TABLE\s+(?P<table>(?:`[^`]*`|[^\s`])+)(?:\s+WHERE\s+(?P<where>.+?))?"
    r"\s+APPLY\s*\((?P<apply>.*)\)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_REPLACE_TABLE = re.compile(r"^\s*REPLACE\s+TABLE\b", re.IGNORECASE)
_UNSET = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+UNSET\s+TBLPROPERTIES\s*(?:IF\s+EXISTS\s*)?\((?P<keys>.*)\)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
# Delta's own grammar (DeltaSqlBase.g4 ``alterTableSyncIdentity``), which sqlglot does not know
_SYNC_IDENTITY = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+(?:ALTER|CHANGE)\s+(?:COLUMN\s+)?(?P<column>\S+)"
    r"\s+SYNC\s+IDENTITY\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
# Delta's own grammar (DeltaSqlBase.g4 ``restore``), which sqlglot does not know
_RESTORE = re.compile(
    r"^\s*RESTORE\s+(?:TABLE\s+)?(?P<table>(?:`[^`]*`|[^\s`])+)\s+(?:TO\s+)?"
    r"(?P<kind>VERSION|TIMESTAMP)\s+AS\s+OF\s+(?P<target>.+?)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_ALTER_TABLE = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+(?P<rest>.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL
)

# The statements sqlglot parses, each with its reader, tried in this order.
_READERS: tuple[tuple[type[exp.Expr], Callable[[str, Any], Statement]], ...] = (
    (exp.Insert, read_insert),
    (exp.Delete, read_delete),
    (exp.Update, read_update),
    (exp.Merge, read_merge),
    (exp.Alter, read_alter),
    (exp.TruncateTable, read_truncate),
)


def parse_statement(sql: str) -> Statement:
    """Read one Spark SQL write statement; ``ValueError`` (one line) when it is not one."""
    if not sql.strip():
        raise ValueError("the attempted statement is empty")
    text = sql.strip()
    if looks_like_dataframe_write(text):
        return read_dataframe_write(text)
    if m := _OPTIMIZE.match(text):
        return read_optimize(text, m)
    if m := _REORG.match(text):
        return read_reorg(text, m)
    replace_keyword = "CREATE OR REPLACE"
    to_parse = text
    if _REPLACE_TABLE.match(text):
        replace_keyword = "REPLACE"
        to_parse = _REPLACE_TABLE.sub("CREATE OR REPLACE TABLE", text, count=1)
    if m := _UNSET.match(text):
        return read_unset_properties(text, m)
    if m := _SYNC_IDENTITY.match(text):
        return read_sync_identity(text, m)
    if m := _RESTORE.match(text):
        return read_restore(text, m)
    tree = parse_tree(to_parse)
    for kind, read in _READERS:
        if isinstance(tree, kind):
            return read(text, tree)
    if isinstance(tree, exp.Create):
        return read_create(text, tree, replace_keyword)
    if (
        isinstance(tree, exp.Command)
        and str(tree.this).upper() == "ALTER"
        and (m := _ALTER_TABLE.match(text))
    ):
        return read_alter_command(text, m)
    first = text.split(None, 1)[0].upper()
    raise ValueError(
        f"unsupported statement {first}: the attempt must be INSERT, DELETE, UPDATE, MERGE, OPTIMIZE, "
        "ALTER TABLE, TRUNCATE TABLE, CREATE OR REPLACE TABLE, RESTORE or a DataFrame write "
        "(df.write…save(path))"
    )


def normalise_condition(text: str, table: str) -> str:
    """A condition given on its own (``--replace-where``), target qualifiers removed."""
    name = clean_name(table)
    return to_sql(requalify(parse_condition(text), {name, name.rsplit(".", 1)[-1]}))
