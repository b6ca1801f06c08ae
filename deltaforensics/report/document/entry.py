"""The one path from a typed report value to its JSON form.

Every document value is a frozen dataclass whose fields are, in order, the keys of its JSON
object: the field list *is* the contract that ``docs/report-format.md`` and ``schema/*.json``
describe, so key order, nulls and numbers come out exactly as declared. Values from lower
layers that already know their JSON form (``Diagnostic``, ``Anomaly``, a what-if ``Scenario``)
keep it through their own ``to_dict``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import Enum
from functools import cache
from typing import Any, Self

FORMAT_VERSION = 1


class Entry:
    """Base of the report's typed values: ``to_dict()`` is the document's JSON form."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        kind: Any = type(self)
        return {name: to_json_value(getattr(self, name)) for name in field_names(kind)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The typed value of a JSON document (one read back, or rewritten by ``--redact``).

        A key the document lacks reads as its field's default, else as null, so that a partial
        document (a hand-written example) still renders."""
        return from_json_value(cls, data)  # type: ignore[no-any-return]


@cache
def field_names(kind: Any) -> tuple[str, ...]:
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
        kind: Any = type(value)
        return {n: to_json_value(getattr(value, n)) for n in field_names(kind)}
    return value  # anything else is written by json.dumps(default=str), as before


@cache
def _field_types(kind: Any) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _construct(kind: type, data: Mapping[str, Any]) -> Any:
    hints = _field_types(kind)
    values = {}
    for f in dataclasses.fields(kind):
        if f.name in data:
            values[f.name] = from_json_value(hints[f.name], data[f.name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            values[f.name] = None
    return kind(**values)


def from_json_value(kind: Any, value: Any) -> Any:
    """``value`` (plain JSON data) as the typed value ``kind`` declares: the inverse of
    :func:`to_json_value` for the types the documents use."""
    if value is None:
        return None
    origin = typing.get_origin(kind)
    if origin is typing.Union or origin is types.UnionType:
        inner = [a for a in typing.get_args(kind) if a is not type(None)]
        return from_json_value(inner[0], value) if len(inner) == 1 else value
    if origin is tuple:
        item = typing.get_args(kind)[0]
        return tuple(from_json_value(item, v) for v in value)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(value)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind) and isinstance(value, Mapping):
        return _construct(kind, value)
    return value  # scalars, and mappings kept as JSON objects
