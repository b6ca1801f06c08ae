"""Check a JSON document against the JSON Schema it claims to follow.

The schemas ship in the wheel (``deltaforensics/report/schema/*.json``) so that consumers can
validate reports without this package's code. Validation needs ``jsonschema`` (in the ``dev``
extra); it is imported only when :func:`validate` runs, so rendering never depends on it.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Literal, get_args

from deltaforensics.errors import DeltaForensicsError
from deltaforensics.report.document.entry import Entry, JsonValue

Kind = Literal["explain", "whatif", "history", "snapshot", "audit"]
KINDS: tuple[Kind, ...] = get_args(Kind)
SCHEMA_FILES: dict[Kind, str] = {
    "explain": "report-v2.json",
    "whatif": "whatif-v2.json",
    "history": "history-v2.json",
    "snapshot": "snapshot-v2.json",
    "audit": "audit-summary-v1.json",
}
MAX_LISTED_ERRORS = 20


class ReportValidationError(DeltaForensicsError):
    """A document does not match its schema; ``errors`` lists each problem with its JSON path."""

    def __init__(self, kind: Kind, errors: list[str]) -> None:
        shown = errors[:MAX_LISTED_ERRORS]
        more = f"\n  … and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        super().__init__(
            f"{kind} document does not match {SCHEMA_FILES[kind]}: {len(errors)} problem(s)\n  "
            + "\n  ".join(shown)
            + more
        )
        self.kind = kind
        self.errors = errors


@cache
def _schema_text(kind: Kind) -> str:
    if kind not in SCHEMA_FILES:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {', '.join(KINDS)}")
    resource = resources.files("deltaforensics.report") / "schema" / SCHEMA_FILES[kind]
    return resource.read_text(encoding="utf-8")


def load_schema(kind: Kind) -> dict[str, JsonValue]:
    """The shipped JSON Schema (draft 2020-12) for ``kind``; a fresh copy on every call."""
    schema: dict[str, JsonValue] = json.loads(_schema_text(kind))
    return schema


def _where(path: Iterable[str | int]) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_errors(doc: Entry | JsonValue, kind: Kind) -> list[str]:
    """Every way ``doc`` (a typed document, checked in its JSON form, or JSON data) breaks the
    schema, as ``"$.races[0].outcome: message"`` lines, sorted."""
    data = doc.to_dict() if isinstance(doc, Entry) else doc
    try:  # optional (dev extra); imported by name so that type checking needs no stubs for it
        jsonschema = importlib.import_module("jsonschema")
    except ImportError as exc:
        err = DeltaForensicsError("validating a report needs the jsonschema package")
        err.add_note(
            "hint: pip install 'jsonschema>=4.20' (or the dev extra: pip install -e '.[dev]')"
        )
        raise err from exc
    validator = jsonschema.Draft202012Validator(load_schema(kind))
    found = [f"{_where(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    return sorted(found)


def validate(doc: Entry | JsonValue, kind: Kind) -> None:
    """Raise :class:`ReportValidationError` naming every problem when ``doc`` breaks its schema."""
    errors = schema_errors(doc, kind)
    if errors:
        raise ReportValidationError(kind, errors)
