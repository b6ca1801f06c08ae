"""The audit's Unity Catalog tables: single names and whole schemas, resolved at each run.

A ``[[tables]]`` entry with ``schema = "main.sales"`` (and an optional ``match`` glob) stands for
every Delta table the schema holds *now*: a table created since the last run is audited from
this run on, and one that is gone is reported (``schemas[].disappeared`` in the summary) while
its kept state stays where it is: dropping a table from the catalog is not a reason to forget
its history. Every table a schema has held in any run is kept in ``catalog-schemas.json`` in
the state directory (the output directory when there is none), so a dropped table is reported
on every run, as long as its history is kept, not only on the first run after the drop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from deltaforensics.audit.config import AuditConfig, SchemaSpec, TableSpec, is_catalog_table
from deltaforensics.audit.files import write_atomically
from deltaforensics.catalog.client import CatalogClient
from deltaforensics.catalog.connection import connect
from deltaforensics.catalog.names import parse_schema_name, parse_table_name
from deltaforensics.catalog.tables import open_catalog_table, open_table_info, schema_tables

MEMBERS_FILE = "catalog-schemas.json"


def resolve_catalog_tables(
    config: AuditConfig, state_dir: Path | None, environ: Mapping[str, str]
) -> tuple[AuditConfig, list[dict[str, Any]]]:
    """``config`` with every catalog name given an opener and every schema expanded into its
    tables, and one summary entry per schema (tables, new since the last run, disappeared)."""
    if not config.schemas and not any(is_catalog_table(t) for t in config.tables):
        return config, []
    subject = config.schemas[0].schema if config.schemas else config.tables[0].uri
    client = connect(
        subject, url=config.catalog.url, profile=config.catalog.profile, environ=environ
    ).client
    tables = [_with_opener(t, client) if is_catalog_table(t) else t for t in config.tables]
    taken = {t.name for t in tables}
    members_file = (state_dir or config.output) / MEMBERS_FILE
    before = _read_members(members_file)
    now: dict[str, list[str]] = {}
    entries = []
    for spec in config.schemas:
        found = _schema_members(spec, client, taken)
        tables += found
        taken.update(t.name for t in found)
        key = f"{spec.schema}|{spec.match}"
        names = [t.name for t in found]
        entries.append(_entry(spec, names, before.get(key), state_dir))
        now[key] = sorted({*before.get(key, ()), *names})
    write_atomically(
        members_file,
        lambda tmp: tmp.write_text(json.dumps({**before, **now}, indent=2) + "\n", "utf-8"),
    )
    return replace(config, tables=tuple(tables)), entries


def _with_opener(spec: TableSpec, client: CatalogClient) -> TableSpec:
    name = parse_table_name(spec.uri)
    assert name is not None  # is_catalog_table said so

    def opener() -> Any:
        return open_catalog_table(name, client, spec.storage_options).store

    return replace(spec, opener=opener)


def _schema_members(spec: SchemaSpec, client: CatalogClient, taken: set[str]) -> list[TableSpec]:
    schema = parse_schema_name(spec.schema)
    assert schema is not None  # checked when the config was read
    out = []
    for info in schema_tables(client, schema, spec.match):
        full = str(schema.table(str(info["name"])))
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", full).strip("._-")[:128]
        if name in taken:  # also configured as a single table: audited once, as configured
            continue

        def opener(full: str = full, info: Mapping[str, Any] = info) -> Any:
            return open_table_info(full, info, client, spec.storage_options).store

        out.append(
            TableSpec(
                name=name,
                uri=str(info["storage_location"]),
                profile=spec.profile,
                storage_options=spec.storage_options,
                opener=opener,
            )
        )
    return out


def _entry(
    spec: SchemaSpec, names: list[str], before: list[str] | None, state_dir: Path | None
) -> dict[str, Any]:
    previous = set(before or ())
    gone = sorted(previous - set(names))
    return {
        "schema": spec.schema,
        "match": spec.match,
        "tables": names,
        "new": [] if before is None else sorted(set(names) - previous),
        "disappeared": [
            {
                "name": name,
                "state_kept": None
                if state_dir is None
                else str(state_dir / "_tables" / f"{name}.json"),
            }
            for name in gone
        ],
    }


def _read_members(path: Path) -> dict[str, list[str]]:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict):
        return {}
    return {
        k: [str(n) for n in v] for k, v in doc.items() if isinstance(k, str) and isinstance(v, list)
    }
