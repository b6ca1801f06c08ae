"""OPTIMIZE, ALTER TABLE (with Delta's SYNC IDENTITY), TRUNCATE TABLE, CREATE OR REPLACE TABLE and
RESTORE."""

from __future__ import annotations

import re

from sqlglot import exp

from deltaforensics.statements.model import AlterAction, Statement
from deltaforensics.statements.names import clean_name, requalify, table_name, to_sql
from deltaforensics.statements.reading import parse_condition


def read_optimize(text: str, m: re.Match[str]) -> Statement:
    table = clean_name(m.group("table"))
    where = m.group("where")
    condition = None
    if where:
        tree = parse_condition(where)
        condition = to_sql(requalify(tree, {table, table.rsplit(".", 1)[-1]}))
    zorder: tuple[str, ...] = ()
    if m.group("z"):
        zorder = tuple(
            c.strip().strip("`") for c in m.group("z").strip().strip("()").split(",") if c.strip()
        )
        if not zorder:
            raise ValueError("ZORDER BY needs at least one column")
    return Statement(kind="OPTIMIZE", text=text, table=table, condition=condition, zorder=zorder)


def read_reorg(text: str, m: re.Match[str]) -> Statement:
    """``REORG TABLE t [WHERE partition filter] APPLY (PURGE)``: Delta's own grammar
    (DeltaSqlBase.g4 ``reorgTable``); ``APPLY (UPGRADE UNIFORM …)`` is a protocol change."""
    if m.group("apply").strip().upper() != "PURGE":
        raise ValueError(
            f"REORG … APPLY ({m.group('apply').strip()}) is not modelled as an attempt: only "
            "APPLY (PURGE) is (UPGRADE UNIFORM changes the protocol)"
        )
    table = clean_name(m.group("table"))
    condition = None
    if m.group("where"):
        tree = parse_condition(m.group("where"))
        condition = to_sql(requalify(tree, {table, table.rsplit(".", 1)[-1]}))
    return Statement(kind="REORG", text=text, table=table, condition=condition)


def _type_name(kind: exp.Expr | None) -> str:
    if not isinstance(kind, exp.DataType):
        return "string"
    text = kind.sql(dialect="spark").lower()
    return {"int": "integer", "bigint": "long", "smallint": "short", "tinyint": "byte"}.get(
        text, text
    )


def read_alter(text: str, tree: exp.Alter) -> Statement:
    if str(tree.args.get("kind") or "TABLE").upper() != "TABLE":
        raise ValueError("only ALTER TABLE changes a Delta table")
    name = table_name(tree.this)
    actions: list[AlterAction] = []
    for a in tree.args.get("actions") or []:
        if isinstance(a, exp.Schema) and all(isinstance(c, exp.ColumnDef) for c in a.expressions):
            actions.append(
                AlterAction(
                    "add_columns",
                    columns=tuple((c.name, _type_name(c.args.get("kind"))) for c in a.expressions),
                    text=to_sql(a),
                )
            )
        elif isinstance(a, exp.ColumnDef):
            actions.append(
                AlterAction(
                    "add_columns",
                    columns=((a.name, _type_name(a.args.get("kind"))),),
                    text=to_sql(a),
                )
            )
        elif isinstance(a, exp.AlterSet):
            actions.append(_set_properties(a))
        elif isinstance(a, exp.AddConstraint):
            actions += _check_constraints(a)
        elif isinstance(a, exp.Drop) and str(a.args.get("kind") or "").upper() == "CONSTRAINT":
            names = [t.name for t in a.args.get("tables") or []]
            actions.append(
                AlterAction("drop_constraint", name=names[0] if names else None, text=to_sql(a))
            )
        elif isinstance(a, exp.Drop) and str(a.args.get("kind") or "").upper() == "COLUMN":
            actions.append(
                AlterAction(
                    "drop_columns",
                    columns=tuple((t.name, "") for t in a.args.get("tables") or []),
                    text=to_sql(a),
                )
            )
        elif isinstance(a, exp.AlterColumn):
            actions.append(AlterAction("change_column", columns=((a.name, ""),), text=to_sql(a)))
        elif isinstance(a, exp.RenameColumn):
            actions.append(
                AlterAction(
                    "rename_column", columns=((a.this.name if a.this else "", ""),), text=to_sql(a)
                )
            )
        else:
            actions.append(AlterAction("other", text=to_sql(a)))
    if not actions:
        raise ValueError("ALTER TABLE without an action")
    return Statement(kind="ALTER", text=text, table=name, alter=tuple(actions))


