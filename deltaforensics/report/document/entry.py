"""The one path from a typed report value to its JSON form.

Every document value is a frozen dataclass whose fields are, in order, the keys of its JSON
object: the field list *is* the contract that ``docs/report-format.md`` and ``schema/*.json``
describe, so key order, nulls and numbers come out exactly as declared. Values from lower
layers that already know their JSON form (``Diagnostic``, ``Anomaly``, a what-if ``Scenario``)
keep it through their own ``to_dict``.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeAlias, cast

from deltaforensics.whatif.scenario import Change, change_from_dict

FORMAT_VERSION = 2

if TYPE_CHECKING:
    JsonValue: TypeAlias = (
        "str | int | float | bool | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
    )
else:

    class JsonValue:
        """Plain JSON data as it was read (a commitInfo field, a time window): what the JSON
        writer writes as is. At run time only a marker that the field needs no converting."""


class Entry:
    """Base of the report's typed values: ``to_dict()`` is the document's JSON form."""

    __slots__ = ()
    # keys a document leaves out while null: added later (``time_window``), so that documents
    # without them stay byte for byte what they were
    omitted_when_null: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, JsonValue]:
        """The JSON form: what only the JSON writer and the schema validator ask for."""
        names, read, convert = _plan(type(self))
        out: dict[str, JsonValue] = dict(zip(names, read(self), strict=True))
        for name in convert:
            out[name] = to_json_value(out[name])
        for name in self.omitted_when_null:
            if out[name] is None:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, JsonValue]) -> Self:
        """The typed value of a JSON document (one read back, or rewritten by ``--redact``).

        A key the document lacks reads as its field's default, else as null, so that a partial
        document (a hand-written example) still renders."""
        return cast("Self", from_json_value(cls, data))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(kind: type) -> tuple[str, ...]:
    """The JSON keys of a dataclass, in declaration order (looked up once per type)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        fields = dataclasses.fields(kind)
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields)
    return names


def to_json_value(value: object) -> JsonValue:
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
        return cast("JsonValue", to_dict())
    if dataclasses.is_dataclass(value):
        return {n: to_json_value(getattr(value, n)) for n in field_names(type(value))}
    return cast("JsonValue", value)  # anything else is written by json.dumps(default=str)


@cache
def _field_types(kind: type) -> dict[str, object]:
    return typing.get_type_hints(kind)


Plan = tuple[tuple[str, ...], Callable[[object], tuple[JsonValue, ...]], tuple[str, ...]]
_PLANS: dict[type, Plan] = {}


def _plan(kind: type) -> Plan:
    plan = _PLANS.get(kind)
    if plan is None:
        plan = _PLANS[kind] = _planned(kind)
    return plan


def _planned(kind: type) -> Plan:
    """The fields, one getter of all their values, and the fields whose values need
    converting: the others already are JSON data (a scalar, or ``Any``: parsed JSON) and pass
    through untouched, which keeps a history of 100,000 commits cheap."""
    hints = _field_types(kind)
    names = field_names(kind)
    read = operator.attrgetter(*names)
    getter = read if len(names) > 1 else (lambda obj: (read(obj),))
    return names, getter, tuple(n for n in names if not _is_plain(hints[n]))


def _is_plain(kind: object) -> bool:
    if kind is Any or kind is JsonValue or kind in (str, int, float, bool, type(None)):
        return True
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return all(_is_plain(a) for a in typing.get_args(kind))
    return False


@cache
def _reading(kind: type) -> tuple[tuple[str, object, bool], ...]:
    """Per field: its name, the type to read its value as (``None``: as is), and whether a
    document must give it (else it reads as null)."""
    hints = _field_types(kind)
    return tuple(
        (
            f.name,
            None if _is_plain(hints[f.name]) else hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(kind)
    )


@cache
def _all_plain(kind: type) -> frozenset[str] | None:
    """The field names of a type whose every field is plain JSON data (``None`` otherwise)."""
    fields = _reading(kind)
    return frozenset(n for n, _, _ in fields) if all(t is None for _, t, _ in fields) else None


def _construct(kind: type, data: Mapping[str, object]) -> object:
    plain = _all_plain(kind)
    if plain is not None and data.keys() == plain:
        return kind(**data)  # a history row: nothing to convert, nothing missing
    values = {}
    for name, typed, required in _reading(kind):
        if name in data:
            value = data[name]
            values[name] = value if typed is None else from_json_value(typed, value)
        elif required:
            values[name] = None
    return kind(**values)


def from_json_value(kind: object, value: object) -> object:
    """``value`` (plain JSON data) as the typed value ``kind`` declares: the inverse of
    :func:`to_json_value` for the types the documents use."""
    if value is None:
        return None
    if kind == Change and isinstance(value, Mapping):
        try:
            return change_from_dict(value)
        except (ValueError, KeyError, TypeError):
            return value  # a kind this release does not know: kept as its JSON object
    origin = typing.get_origin(kind)
    if origin is typing.Union or origin is types.UnionType:
        inner = [a for a in typing.get_args(kind) if a is not type(None)]
        return from_json_value(inner[0], value) if len(inner) == 1 else value
    if origin is tuple:
        item = typing.get_args(kind)[0]
        return tuple(from_json_value(item, v) for v in cast("Sequence[object]", value))
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(value)
    if isinstance(kind, type) and not issubclass(kind, Entry) and isinstance(value, Mapping):
        reader = getattr(kind, "from_dict", None)  # a lower layer's value that reads its JSON
        if reader is not None:
            return reader(value)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind) and isinstance(value, Mapping):
        return _construct(kind, value)
    return value  # scalars, and mappings kept as JSON objects
