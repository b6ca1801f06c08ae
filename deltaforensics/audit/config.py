"""The audit configuration file: which tables, how to reach them, where results go.

A TOML file, paths in it relative to the file itself::

    output = "audit-out"            # reports, summary.json and the parquet datasets
    state = "audit-state"           # optional: commit facts kept between runs
    profile = "databricks"          # optional default engine profile for every table
    fail_on = ["conflict"]          # optional default for --fail-on
    recommendations = true          # optional: run the what-if recommendations

    [storage.lake]                  # a named set of storage options
    account_name = "myaccount"
    account_key = { env = "LAKE_KEY" }   # taken from the environment, never written here
    # file = "lake-options.json"    # or a storage-options file (JSON or TOML)

    [[tables]]
    name = "orders"                 # optional; default: the last part of the URI
    uri = "abfss://data@myaccount.dfs.core.windows.net/sales/orders"
    storage = "lake"                # optional: a [storage.NAME] section
    profile = "databricks-14.3"     # optional: overrides the default

    [catalog]                       # optional: where Unity Catalog names are looked up
    url = "http://uc.internal:8080" # an open-source server; or profile = "DEFAULT" (Databricks)

    [[tables]]
    uri = "main.sales.orders"       # a Unity Catalog name (not an existing local path)

    [[tables]]
    schema = "main.sales"           # every Delta table of a schema, found anew each run
    match = "orders_*"              # optional glob on the table names (default "*")

    [[failures]]                    # optional: where Spark recorded failed statements
    path = "abfss://logs@myaccount.dfs.core.windows.net/cluster-logs"  # file, folder or URL
    storage = "lake"                # optional: a [storage.NAME] section
    kind = "auto"                   # optional: auto, eventlog or driverlog

Every mistake is a :class:`UsageError` naming the file and the key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltaforensics.audit.config_values import is_url, no_unknown, optional_str
from deltaforensics.audit.failure_config import FailureSource, failure_sources
from deltaforensics.errors import UsageError
from deltaforensics.report.gates import FAIL_ON_CHOICES

NAME_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_TOP_KEYS = {
    "output",
    "state",
    "profile",
    "fail_on",
    "recommendations",
    "storage",
    "tables",
    "catalog",
    "failures",
}
_TABLE_KEYS = {"name", "uri", "storage", "profile"}
_SCHEMA_KEYS = {"schema", "match", "storage", "profile"}
_CATALOG_KEYS = {"url", "profile"}


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSpec:
    """One audited table. ``storage_options`` may hold secrets: never print it."""

    name: str
    uri: str
    profile: str | None = None
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)
    # how a catalog table is opened (audit.catalog_tables); None: ``uri`` is a path or URL
    opener: Callable[[], Any] | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaSpec:
    """Every Delta table of a Unity Catalog schema whose name matches ``match``."""

    schema: str
    match: str = "*"
    profile: str | None = None
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogSettings:
    """``[catalog]``: an open-source server's ``url`` or a Databricks ``profile``."""

    url: str | None = None
    profile: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditConfig:
    source: str
    tables: tuple[TableSpec, ...]
    output: Path
    state: Path | None = None
    fail_on: tuple[str, ...] = ()
    recommendations: bool = True
    schemas: tuple[SchemaSpec, ...] = ()
    catalog: CatalogSettings = CatalogSettings()
    failures: tuple[FailureSource, ...] = ()


