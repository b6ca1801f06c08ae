"""The audit config's ``[[failures]]`` sections: where the scheduled audit harvests the
conflicts engines recorded (issue #33, docs/failures.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltaforensics.audit.config_values import is_url, no_unknown, optional_str
from deltaforensics.errors import UsageError
from deltaforensics.sources.spec import parse_source

_FAILURE_KEYS = {"path", "storage", "kind"}
FAILURE_KINDS = (
    "auto",
    "eventlog",
    "driverlog",
    "openlineage",
    "databricks-jobs",
    "databricks-queries",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureSource:
    """``[[failures]]``: Spark event logs or driver logs the audit harvests conflicts from
    (issue #33, docs/failures.md). ``storage_options`` may hold secrets: never print it."""

    path: str
    kind: str = "auto"
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)


def failure_sources(
    value: Any, source: str, base: Path, storage: Mapping[str, dict[str, str]]
) -> tuple[FailureSource, ...]:
    """The ``[[failures]]`` sections: ``path`` (a file, a folder or a URL; relative to the
    config file), ``storage`` (a [storage.NAME] section), ``kind`` (auto, eventlog, driverlog, openlineage, databricks-jobs, databricks-queries); a
    ``KIND:REST`` path (``openlineage:…``, ``databricks-jobs:``) names its kind itself."""
    if not isinstance(value, list):
        raise UsageError(f"{source}: failures must be [[failures]] sections")
    out = []
    for index, raw in enumerate(value, start=1):
        where = f"failures[{index}]."
        if not isinstance(raw, dict):
            raise UsageError(f"{source}: failures[{index}] must be a table ([[failures]])")
        no_unknown(raw, _FAILURE_KEYS, source, where)
        path = optional_str(raw, "path", source, where)
        if path is None:
            raise UsageError(f"{source}: {where}path is missing")
        spec = parse_source(path)
        target = spec.target
        if target and not is_url(target) and not Path(target).expanduser().is_absolute():
            target = str((base / Path(target).expanduser()).resolve())
            path = target if spec.kind == "auto" else f"{spec.kind}:{target}"
        kind = optional_str(raw, "kind", source, where) or "auto"
        if kind not in FAILURE_KINDS:
            raise UsageError(
                f"{source}: {where}kind {kind!r} is not one of {', '.join(FAILURE_KINDS)}"
            )
        if kind not in ("auto", "eventlog", "driverlog"):  # a kind read through its spec
            if spec.kind not in ("auto", kind):
                raise UsageError(f"{source}: {where}path {path!r} is not of kind {kind!r}")
            path, kind = f"{kind}:{target}", "auto"
        storage_name = optional_str(raw, "storage", source, where)
        if storage_name is not None and storage_name not in storage:
            raise UsageError(
                f"{source}: {where}storage {storage_name!r} is not a [storage.NAME] section"
            )
        out.append(
            FailureSource(
                path=path,
                kind=kind,
                storage_options=storage.get(storage_name, {}) if storage_name else {},
            )
        )
    return tuple(out)