def _set_properties(a: exp.AlterSet) -> AlterAction:
    """An ALTER TABLE ... SET with the properties it sets; one without any is ``other``."""
    props: list[tuple[str, str]] = []
    for p in a.find_all(exp.Property):
        key = p.this.name if isinstance(p.this, exp.Expr) else str(p.this)
        value = p.args.get("value")
        props.append((key, value.name if isinstance(value, exp.Expr) else str(value)))
    if not props:
        return AlterAction("other", text=to_sql(a))
    return AlterAction("set_properties", properties=tuple(props), text=to_sql(a))


def _check_constraints(a: exp.AddConstraint) -> list[AlterAction]:
    actions: list[AlterAction] = []
    for c in a.expressions:
        check = (
            next((x for x in c.expressions if isinstance(x, exp.CheckColumnConstraint)), None)
            if isinstance(c, exp.Constraint)
            else None
        )
        if check is None:
            raise ValueError("Delta supports only CHECK constraints in ADD CONSTRAINT")
        actions.append(
            AlterAction("add_constraint", name=c.name, expr=to_sql(check.this), text=to_sql(c))
        )
    return actions


def read_truncate(text: str, tree: exp.TruncateTable) -> Statement:
    tables = tree.expressions
    if len(tables) != 1:
        raise ValueError("TRUNCATE one table at a time")
    if tree.args.get("partition") is not None:
        raise ValueError(
            "Delta does not support TRUNCATE TABLE ... PARTITION; use DELETE FROM ... WHERE"
        )
    return Statement(kind="TRUNCATE", text=text, table=table_name(tables[0]))


def read_create(text: str, tree: exp.Create, keyword: str) -> Statement:
    if str(tree.args.get("kind") or "").upper() != "TABLE":
        raise ValueError("only CREATE OR REPLACE TABLE writes to an existing Delta table")
    if not tree.args.get("replace"):
        raise ValueError(
            "CREATE TABLE on an existing table fails before it commits anything; "
            "did you mean CREATE OR REPLACE TABLE?"
        )
    target = tree.this
    name = table_name(target)
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


def read_unset_properties(text: str, m: re.Match[str]) -> Statement:
    """``ALTER TABLE t UNSET TBLPROPERTIES (...)``, which sqlglot does not parse."""
    keys = tuple(k.strip().strip("'\"`") for k in m.group("keys").split(",") if k.strip())
    return Statement(
        kind="ALTER",
        text=text,
        table=clean_name(m.group("table")),
        alter=(
            AlterAction("unset_properties", properties=tuple((k, "") for k in keys), text=text),
        ),
    )


def read_alter_command(text: str, m: re.Match[str]) -> Statement:
    """An ALTER TABLE sqlglot kept as a generic command: one action of kind ``other``."""
    return Statement(
        kind="ALTER",
        text=text,
        table=clean_name(m.group("table")),
        alter=(AlterAction("other", text=m.group("rest")),),
    )


def read_sync_identity(text: str, m: re.Match[str]) -> Statement:
    """``ALTER TABLE t ALTER|CHANGE [COLUMN] c SYNC IDENTITY``: one ``sync_identity`` action."""
    column = m.group("column").strip("`")
    return Statement(
        kind="ALTER",
        text=text,
        table=clean_name(m.group("table")),
        alter=(AlterAction("sync_identity", columns=((column, ""),), text=text),),
    )


def read_restore(text: str, m: re.Match[str]) -> Statement:
    """``RESTORE [TABLE] t [TO] VERSION|TIMESTAMP AS OF x`` (Delta's grammar, ``restore``)."""
    kind = m["kind"].lower()
    target = m["target"].strip().strip("'\"")
    if kind == "version" and not target.isdigit():
        raise ValueError(f"RESTORE TO VERSION AS OF needs a version number, not {target!r}")
    return Statement(
        kind="RESTORE", text=text, table=clean_name(m["table"]), restore_to=(kind, target)
    )
