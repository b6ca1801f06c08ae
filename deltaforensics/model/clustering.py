"""Liquid clustering columns from the ``delta.clustering`` domain (or the legacy ``delta.liquid``).

Three encodings are seen (semantics doc §D): a flat list of names, Delta-Spark's list of column
paths (``[["a"], ["b","c"]]``), and Databricks' legacy ``[{"physicalName": ["id"]}]``.
Names in the domain are physical; they are mapped back to logical names when possible.
"""

from __future__ import annotations

import json

from deltaforensics.model.actions import Metadata


def clustering_columns(domains: dict[str, str], metadata: Metadata) -> tuple[str, ...]:
    raw = domains.get("delta.clustering") or domains.get("delta.liquid")
    if not raw:
        return ()
    try:
        doc = json.loads(raw)
    except ValueError:
        return ()
    columns = doc.get("clusteringColumns") if isinstance(doc, dict) else None
    if not isinstance(columns, list):
        return ()
    logical_by_physical = {p: name for name, p in metadata.physical_names.items()}
    out: list[str] = []
    for item in columns:
        entry = item.get("physicalName") if isinstance(item, dict) else item
        if isinstance(entry, list):
            name = ".".join(str(p) for p in entry)
        elif isinstance(entry, str):
            name = entry
        else:
            continue
        out.append(logical_by_physical.get(name, name))
    return tuple(out)
