"""Who wrote a commit row of the ``commits`` dataset: the job, notebook or user, by name.

The datasets keep commitInfo's ``job`` and ``notebook`` as JSON text; this reads them back into
the shape :func:`~deltaforensics.transactions.parts.who_wrote` names writers from, so the
dashboard calls a writer exactly what the explain report calls it ("job orders_ingest").
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from deltaforensics.transactions.parts import who_wrote

# The commit columns a writer's name is made from.
WRITER_COLUMNS = ("job", "notebook", "user_name", "cluster_id", "engine_info", "client_version")


def _parsed(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # recorded as a plain string: who_wrote takes a job given as text


def writer_name(row: dict[str, Any]) -> str:
    """The writer of one commit row; a commit that names no job, notebook or user is called by
    its cluster, else by its engine, so two unnamed writers on different engines stay apart."""
    who = who_wrote(
        {
            "job": _parsed(row.get("job")),
            "notebook": _parsed(row.get("notebook")),
            "userName": row.get("user_name"),
        }
    )
    if who:
        return who
    if row.get("cluster_id"):
        return f"cluster {row['cluster_id']}"
    engine = (row.get("engine_info") or row.get("client_version") or "").split()
    return f"unnamed writer ({engine[0]})" if engine else "unnamed writer"


def with_writer(commits: pl.DataFrame) -> pl.DataFrame:
    """``commits`` with a ``writer`` column, each distinct recorded identity named once."""
    columns = [c for c in WRITER_COLUMNS if c in commits.columns]
    # One text key per identity (a null kept apart from any recorded string) to look names up.
    key = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null(_NULL) for c in columns], separator=_SEPARATOR
    )
    identities = commits.select(columns).unique()
    names = {
        _SEPARATOR.join(_NULL if r[c] is None else str(r[c]) for c in columns): writer_name(r)
        for r in identities.iter_rows(named=True)
    }
    return commits.with_columns(
        key.replace_strict(names, return_dtype=pl.String, default="unnamed writer").alias("writer")
    )


_NULL, _SEPARATOR = "\x00", "\x01"