def load_config(path: Path, environ: Mapping[str, str]) -> AuditConfig:
    """Read and validate ``path``; ``environ`` resolves ``{ env = "NAME" }`` values."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the audit config: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: the audit config is not UTF-8 text") from None
    return parse_config(text, source=str(path), base=path.resolve().parent, environ=environ)


def parse_config(text: str, *, source: str, base: Path, environ: Mapping[str, str]) -> AuditConfig:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{source}: not valid TOML: {exc}") from None
    no_unknown(doc, _TOP_KEYS, source, "")
    output = _path(doc.get("output", "audit-out"), "output", source, base)
    state = _path(doc["state"], "state", source, base) if "state" in doc else None
    default_profile = _profile(optional_str(doc, "profile", source, ""), "profile", source)
    fail_on = _fail_on(doc.get("fail_on", []), source)
    recommendations = doc.get("recommendations", True)
    if not isinstance(recommendations, bool):
        raise UsageError(f"{source}: recommendations must be true or false")
    storage = _storage_sets(doc.get("storage", {}), source, base, environ)
    raw_tables = doc.get("tables")
    if not isinstance(raw_tables, list) or not raw_tables:
        raise UsageError(
            f"{source}: no tables: add at least one [[tables]] section with a uri or a schema"
        )
    tables: list[TableSpec] = []
    schemas: list[SchemaSpec] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_tables, start=1):
        where = f"tables[{index}]"
        if not isinstance(raw, dict):
            raise UsageError(f"{source}: {where} must be a table ([[tables]])")
        if "schema" in raw:
            schemas.append(_schema_spec(raw, where, source, storage, default_profile))
            continue
        no_unknown(raw, _TABLE_KEYS, source, where + ".")
        uri = raw.get("uri")
        if not isinstance(uri, str) or not uri.strip():
            raise UsageError(f"{source}: {where}.uri is missing or empty")
        uri = uri.strip()
        name = raw.get("name", default_name(uri))
        if not isinstance(name, str) or not NAME_SHAPE.fullmatch(name):
            raise UsageError(
                f"{source}: {where}.name {name!r} must be 1-128 letters, digits, '_', '.' or '-'"
            )
        if name in seen:
            raise UsageError(
                f"{source}: {where}.name {name!r} is already used by tables[{seen[name]}]; "
                "give one of them a distinct name"
            )
        seen[name] = index
        storage_name = optional_str(raw, "storage", source, where + ".")
        if storage_name is not None and storage_name not in storage:
            known = ", ".join(sorted(storage)) or "none defined"
            raise UsageError(
                f"{source}: {where}.storage {storage_name!r} is not a [storage.NAME] section ({known})"
            )
        if not is_url(uri) and not Path(uri).is_absolute() and not _is_catalog_name(uri, base):
            uri = str((base / uri).resolve())
        tables.append(
            TableSpec(
                name=name,
                uri=uri,
                profile=_profile(
                    optional_str(raw, "profile", source, where + "."), where + ".profile", source
                )
                or default_profile,
                storage_options=storage.get(storage_name, {}) if storage_name else {},
            )
        )
    return AuditConfig(
        source=source,
        tables=tuple(tables),
        output=output,
        state=state,
        fail_on=fail_on,
        recommendations=recommendations,
        schemas=tuple(schemas),
        catalog=_catalog_settings(doc.get("catalog", {}), source),
        failures=failure_sources(doc.get("failures", []), source, base, storage),
    )


def _schema_spec(
    raw: Mapping[str, Any],
    where: str,
    source: str,
    storage: Mapping[str, dict[str, str]],
    default_profile: str | None,
) -> SchemaSpec:
    """A ``[[tables]]`` entry naming a schema instead of one table."""
    from deltaforensics.catalog.names import parse_schema_name  # noqa: PLC0415

    no_unknown(raw, _SCHEMA_KEYS, source, where + ".")
    schema = optional_str(raw, "schema", source, where + ".")
    if schema is None or parse_schema_name(schema) is None:
        raise UsageError(f"{source}: {where}.schema must be a catalog.schema name like main.sales")
    match = optional_str(raw, "match", source, where + ".") or "*"
    storage_name = optional_str(raw, "storage", source, where + ".")
    if storage_name is not None and storage_name not in storage:
        raise UsageError(
            f"{source}: {where}.storage {storage_name!r} is not a [storage.NAME] section"
        )
    profile = optional_str(raw, "profile", source, where + ".")
    return SchemaSpec(
        schema=schema,
        match=match,
        profile=_profile(profile, where + ".profile", source) or default_profile,
        storage_options=storage.get(storage_name, {}) if storage_name else {},
    )


def _catalog_settings(value: Any, source: str) -> CatalogSettings:
    if not isinstance(value, dict):
        raise UsageError(f"{source}: catalog must be a [catalog] section")
    no_unknown(value, _CATALOG_KEYS, source, "catalog.")
    url = optional_str(value, "url", source, "catalog.")
    profile = optional_str(value, "profile", source, "catalog.")
    if url and profile:
        raise UsageError(f"{source}: catalog: give url or profile, not both")
    return CatalogSettings(url=url, profile=profile)


def is_catalog_table(spec: TableSpec) -> bool:
    """Does ``spec.uri`` name a Unity Catalog table (not a path or URL)?"""
    return _is_catalog_name(spec.uri, None)


def _is_catalog_name(uri: str, base: Path | None) -> bool:
    from deltaforensics.catalog.names import parse_table_name  # noqa: PLC0415

    if is_url(uri) or Path(uri).is_absolute() or parse_table_name(uri) is None:
        return False
    return base is None or not (base / uri).exists()


def default_name(uri: str) -> str:
    """The last path segment of the URI, made safe as a dataset partition value."""
    tail = uri.rstrip("/").rsplit("/", 1)[-1]
    if tail == "_delta_log":
        tail = uri.rstrip("/").rsplit("/", 2)[-2]
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", tail).strip("._-")
    return safe[:128] or "table"


def _profile(name: str | None, key: str, source: str) -> str | None:
    from deltaforensics.profiles import profile_by_name  # noqa: PLC0415

    if name is not None:
        try:
            profile_by_name(name)
        except ValueError as exc:
            raise UsageError(f"{source}: {key}: {exc}") from None
    return name


def _path(value: Any, key: str, source: str, base: Path) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{source}: {key} must be a directory path")
    path = Path(value.strip()).expanduser()
    return path if path.is_absolute() else (base / path).resolve()


def _fail_on(value: Any, source: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise UsageError(f"{source}: fail_on must be a list of {', '.join(FAIL_ON_CHOICES)}")
    for item in items:
        if item not in FAIL_ON_CHOICES:
            raise UsageError(
                f"{source}: fail_on {item!r} is not one of {', '.join(FAIL_ON_CHOICES)}"
            )
    return tuple(items)


def _storage_sets(
    value: Any, source: str, base: Path, environ: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    from deltaforensics.log.options import load_storage_options  # noqa: PLC0415

    if not isinstance(value, dict):
        raise UsageError(f"{source}: storage must hold [storage.NAME] sections")
    out: dict[str, dict[str, str]] = {}
    for name, raw in value.items():
        where = f"storage.{name}"
        if not isinstance(raw, dict):
            raise UsageError(f"{source}: {where} must be a section of KEY = value")
        options: dict[str, str] = {}
        if "file" in raw:
            options.update(
                load_storage_options([], _path(raw["file"], where + ".file", source, base))
            )
        for key, item in raw.items():
            if key == "file":
                continue
            options[key] = _option_value(item, f"{where}.{key}", source, environ)
        out[name] = options
    return out


def _option_value(item: Any, where: str, source: str, environ: Mapping[str, str]) -> str:
    if isinstance(item, dict):
        if set(item) != {"env"} or not isinstance(item["env"], str):
            raise UsageError(f'{source}: {where} must be a value or {{ env = "VARIABLE" }}')
        if item["env"] not in environ:
            raise UsageError(
                f"{source}: {where} reads the environment variable {item['env']}, which is not set"
            )
        return environ[item["env"]]
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str | int | float):
        return str(item)
    raise UsageError(f"{source}: {where} must be a string, number or boolean")
