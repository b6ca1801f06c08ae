"""An attempted Spark SQL write statement -> what it targets, filters and writes (sqlglot only).

The losing side of a conflict leaves nothing in ``_delta_log``, so ``explain --attempt`` takes
the statement the user ran. This module only *reads* the statement: which table, which
conditions (with the target's qualifiers removed and the source's kept, the way Delta-Spark's
resolved ``simpleString`` shows target columns), which literal rows an INSERT writes, which
MERGE clauses exist, which DDL actions an ALTER TABLE has. What those mean for a commit (reads,
adds, removes) is decided in :mod:`deltaforensics.evidence.attempts`, against the table.

Every problem is a one-line :class:`ValueError` (the CLI turns it into exit code 2).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from deltaforensics.predicates.partition import LIKELY_TARGET_ALIASES

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

KINDS = ("INSERT", "DELETE", "UPDATE", "MERGE", "OPTIMIZE", "ALTER", "TRUNCATE", "REPLACE")
SOURCE_RENAME = "src"  # a MERGE source alias that looks like a target alias is renamed to this


@dataclass(frozen=True, slots=True)
class Clause:
    """One WHEN clause of a MERGE."""

    kind: str  # "matched" | "not_matched" | "not_matched_by_source"
    action: str  # "update" | "delete" | "insert"
    condition: str | None = None  # normalised SQL (target unqualified, source qualified)
    original: str | None = None  # as written


@dataclass(frozen=True, slots=True)
class AlterAction:
    """One action of an ALTER TABLE."""

    kind: str  # add_columns | set_properties | unset_properties | add_constraint | drop_constraint
    #            | drop_columns | change_column | rename_column | other
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
    # DELETE / UPDATE / OPTIMIZE (WHERE) and MERGE (ON)
    condition: str | None = None  # normalised SQL
    merge_on: str | None = None  # the ON condition as written
    target_only_on: str | None = None  # AND of the ON conjuncts over target columns only
    source_alias: str | None = None
    clauses: tuple[Clause, ...] = ()
    set_columns: tuple[str, ...] = ()  # UPDATE SET targets
    zorder: tuple[str, ...] = ()
    alter: tuple[AlterAction, ...] = ()
    partition_by: tuple[str, ...] | None = None  # CREATE OR REPLACE ... PARTITIONED BY
    has_query: bool = False  # CREATE OR REPLACE ... AS SELECT
    replace_keyword: str = ""  # "CREATE OR REPLACE" | "REPLACE"
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


# ---------------------------------------------------------------------------------------------
# entry point

_OPTIMIZE = re.compile(
    r"^\s*OPTIMIZE\s+(?P<table>(?:`[^`]*`|[^\s`])+)"
    r"(?:\s+WHERE\s+(?P<where>.+?))?"
    r"(?:\s+(?P<full>FULL))?"
    r"(?:\s+ZORDER\s+BY\s*(?P<z>\(.*\)|[^()]+?))?\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_REPLACE_TABLE = re.compile(r"^\s*REPLACE\s+TABLE\b", re.IGNORECASE)
_UNSET = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+UNSET\s+TBLPROPERTIES\s*(?:IF\s+EXISTS\s*)?\((?P<keys>.*)\)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_ALTER_TABLE = re.compile(
    r"^\s*ALTER\s+TABLE\s+(?P<table>\S+)\s+(?P<rest>.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TOKEN = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: .*?>")


def parse_statement(sql: str) -> Statement:
    """Read one Spark SQL write statement; ``ValueError`` (one line) when it is not one."""
    if not sql.strip():
        raise ValueError("the attempted statement is empty")
    text = sql.strip()
    if m := _OPTIMIZE.match(text):
        return _optimize(text, m)
    replace_keyword = "CREATE OR REPLACE"
    to_parse = text
    if _REPLACE_TABLE.match(text):
        replace_keyword = "REPLACE"
        to_parse = _REPLACE_TABLE.sub("CREATE OR REPLACE TABLE", text, count=1)
    if m := _UNSET.match(text):
        keys = tuple(k.strip().strip("'\"`") for k in m.group("keys").split(",") if k.strip())
        return Statement(
            kind="ALTER",
            text=text,
            table=_clean_name(m.group("table")),
            alter=(
                AlterAction("unset_properties", properties=tuple((k, "") for k in keys), text=text),
            ),
        )
    tree = _parse_one(to_parse)
    if isinstance(tree, exp.Insert):
        return _insert(text, tree)
    if isinstance(tree, exp.Delete):
        return _delete(text, tree)
    if isinstance(tree, exp.Update):
        return _update(text, tree)
    if isinstance(tree, exp.Merge):
        return _merge(text, tree)
    if isinstance(tree, exp.Alter):
        return _alter(text, tree)
    if isinstance(tree, exp.TruncateTable):
        return _truncate(text, tree)
    if isinstance(tree, exp.Create):
        return _create(text, tree, replace_keyword)
    if (
        isinstance(tree, exp.Command)
        and str(tree.this).upper() == "ALTER"
        and (m := _ALTER_TABLE.match(text))
    ):
        return Statement(
            kind="ALTER",
            text=text,
            table=_clean_name(m.group("table")),
            alter=(AlterAction("other", text=m.group("rest")),),
        )
    first = text.split(None, 1)[0].upper()
    raise ValueError(
        f"unsupported statement {first}: the attempt must be INSERT, DELETE, UPDATE, MERGE, OPTIMIZE, "
        "ALTER TABLE, TRUNCATE TABLE or CREATE OR REPLACE TABLE"
    )


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning when it falls back to a generic Command; we report it ourselves."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _one_line(err: Exception) -> str:
    errors = getattr(err, "errors", None)
    if errors and isinstance(errors, list) and isinstance(errors[0], dict):
        e = errors[0]
        where = f" (line {e.get('line')}, column {e.get('col')})" if e.get("line") else ""
        description = _TOKEN.sub(_token_text, str(e.get("description") or "syntax error"))
        return f"{description}{where}"
    first = _ANSI.sub("", str(err)).strip().splitlines()
    return first[0][:200] if first else type(err).__name__


def _token_text(m: re.Match[str]) -> str:
    return "the end of the statement" if m.group(1) == "SENTINEL" else repr(m.group(2))


def _parse_one(text: str) -> exp.Expr:
    try:
        with _quiet_sqlglot():
            trees = [t for t in sqlglot.parse(text, read="spark") if t is not None]
    except (ParseError, TokenError) as err:
        raise ValueError(
            f"cannot parse the attempted statement as Spark SQL: {_one_line(err)}"
        ) from None
    except Exception as err:  # sqlglot raises assorted errors on odd input
        raise ValueError(
            f"cannot parse the attempted statement as Spark SQL: {type(err).__name__}"
        ) from None
    if not trees:
        raise ValueError("the attempted statement is empty")
    if len(trees) > 1:
        raise ValueError(f"give one statement per --attempt (found {len(trees)})")
    return trees[0]


def parse_condition(text: str) -> exp.Expr:
    """A boolean SQL expression (a WHERE or a replaceWhere)."""
    tree = _parse_one(text)
    if isinstance(tree, exp.Command | exp.Query | exp.Alias):
        raise ValueError(f"not a condition: {text.strip()[:200]!r}")
    return tree


def normalise_condition(text: str, table: str) -> str:
    """A condition given on its own (``--replace-where``), target qualifiers removed."""
    name = _clean_name(table)
    return _sql(_requalify(parse_condition(text), {name, name.rsplit(".", 1)[-1]}))


# ---------------------------------------------------------------------------------------------
# names and qualifiers


def _clean_name(text: str) -> str:
    return ".".join(
        p.strip("`") for p in re.split(r"\.(?=(?:[^`]*`[^`]*`)*[^`]*$)", text.strip())
    ).lower()


def _table_name(table: exp.Expr) -> str:
    if isinstance(table, exp.Schema):
        table = table.this
    if not isinstance(table, exp.Table):
        raise ValueError("the statement's target is not a table")
    parts = [table.args.get(k) for k in ("catalog", "db")]
    names = [p.name for p in parts if p is not None] + [table.name]
    return ".".join(names).lower()


def _alias(node: exp.Expr) -> str | None:
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.this is not None:
        return str(alias.this.name).lower()
    return None


def _target_names(table: exp.Expr) -> set[str]:
    """Qualifiers that mean the target: alias, table name, dotted name."""
    name = _table_name(table)
    names = {name, name.rsplit(".", 1)[-1]}
    alias = _alias(table.this if isinstance(table, exp.Schema) else table)
    if alias:
        names = {alias}  # once aliased, Spark no longer resolves the table name
    return names


def _qualifier(col: exp.Column) -> str | None:
    parts = [col.args.get(k) for k in ("catalog", "db", "table")]
    names = [p.name for p in parts if p is not None]
    return ".".join(names).lower() if names else None


def _requalify(
    node: exp.Expr, target: set[str], source: set[str] | None = None, source_as: str | None = None
) -> exp.Expr:
    """A copy with target qualifiers removed and source qualifiers renamed to ``source_as``."""
    tree = node.copy()
    for col in list(tree.find_all(exp.Column)):
        q = _qualifier(col)
        if q is None:
            continue
        last = q.rsplit(".", 1)[-1]
        if q in target or (last in target and "." in q):
            for k in ("catalog", "db", "table"):
                col.set(k, None)
        elif source is not None and source_as is not None and (q in source or last in source):
            for k in ("catalog", "db"):
                col.set(k, None)
            col.set("table", exp.to_identifier(source_as))
    return tree


def _sql(node: exp.Expr) -> str:
    return node.sql(dialect="spark")


def _is_target_only(node: exp.Expr) -> bool:
    """Every column is unqualified (a target column after :func:`_requalify`); no subquery."""
    cols = list(node.find_all(exp.Column))
    if not cols or any(node.find_all(exp.Subquery, exp.Query, exp.Exists)):
        return False
    return all(_qualifier(c) is None for c in cols)


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        return [c for part in node.flatten() for c in _conjuncts(part)]
    return [node]


# ---------------------------------------------------------------------------------------------
# literal values


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def cell(node: exp.Expr | None) -> Value:
    """The constant a VALUES/SELECT item writes, or UNKNOWN."""
    while isinstance(node, exp.Paren | exp.Alias):
        node = node.this
    if isinstance(node, exp.Literal):
        if node.is_string:
            return str(node.this)
        num = _number(str(node.this))
        return UNKNOWN if num is None else num
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Neg):
        inner = cell(node.this)
        return -inner if isinstance(inner, int | float) and not isinstance(inner, bool) else UNKNOWN
    if isinstance(node, exp.Cast):
        return cell(node.this)
    return UNKNOWN


# ---------------------------------------------------------------------------------------------
# statements


def _optimize(text: str, m: re.Match[str]) -> Statement:
    table = _clean_name(m.group("table"))
    where = m.group("where")
    condition = None
    if where:
        tree = parse_condition(where)
        condition = _sql(_requalify(tree, {table, table.rsplit(".", 1)[-1]}))
    zorder: tuple[str, ...] = ()
    if m.group("z"):
        zorder = tuple(
            c.strip().strip("`") for c in m.group("z").strip().strip("()").split(",") if c.strip()
        )
        if not zorder:
            raise ValueError("ZORDER BY needs at least one column")
    return Statement(kind="OPTIMIZE", text=text, table=table, condition=condition, zorder=zorder)


def _partition_spec(table: exp.Expr) -> tuple[tuple[str, Value], ...]:
    part = table.args.get("partition") if isinstance(table, exp.Table) else None
    if not isinstance(part, exp.Partition):
        return ()
    spec: list[tuple[str, Value]] = []
    for item in part.expressions:
        if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
            spec.append((item.this.name, cell(item.expression)))
        elif isinstance(item, exp.Column):
            spec.append((item.name, UNKNOWN))
        else:
            raise ValueError(f"PARTITION item not understood: {_sql(item)}")
    return tuple(spec)


def _rows(
    query: exp.Expr | None,
) -> tuple[tuple[tuple[Value, ...], ...] | None, tuple[str | None, ...] | None]:
    """Literal rows of VALUES / a SELECT list; a ``*`` hides every position after it."""
    if isinstance(query, exp.Values):
        rows = []
        for t in query.expressions:
            items = t.expressions if isinstance(t, exp.Tuple) else [t]
            rows.append(tuple(cell(i) for i in items))
        return tuple(rows), None
    if isinstance(query, exp.Select):
        row: list[Value] = []
        names: list[str | None] = []
        for item in query.expressions:
            if isinstance(item, exp.Star) or (
                isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
            ):
                return None, None
            row.append(cell(item))
            names.append(item.alias_or_name or None)
        return (tuple(row),), tuple(names)
    return None, None


def _insert(text: str, tree: exp.Insert) -> Statement:
    target = tree.this
    columns: tuple[str, ...] | None = None
    table = target
    if isinstance(target, exp.Schema):
        columns = tuple(i.name for i in target.expressions)
        table = target.this
    if not isinstance(table, exp.Table):
        raise ValueError(
            "INSERT target is not a table (INSERT OVERWRITE DIRECTORY is not a Delta write)"
        )
    name = _table_name(table)
    query = tree.expression
    rows, row_names = _rows(query)
    reads_target = False
    self_cond: str | None = None
    if query is not None:
        scans = [t for t in query.find_all(exp.Table) if _table_name(t) == name]
        reads_target = bool(scans)
        if (
            reads_target
            and isinstance(query, exp.Select)
            and len(scans) == 1
            and not query.args.get("joins")
            and isinstance(query.args.get("from_") or query.args.get("from"), exp.From)
        ):
            where = query.args.get("where")
            alias = _alias(scans[0])
            names = {alias} if alias else {name, name.rsplit(".", 1)[-1]}
            if isinstance(where, exp.Where):
                self_cond = _sql(_requalify(where.this, names))
    replace_where = tree.args.get("where")
    return Statement(
        kind="INSERT",
        text=text,
        table=name,
        overwrite=bool(tree.args.get("overwrite")),
        partition_spec=_partition_spec(table),
        insert_columns=columns,
        by_name=bool(tree.args.get("by_name")),
        rows=rows,
        row_names=row_names,
        reads_target=reads_target,
        self_read_condition=self_cond,
        replace_where=_sql(_requalify(replace_where, {name, name.rsplit(".", 1)[-1]}))
        if isinstance(replace_where, exp.Expr)
        else None,
    )


def _delete(text: str, tree: exp.Delete) -> Statement:
    table = tree.this
    name = _table_name(table)
    where = tree.args.get("where")
    cond = (
        _sql(_requalify(where.this, _target_names(table))) if isinstance(where, exp.Where) else None
    )
    return Statement(
        kind="DELETE", text=text, table=name, target_alias=_alias(table), condition=cond
    )


def _update(text: str, tree: exp.Update) -> Statement:
    table = tree.this
    name = _table_name(table)
    if tree.args.get("from_") or tree.args.get("from"):
        raise ValueError("UPDATE ... FROM is not Spark SQL; use MERGE INTO")
    where = tree.args.get("where")
    cond = (
        _sql(_requalify(where.this, _target_names(table))) if isinstance(where, exp.Where) else None
    )
    set_cols = tuple(
        a.this.name
        for a in tree.expressions
        if isinstance(a, exp.EQ) and isinstance(a.this, exp.Column)
    )
    if not set_cols:
        raise ValueError("UPDATE needs SET column = value assignments")
    return Statement(
        kind="UPDATE",
        text=text,
        table=name,
        target_alias=_alias(table),
        condition=cond,
        set_columns=set_cols,
    )


def _merge(text: str, tree: exp.Merge) -> Statement:
    table = tree.this
    name = _table_name(table)
    target = _target_names(table)
    using = tree.args.get("using")
    if using is None:
        raise ValueError("MERGE needs a USING source")
    source_alias = _alias(using)
    if source_alias is None and isinstance(using, exp.Table):
        source_alias = _table_name(using).rsplit(".", 1)[-1]
    source = {source_alias} if source_alias else set()
    if isinstance(using, exp.Table) and _alias(using):
        source.add(_table_name(using))
    rename = (
        SOURCE_RENAME
        if source_alias in LIKELY_TARGET_ALIASES or source_alias in target
        else source_alias
    )
    on = tree.args.get("on")
    if on is None:
        raise ValueError("MERGE needs an ON condition")
    on_norm = _requalify(on, target, source, rename)
    target_only = [c for c in _conjuncts(on_norm) if _is_target_only(c)]
    clauses: list[Clause] = []
    whens = tree.args.get("whens")
    for w in whens.expressions if isinstance(whens, exp.Whens) else []:
        matched, by_source = bool(w.args.get("matched")), bool(w.args.get("source"))
        kind = "matched" if matched else "not_matched_by_source" if by_source else "not_matched"
        then = w.args.get("then")
        if isinstance(then, exp.Update):
            action = "update"
        elif isinstance(then, exp.Insert):
            action = "insert"
        elif isinstance(then, exp.Var) and str(then.this).upper() == "DELETE":
            action = "delete"
        else:
            raise ValueError(f"MERGE clause action not understood: {_sql(w)[:120]}")
        cond = w.args.get("condition")
        clauses.append(
            Clause(
                kind,
                action,
                _sql(_requalify(cond, target, source, rename)) if cond is not None else None,
                _sql(cond) if cond is not None else None,
            )
        )
    if not clauses:
        raise ValueError("MERGE needs at least one WHEN clause")
    return Statement(
        kind="MERGE",
        text=text,
        table=name,
        target_alias=_alias(table),
        condition=_sql(on_norm),
        merge_on=_sql(on),
        target_only_on=" AND ".join(_sql(c) for c in target_only) or None,
        source_alias=rename,
        clauses=tuple(clauses),
    )


def _type_name(kind: exp.Expr | None) -> str:
    if not isinstance(kind, exp.DataType):
        return "string"
    text = kind.sql(dialect="spark").lower()
    return {"int": "integer", "bigint": "long", "smallint": "short", "tinyint": "byte"}.get(
        text, text
    )


def _alter(text: str, tree: exp.Alter) -> Statement:
    if str(tree.args.get("kind") or "TABLE").upper() != "TABLE":
        raise ValueError("only ALTER TABLE changes a Delta table")
    name = _table_name(tree.this)
    actions: list[AlterAction] = []
    for a in tree.args.get("actions") or []:
        if isinstance(a, exp.Schema) and all(isinstance(c, exp.ColumnDef) for c in a.expressions):
            actions.append(
                AlterAction(
                    "add_columns",
                    columns=tuple((c.name, _type_name(c.args.get("kind"))) for c in a.expressions),
                    text=_sql(a),
                )
            )
        elif isinstance(a, exp.ColumnDef):
            actions.append(
                AlterAction(
                    "add_columns", columns=((a.name, _type_name(a.args.get("kind"))),), text=_sql(a)
                )
            )
        elif isinstance(a, exp.AlterSet):
            props: list[tuple[str, str]] = []
            for p in a.find_all(exp.Property):
                key = p.this.name if isinstance(p.this, exp.Expr) else str(p.this)
                value = p.args.get("value")
                props.append((key, value.name if isinstance(value, exp.Expr) else str(value)))
            if not props:
                actions.append(AlterAction("other", text=_sql(a)))
            else:
                actions.append(AlterAction("set_properties", properties=tuple(props), text=_sql(a)))
        elif isinstance(a, exp.AddConstraint):
            for c in a.expressions:
                check = (
                    next(
                        (x for x in c.expressions if isinstance(x, exp.CheckColumnConstraint)), None
                    )
                    if isinstance(c, exp.Constraint)
                    else None
                )
                if check is None:
                    raise ValueError("Delta supports only CHECK constraints in ADD CONSTRAINT")
                actions.append(
                    AlterAction("add_constraint", name=c.name, expr=_sql(check.this), text=_sql(c))
                )
        elif isinstance(a, exp.Drop) and str(a.args.get("kind") or "").upper() == "CONSTRAINT":
            names = [t.name for t in a.args.get("tables") or []]
            actions.append(
                AlterAction("drop_constraint", name=names[0] if names else None, text=_sql(a))
            )
        elif isinstance(a, exp.Drop) and str(a.args.get("kind") or "").upper() == "COLUMN":
            actions.append(
                AlterAction(
                    "drop_columns",
                    columns=tuple((t.name, "") for t in a.args.get("tables") or []),
                    text=_sql(a),
                )
            )
        elif isinstance(a, exp.AlterColumn):
            actions.append(AlterAction("change_column", columns=((a.name, ""),), text=_sql(a)))
        elif isinstance(a, exp.RenameColumn):
            actions.append(
                AlterAction(
                    "rename_column", columns=((a.this.name if a.this else "", ""),), text=_sql(a)
                )
            )
        else:
            actions.append(AlterAction("other", text=_sql(a)))
    if not actions:
        raise ValueError("ALTER TABLE without an action")
    return Statement(kind="ALTER", text=text, table=name, alter=tuple(actions))


def _truncate(text: str, tree: exp.TruncateTable) -> Statement:
    tables = tree.expressions
    if len(tables) != 1:
        raise ValueError("TRUNCATE one table at a time")
    if tree.args.get("partition") is not None:
        raise ValueError(
            "Delta does not support TRUNCATE TABLE ... PARTITION; use DELETE FROM ... WHERE"
        )
    return Statement(kind="TRUNCATE", text=text, table=_table_name(tables[0]))


def _create(text: str, tree: exp.Create, keyword: str) -> Statement:
    if str(tree.args.get("kind") or "").upper() != "TABLE":
        raise ValueError("only CREATE OR REPLACE TABLE writes to an existing Delta table")
    if not tree.args.get("replace"):
        raise ValueError(
            "CREATE TABLE on an existing table fails before it commits anything; "
            "did you mean CREATE OR REPLACE TABLE?"
        )
    target = tree.this
    name = _table_name(target)
    partition_by: tuple[str, ...] | None = None
    props = tree.args.get("properties")
    if isinstance(props, exp.Properties):
        for p in props.expressions:
            if isinstance(p, exp.PartitionedByProperty):
                schema = p.this
                items = (
                    schema.expressions if isinstance(schema, exp.Schema | exp.Tuple) else [schema]
                )
                partition_by = tuple(i.name for i in items)
    return Statement(
        kind="REPLACE",
        text=text,
        table=name,
        partition_by=partition_by,
        has_query=tree.expression is not None,
        replace_keyword=keyword,
    )
