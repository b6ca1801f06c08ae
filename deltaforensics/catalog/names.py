"""``catalog.schema.table`` as the user types it: three dot-separated names, each either plain
or in backquotes (a name holding dots or other punctuation: ``main.`sales.eu`.orders``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PART = r"(?:`(?:[^`]|``)+`|[^.`/\\\s:]+)"
_FULL = re.compile(rf"({_PART})\.({_PART})\.({_PART})")
_SCHEMA = re.compile(rf"({_PART})\.({_PART})")


@dataclass(frozen=True, slots=True, kw_only=True)
class TableName:
    catalog: str
    schema: str
    table: str

    @property
    def full_name(self) -> str:
        """The API's ``full_name``: the three names joined by dots, as the catalog keeps them."""
        return f"{self.catalog}.{self.schema}.{self.table}"

    def __str__(self) -> str:
        return ".".join(_quoted(p) for p in (self.catalog, self.schema, self.table))


@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaName:
    catalog: str
    schema: str

    def __str__(self) -> str:
        return f"{_quoted(self.catalog)}.{_quoted(self.schema)}"

    def table(self, name: str) -> TableName:
        return TableName(catalog=self.catalog, schema=self.schema, table=name)


def parse_table_name(text: str) -> TableName | None:
    """The name ``text`` spells, or ``None`` when it is not ``catalog.schema.table``."""
    m = _FULL.fullmatch(text.strip())
    if m is None:
        return None
    catalog, schema, table = (_unquoted(p) for p in m.groups())
    return TableName(catalog=catalog, schema=schema, table=table)


def parse_schema_name(text: str) -> SchemaName | None:
    m = _SCHEMA.fullmatch(text.strip())
    if m is None:
        return None
    catalog, schema = (_unquoted(p) for p in m.groups())
    return SchemaName(catalog=catalog, schema=schema)


def _unquoted(part: str) -> str:
    return part[1:-1].replace("``", "`") if part.startswith("`") else part


def _quoted(part: str) -> str:
    return f"`{part.replace('`', '``')}`" if re.search(r"[^A-Za-z0-9_-]", part) else part
