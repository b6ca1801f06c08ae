"""What a ``--failures-from`` value names: ``KIND:REST`` or a bare file, folder or URL.

The one place a source's text is split (the CLI, the API and the audit's ``[[failures]]``
sources all pass it here through :func:`deltaforensics.sources.read_failures`):

- ``openlineage:PATH_OR_URL`` — OpenLineage run events, NDJSON (a file or a folder);
- ``databricks-jobs:`` or ``databricks-jobs:JOB_ID`` — the Jobs API's failed runs;
- ``databricks-queries:`` or ``databricks-queries:WAREHOUSE_ID`` — the SQL query history;
- ``eventlog:PATH_OR_URL`` / ``driverlog:PATH_OR_URL`` — Spark's own records, kind forced;
- anything else (``/var/log/spark-events``, ``abfss://…``, ``file:/…``) — Spark's records,
  the kind recognised per file.

A URL's scheme (``abfss:``, ``file:``) is never taken for a kind: only the names above are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from deltaforensics.errors import UsageError

SpecKind = Literal[
    "auto", "eventlog", "driverlog", "openlineage", "databricks-jobs", "databricks-queries"
]
KINDS: tuple[SpecKind, ...] = (
    "eventlog",
    "driverlog",
    "openlineage",
    "databricks-jobs",
    "databricks-queries",
)
_NEEDS_TARGET = ("eventlog", "driverlog", "openlineage")
_API_ID = ("databricks-jobs", "databricks-queries")


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A parsed source: its kind and what follows the colon (a path, a URL, an id or "")."""

    kind: SpecKind
    target: str

    def __str__(self) -> str:
        return self.target if self.kind == "auto" else f"{self.kind}:{self.target}"


def parse_source(text: str) -> SourceSpec:
    """``KIND:REST`` for the kinds above, else the whole text as Spark's records (``auto``).
    A kind that needs a path and has none, or an API id that is not one, is a UsageError."""
    head, colon, rest = text.partition(":")
    if not colon or head not in KINDS:
        return SourceSpec("auto", text)
    kind = next(k for k in KINDS if k == head)
    rest = rest.strip()
    if kind in _NEEDS_TARGET and not rest:
        raise UsageError(f"--failures-from {text!r}: {kind}: needs a file, folder or URL")
    if kind in _API_ID and rest and not rest.replace("-", "").isalnum():
        what = "a job id" if kind == "databricks-jobs" else "a warehouse id"
        raise UsageError(f"--failures-from {text!r}: {rest!r} is not {what}")
    if kind == "databricks-jobs" and rest and not rest.isdigit():
        raise UsageError(f"--failures-from {text!r}: {rest!r} is not a job id (digits)")
    return SourceSpec(kind, rest)
