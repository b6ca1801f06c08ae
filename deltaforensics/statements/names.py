"""Table names and column qualifiers: which qualifiers mean the target, and conditions with
the target's removed and the source's renamed.
"""

from __future__ import annotations

import re

from sqlglot import exp


def clean_name(text: str) -> str:
    return ".".join(
        p.strip("`") for p in re.split(r"\.(?=(?:[^`]*`[^`]*`)*[^`]*$)", text.strip())
    ).lower()


def table_name(table: exp.Expr) -> str:
    if isinstance(table, exp.Schema):
        table = table.this
    if not isinstance(table, exp.Table):
        raise ValueError("the statement's target is not a table")
    parts = [table.args.get(k) for k in ("catalog", "db")]
    names = [p.name for p in parts if p is not None] + [table.name]
    return ".".join(names).lower()


def alias_of(node: exp.Expr) -> str | None:
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.this is not None:
        return str(alias.this.name).lower()
    return None


def target_names(table: exp.Expr) -> set[str]:
    """Qualifiers that mean the target: alias, table name, dotted name."""
    name = table_name(table)
    names = {name, name.rsplit(".", 1)[-1]}
    alias = alias_of(table.this if isinstance(table, exp.Schema) else table)
    if alias:
        names = {alias}  # once aliased, Spark no longer resolves the table name
    return names


def qualifier(col: exp.Column) -> str | None:
    parts = [col.args.get(k) for k in ("catalog", "db", "table")]
    names = [p.name for p in parts if p is not None]
    return ".".join(names).lower() if names else None


def requalify(
    node: exp.Expr, target: set[str], source: set[str] | None = None, source_as: str | None = None
) -> exp.Expr:
    """A copy with target qualifiers removed and source qualifiers renamed to ``source_as``."""
    tree = node.copy()
    for col in list(tree.find_all(exp.Column)):
        q = qualifier(col)
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


def to_sql(node: exp.Expr) -> str:
    return node.sql(dialect="spark")


def is_target_only(node: exp.Expr) -> bool:
    """Every column is unqualified (a target column after :func:`requalify`); no subquery."""
    cols = list(node.find_all(exp.Column))
    if not cols or any(node.find_all(exp.Subquery, exp.Query, exp.Exists)):
        return False
    return all(qualifier(c) is None for c in cols)


def conjuncts(node: exp.Expr) -> list[exp.Expr]:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        return [c for part in node.flatten() for c in conjuncts(part)]
    return [node]
