"""What a statement says, as values: its kind, target, conditions, rows, clauses and actions.

Conditions are normalised SQL text (the target's qualifiers removed, the source's kept), the
way Delta-Spark's resolved ``simpleString`` shows target columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Cell = str | int | float | bool | None


class _Unknown:
    """A value the statement does not show (a column reference, an expression, ``*``)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
Value = Cell | _Unknown

KINDS = (
    "INSERT",
    "DELETE",
    "UPDATE",
    "MERGE",
    "OPTIMIZE",
    "REORG",
    "ALTER",
    "TRUNCATE",
    "REPLACE",
    "RESTORE",
)
SOURCE_RENAME = "src"  # a MERGE source alias that looks like a target alias is renamed to this


@dataclass(frozen=True, slots=True)
class Clause:
    """One WHEN clause of a MERGE."""

    kind: str  # "matched" | "not_matched" | "not_matched_by_source"
    action: str  # "update" | "delete" | "insert"
    condition: str | None = None  # normalised SQL (target unqualified, source qualified)
    original: str | None = None  # as written
    star: bool = False  # UPDATE SET * / INSERT *: every target column from the source's


@dataclass(frozen=True, slots=True)
class AlterAction:
    """One action of an ALTER TABLE."""

    kind: str  # add_columns | set_properties | unset_properties | add_constraint | drop_constraint
    #            | drop_columns | change_column | rename_column | sync_identity | other
    columns: tuple[tuple[str, str], ...] = ()  # (name, Delta type) for add_columns; names otherwise
    properties: tuple[tuple[str, str], ...] = ()
    name: str | None = None  # constraint name
    expr: str | None = None  # CHECK expression
    text: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    kind: str  # one of KINDS
    text: str
    table: str  # target name as written (lower-cased, dotted)
    target_alias: str | None = None
    # INSERT
    overwrite: bool = False
    partition_spec: tuple[tuple[str, Value], ...] = ()  # PARTITION (c='v', d): d -> UNKNOWN
    insert_columns: tuple[str, ...] | None = None  # explicit column list
    by_name: bool = False
    rows: tuple[tuple[Value, ...], ...] | None = None  # literal rows (None: not visible)
    row_names: tuple[str | None, ...] | None = None  # output names of a SELECT (BY NAME)
    reads_target: bool = False  # the INSERT's query reads the target table
    self_read_condition: str | None = None  # its WHERE, when it is a plain scan of the target
    replace_where: str | None = None  # INSERT INTO t REPLACE WHERE ...
    # a DataFrame write read as an INSERT (statements.dataframe): its writer options
    dataframe: bool = False
    overwrite_mode: str | None = None  # partitionOverwriteMode: "static" | "dynamic"
    txn: tuple[str, int] | None = None  # txnAppId, txnVersion
    schema_options: tuple[str, ...] = ()  # "mergeSchema", "overwriteSchema" set to true
    # DELETE / UPDATE / OPTIMIZE (WHERE) and MERGE (ON)
    condition: str | None = None  # normalised SQL
    merge_on: str | None = None  # the ON condition as written
    target_only_on: str | None = None  # AND of the ON conjuncts over target columns only
    source_alias: str | None = None
    # MERGE from an inline VALUES source (``USING (SELECT * FROM VALUES …) AS v(cols)`` or
    # ``USING (VALUES …) AS s(cols)``): each column's values over the source rows, lower-cased
    source_values: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    clauses: tuple[Clause, ...] = ()
    set_columns: tuple[str, ...] = ()  # UPDATE SET targets
    zorder: tuple[str, ...] = ()
    alter: tuple[AlterAction, ...] = ()
    partition_by: tuple[str, ...] | None = None  # CREATE OR REPLACE ... PARTITIONED BY
    has_query: bool = False  # CREATE OR REPLACE ... AS SELECT
    replace_keyword: str = ""  # "CREATE OR REPLACE" | "REPLACE"
    restore_to: tuple[str, str] | None = None  # RESTORE: ("version", "12") or ("timestamp", ...)
    notes: tuple[str, ...] = field(default=())

    @property
    def has_matched(self) -> bool:
        return any(c.kind == "matched" for c in self.clauses)

    @property
    def has_not_matched(self) -> bool:
        return any(c.kind == "not_matched" for c in self.clauses)

    @property
    def has_not_matched_by_source(self) -> bool:
        return any(c.kind == "not_matched_by_source" for c in self.clauses)
