"""INSERT, DELETE, UPDATE and MERGE: target, conditions, written rows, MERGE clauses."""

from __future__ import annotations

from sqlglot import exp

from deltaforensics.predicates.partition import LIKELY_TARGET_ALIASES
from deltaforensics.statements.literals import cell
from deltaforensics.statements.model import SOURCE_RENAME, UNKNOWN, Clause, Statement, Value
from deltaforensics.statements.names import (
    alias_of,
    conjuncts,
    is_target_only,
    requalify,
    table_name,
    target_names,
    to_sql,
)


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
            raise ValueError(f"PARTITION item not understood: {to_sql(item)}")
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


def read_insert(text: str, tree: exp.Insert) -> Statement:
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
    name = table_name(table)
    query = tree.expression
    rows, row_names = _rows(query)
    reads_target = False
    self_cond: str | None = None
    if query is not None:
        scans = [t for t in query.find_all(exp.Table) if table_name(t) == name]
        reads_target = bool(scans)
        if (
            reads_target
            and isinstance(query, exp.Select)
            and len(scans) == 1
            and not query.args.get("joins")
            and isinstance(query.args.get("from_") or query.args.get("from"), exp.From)
        ):
            where = query.args.get("where")
            alias = alias_of(scans[0])
            names = {alias} if alias else {name, name.rsplit(".", 1)[-1]}
            if isinstance(where, exp.Where):
                self_cond = to_sql(requalify(where.this, names))
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
        replace_where=to_sql(requalify(replace_where, {name, name.rsplit(".", 1)[-1]}))
        if isinstance(replace_where, exp.Expr)
        else None,
    )


def _where_condition(tree: exp.Delete | exp.Update, table: exp.Expr) -> str | None:
    """The WHERE of a DELETE or UPDATE, target qualifiers removed; None without one."""
    where = tree.args.get("where")
    return (
        to_sql(requalify(where.this, target_names(table))) if isinstance(where, exp.Where) else None
    )


def read_delete(text: str, tree: exp.Delete) -> Statement:
    table = tree.this
    name = table_name(table)
    cond = _where_condition(tree, table)
    return Statement(
        kind="DELETE", text=text, table=name, target_alias=alias_of(table), condition=cond
    )


def read_update(text: str, tree: exp.Update) -> Statement:
    table = tree.this
    name = table_name(table)
    if tree.args.get("from_") or tree.args.get("from"):
        raise ValueError("UPDATE ... FROM is not Spark SQL; use MERGE INTO")
    cond = _where_condition(tree, table)
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
        target_alias=alias_of(table),
        condition=cond,
        set_columns=set_cols,
    )


def _inline_source(using: exp.Expr) -> tuple[tuple[str, tuple[Value, ...]], ...]:
    """The columns of a MERGE source that is literal rows: a VALUES with column aliases, bare
    or under ``SELECT *``; nothing for a table, a view or any other query."""
    node = using.this if isinstance(using, exp.Subquery) else using
    if isinstance(node, exp.Select):
        items = node.expressions
        if len(items) != 1 or not isinstance(items[0], exp.Star) or node.args.get("where"):
            return ()
        source = node.args.get("from_") or node.args.get("from")
        node = source.this if isinstance(source, exp.From) else None
    if not isinstance(node, exp.Values):
        return ()
    names = [n.lower() for n in node.alias_column_names] or [
        n.lower() for n in getattr(using, "alias_column_names", [])
    ]
    rows, _ = _rows(node)
    if not names or not rows or any(len(r) != len(names) for r in rows):
        return ()
    return tuple((name, tuple(r[i] for r in rows)) for i, name in enumerate(names))


def read_merge(text: str, tree: exp.Merge) -> Statement:
    table = tree.this
    name = table_name(table)
    target = target_names(table)
    using = tree.args.get("using")
    if using is None:
        raise ValueError("MERGE needs a USING source")
    source_alias = alias_of(using)
    if source_alias is None and isinstance(using, exp.Table):
        source_alias = table_name(using).rsplit(".", 1)[-1]
    source = {source_alias} if source_alias else set()
    if isinstance(using, exp.Table) and alias_of(using):
        source.add(table_name(using))
    rename = (
        SOURCE_RENAME
        if source_alias in LIKELY_TARGET_ALIASES or source_alias in target
        else source_alias
    )
    on = tree.args.get("on")
    if on is None:
        raise ValueError("MERGE needs an ON condition")
    on_norm = requalify(on, target, source, rename)
    target_only = [c for c in conjuncts(on_norm) if is_target_only(c)]
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
            raise ValueError(f"MERGE clause action not understood: {to_sql(w)[:120]}")
        cond = w.args.get("condition")
        clauses.append(
            Clause(
                kind,
                action,
                to_sql(requalify(cond, target, source, rename)) if cond is not None else None,
                to_sql(cond) if cond is not None else None,
                star=isinstance(then, exp.Insert | exp.Update) and isinstance(then.this, exp.Star),
            )
        )
    if not clauses:
        raise ValueError("MERGE needs at least one WHEN clause")
    return Statement(
        kind="MERGE",
        text=text,
        table=name,
        target_alias=alias_of(table),
        condition=to_sql(on_norm),
        merge_on=to_sql(on),
        target_only_on=" AND ".join(to_sql(c) for c in target_only) or None,
        source_alias=rename,
        source_values=_inline_source(using),
        clauses=tuple(clauses),
    )
