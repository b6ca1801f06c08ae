"""A DataFrame write (PySpark or Scala ``DataFrameWriter``/``DataFrameWriterV2`` chain), read
as the INSERT it is to Delta's conflict checker.

Delta records every DataFrame write as the ``WRITE`` operation (``WriteIntoDelta``), like an
SQL INSERT: ``mode("append")`` is ``INSERT INTO``, ``mode("overwrite")`` is ``INSERT
OVERWRITE``, ``option("replaceWhere", c)`` is ``INSERT INTO … REPLACE WHERE c``,
``option("partitionOverwriteMode", "dynamic")`` (or the session's
``spark.sql.sources.partitionOverwriteMode``) a dynamic partition overwrite, and
``option("txnAppId")``/``option("txnVersion")`` the ``txn`` action of an idempotent write
(Delta's docs: "Selectively overwrite data with Delta Lake", "Idempotent table writes").
The chain is read with Python's own parser (Scala's ``df.write.format("delta")…`` reads the
same); no code is run. The DataFrame's rows are not visible: the partitions it writes come
from ``--writes``, as for an ``INSERT … SELECT``.
"""

from __future__ import annotations

import ast
import re

from deltaforensics.statements.model import Statement

# ``df.write``, ``spark.table("s").write``, ``df.writeTo("t")``: a name, then .write somewhere
# (an SQL statement starts with a keyword and a space, never a name and a dot)
_NAME_FIRST = re.compile(r"^\s*[A-Za-z_]\w*\s*[.(]")
_WRITE = re.compile(r"\.\s*write(?:To)?\b")
_MODES = {"append": False, "overwrite": True}
_ENDS = ("save", "saveAsTable", "insertInto")
_V2 = {"append": False, "overwritePartitions": True}


def looks_like_dataframe_write(text: str) -> bool:
    return bool(_NAME_FIRST.match(text) and _WRITE.search(text))


def read_dataframe_write(text: str) -> Statement:
    """The INSERT a DataFrame write is; ``ValueError`` (one line) for what is not one."""
    try:
        tree = ast.parse(text.strip().rstrip(";"), mode="eval").body
    except SyntaxError:
        raise ValueError(
            "DataFrame write not understood: give it as "
            'df.write.format("delta").mode("append").option(…).save(path)'
        ) from None
    calls = _chain(tree)
    names = [n for n, _, _ in calls]
    if "writeTo" in names:
        return _v2(text, calls)
    if "write" not in names:
        raise ValueError("a DataFrame write starts at .write or .writeTo(table)")
    mode, table = "errorifexists", ""
    options: dict[str, str] = {}
    for name, args, kwargs in calls[names.index("write") + 1 :]:
        if name == "format":
            fmt = _one(name, args).lower()
            if fmt != "delta":
                raise ValueError(f'format("{fmt}") is not a Delta write')
        elif name == "mode":
            mode = _one(name, args).lower()
        elif name == "option":
            if len(args) != 2:
                raise ValueError("option() takes a key and a value")
            options[args[0].lower()] = args[1]
        elif name == "options":
            options.update({k.lower(): v for k, v in kwargs.items()})
            options.update({k.lower(): v for k, v in zip(args[::2], args[1::2], strict=False)})
        elif name == "partitionBy":
            continue  # the table's partitioning decides what a write overwrites
        elif name in _ENDS:
            table = args[0] if args else options.get("path", "")
            if name == "insertInto" and mode == "errorifexists":
                mode = "append"
        else:
            raise ValueError(f".{name}() is not a DataFrameWriter call this checker reads")
    if mode not in _MODES:
        raise ValueError(
            f'mode("{mode}") does not write into an existing table: use "append" or "overwrite"'
        )
    return _statement(text, table, overwrite=_MODES[mode], options=options)


def _v2(text: str, calls: list[tuple[str, list[str], dict[str, str]]]) -> Statement:
    names = [n for n, _, _ in calls]
    start = names.index("writeTo")
    table = _one("writeTo", calls[start][1])
    options: dict[str, str] = {}
    for name, args, kwargs in calls[start + 1 :]:
        if name == "option" and len(args) == 2:
            options[args[0].lower()] = args[1]
        elif name == "options":
            options.update({k.lower(): v for k, v in kwargs.items()})
        elif name in _V2:
            if name == "overwritePartitions":
                options["partitionoverwritemode"] = "dynamic"
            return _statement(text, table, overwrite=_V2[name], options=options)
        else:
            raise ValueError(
                f".{name}() is not read here: writeTo(t) takes .append() or .overwritePartitions()"
            )
    raise ValueError("writeTo(t) needs .append() or .overwritePartitions()")


def _statement(text: str, table: str, *, overwrite: bool, options: dict[str, str]) -> Statement:
    name = table.rstrip("/").rsplit("/", 1)[-1].strip("`").lower() or "t"
    replace_where = options.get("replacewhere")
    mode = options.get("partitionoverwritemode")
    if replace_where is not None and not overwrite:
        raise ValueError('replaceWhere needs mode("overwrite")')
    if mode is not None and mode.lower() not in ("static", "dynamic"):
        raise ValueError(f'partitionOverwriteMode is "static" or "dynamic", not "{mode}"')
    txn = _txn(options)
    schema = [o for o in ("mergeSchema", "overwriteSchema") if _true(options.get(o.lower()))]
    return Statement(
        kind="INSERT",
        text=text,
        table=name,
        overwrite=overwrite,
        replace_where=replace_where,
        overwrite_mode=mode.lower() if mode and overwrite else None,
        txn=txn,
        schema_options=tuple(schema),
        dataframe=True,
    )


def _txn(options: dict[str, str]) -> tuple[str, int] | None:
    app, version = options.get("txnappid"), options.get("txnversion")
    if app is None and version is None:
        return None
    if not app or version is None or not version.strip().isdigit():
        raise ValueError("txnAppId and txnVersion go together: an application id and a number")
    return app, int(version)


def _true(value: str | None) -> bool:
    return value is not None and value.strip().lower() == "true"


def _chain(node: ast.expr) -> list[tuple[str, list[str], dict[str, str]]]:
    """``a.b(x).c(y=1)`` as ``[("a", …), ("b", ["x"], {}), ("c", [], {"y": "1"})]``, first
    call first; an attribute without a call (``.write``) has no arguments."""
    out: list[tuple[str, list[str], dict[str, str]]] = []
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg}
            out.append((node.func.attr, [_literal(a) for a in node.args], kwargs))
            node = node.func.value
        elif isinstance(node, ast.Attribute):
            out.append((node.attr, [], {}))
            node = node.value
        elif isinstance(node, ast.Call):  # spark.table("s") and the like: the DataFrame
            node = node.func
        else:
            break
    return out[::-1]


def _literal(node: ast.expr) -> str:
    """A call argument as text: a string or number literal, ``True``/``true``, or a name such
    as ``SaveMode.Overwrite`` (its last part)."""
    if isinstance(node, ast.Constant):
        return str(node.value).lower() if isinstance(node.value, bool) else str(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ast.unparse(node)


def _one(name: str, args: list[str]) -> str:
    if len(args) != 1:
        raise ValueError(f"{name}() takes one argument")
    return args[0]
