"""Spark ``simpleString`` predicate text -> SQL that sqlglot's Spark reader takes.

Delta-Spark records a command's predicate as the analyser printed it: expression ids
(``id#12L``), unresolved columns (``'name``), literals left unquoted (``(country#12 = US)``) and
``... 3 more fields`` where Spark truncated a struct. :func:`sql_candidates` rewrites that into
SQL, quoting the bare literals (and saying which, since in a MERGE condition an unquoted word
may be a column); a truncation becomes a call of :data:`TRUNCATED`, which the converter reads
as an opaque ``truncated`` leaf.
"""

from __future__ import annotations

import re

TRUNCATED = "__deltaforensics_truncated__"
# an expression id kept through sqlglot as a suffix of the column's name (``order_id#921L`` is
# read as ``order_id__dfid921__``), split off again by the converter into ``Column.shown``
EXPR_ID_MARK = re.compile(r"^(.*)__dfid(\d+)__$", re.S)
_NAME = r"(?:`(?:[^`]|``)*`|[A-Za-z_][\w$]*)"
_RESOLVED = re.compile(rf"'?{_NAME}(?:\.{_NAME})*#\d+L?(?![\w#])")
_UNRESOLVED = re.compile(rf"(?<![\w'])'{_NAME}(?:\.{_NAME})*")
_EXPR_ID = re.compile(r"#(\d+)L?$")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_OP = r"(?:<=>|<=|>=|!=|<>|=|<|>)"
_RHS = re.compile(rf"(\s{_OP}\s)([^()\x00']*?)(?=\)|$)")
_LHS = re.compile(rf"(\()([^()\x00']*?)(\s{_OP}\s)")
_IN_LIST = re.compile(r"(\sIN\s\()([^()\x00']*)(\))", re.IGNORECASE)
_LIKE = re.compile(r"(\s(?:I?LIKE|RLIKE)\s)([^\s()\x00']*)", re.IGNORECASE)
_CAST = re.compile(r"(cast\()([^()\x00']*?)(\sas\s)", re.IGNORECASE)
_MORE_FIELDS = re.compile(r"\.\.\. \d+ more fields?")
_BARE_OK = re.compile(
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:L|S|Y|D|F|BD)?|null|true|false", re.I
)


def _normalise_simple_string(text: str) -> tuple[str, frozenset[str]]:
    """Rewrite Spark ``simpleString`` output as SQL; returns it and the literals we quoted."""
    attrs: list[str] = []

    def protect(m: re.Match[str]) -> str:
        attrs.append(_marked(m.group(0)).lstrip("'"))
        return f"\x00{len(attrs) - 1}\x00"

    inferred: set[str] = set()

    def lit(value: str) -> str:
        if _BARE_OK.fullmatch(value):
            return value
        inferred.add(value)
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"

    text = _MORE_FIELDS.sub(f"{TRUNCATED}()", text)
    text = _UNRESOLVED.sub(protect, _RESOLVED.sub(protect, text))
    text = _RHS.sub(lambda m: m.group(1) + lit(m.group(2)), text)
    text = _LHS.sub(lambda m: m.group(1) + lit(m.group(2)) + m.group(3), text)
    text = _CAST.sub(lambda m: m.group(1) + lit(m.group(2).strip()) + m.group(3), text)
    text = _LIKE.sub(lambda m: m.group(1) + lit(m.group(2)), text)
    text = _IN_LIST.sub(
        lambda m: (
            m.group(1)
            + ", ".join(lit(v.strip()) for v in m.group(2).split(",") if m.group(2).strip())
            + m.group(3)
        ),
        text,
    )
    text = re.sub("\x00(\\d+)\x00", lambda m: attrs[int(m.group(1))], text)
    return text, frozenset(inferred)


def _marked(attribute: str) -> str:
    """``name#921L`` as ``name__dfid921__`` (:data:`EXPR_ID_MARK`), inside a backquoted name's
    quotes."""
    found = _EXPR_ID.search(attribute)
    if found is None:
        return attribute
    head, mark = attribute[: found.start()], f"__dfid{found.group(1)}__"
    return f"{head[:-1]}{mark}`" if head.endswith("`") else head + mark


def unmark(text: str) -> str:
    """SQL text a converter printed back, the expression ids dropped again (``name``): such
    text is compared and grouped, and the ids differ from one run of a statement to the next."""
    return _MARK_IN_TEXT.sub("", text)


_MARK_IN_TEXT = re.compile(r"__dfid\d+__")


def sql_candidates(text: str) -> list[tuple[str, frozenset[str]]]:
    """The SQL texts to try for ``text``, in order, each with the literals the rewrite quoted:
    the rewrite alone when the text carries expression ids or a truncation, else the text
    as it is and, when it has an unresolved ``'name``, the rewrite after it."""
    candidates: list[tuple[str, frozenset[str]]] = []
    if _RESOLVED.search(_STRING.sub("''", text)) or _MORE_FIELDS.search(text):
        candidates.append(_normalise_simple_string(text))
    else:
        candidates.append((text, frozenset()))
        if _UNRESOLVED.search(text):
            candidates.append(_normalise_simple_string(text))
    return candidates
