"""The one path from a typed report value to its JSON form.

Every document value is a frozen dataclass whose fields are, in order, the keys of its JSON
object: the field list *is* the contract that ``docs/report-format.md`` and ``schema/*.json``
describe, so key order, nulls and numbers come out exactly as declared. Values from lower
layers that already know their JSON form (``Diagnostic``, ``Anomaly``, a what-if ``Scenario``)
keep it through their own ``to_dict``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from typing import Any

FORMAT_VERSION = 1


class Entry:
    """Base of the report's typed values: ``to_dict()`` is the document's JSON form."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return {name: to_json_value(getattr(self, name)) for name in field_names(type(self))}


@cache
def field_names(kind: type) -> tuple[str, ...]:
    """The JSON keys of a dataclass, in declaration order (looked up once per type)."""
    return tuple(f.name for f in dataclasses.fields(kind))


def to_json_value(value: Any) -> Any:
    """``value`` as plain JSON data: tuples become lists, typed values become objects."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, Entry):
        return value.to_dict()
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    if dataclasses.is_dataclass(value):
        return {n: to_json_value(getattr(value, n)) for n in field_names(type(value))}
    return value  # anything else is written by json.dumps(default=str), as before
