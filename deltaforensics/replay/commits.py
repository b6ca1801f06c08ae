"""One row per commit version: typed commitInfo fields, file counts and what it changed.

Two forms: :func:`commit_table` types the commitInfo fields a conflict analysis reads (the
transactions' columns), :func:`with_commit_details` adds the ones only the history document and
the audit's datasets show, decoded from the same texts (issue #23: typed for each of 1,000,000
commits, those were ~0.3 GB that ``explain`` never read)."""

from __future__ import annotations

import json

import polars as pl

from deltaforensics.model.commit_info import (
    CORE_KEYS,
    DETAIL_COLUMNS,
    DETAIL_KEYS,
    TYPED_COLUMNS,
    with_commit_info_columns,
)
from deltaforensics.model.schemas import ActionFrames


def commit_table(frames: ActionFrames, *, details: bool = False) -> pl.DataFrame:
    """One row per commit version in the segment: the commitInfo fields typed (but
    ``DETAIL_COLUMNS``, unless ``details``), and file counts."""
    versions = pl.DataFrame({"version": list(frames.commit_versions)}, schema={"version": pl.Int64})
    infos = frames.commit_infos
    if infos["version"].is_duplicated().any():  # a second commitInfo in one commit: the first
        infos = infos.unique("version", keep="first", maintain_order=True)
    infos = (
        with_commit_info_columns(infos) if details else with_commit_info_columns(infos, CORE_KEYS)
    )
    # lazily, so only the four columns counted are gathered: filtering the frame itself
    # copied every file action (~0.8 GB at 1,000,000 commits)
    files = frames.files.lazy().filter(pl.col("source") == "commit")
    counts = (
        files.group_by("version")
        .agg(
            (pl.col("action") == "add").sum().cast(pl.Int64).alias("num_added_files"),
            (pl.col("action") == "remove").sum().cast(pl.Int64).alias("num_removed_files"),
            pl.col("size")
            .filter(pl.col("action") == "add")
            .sum()
            .cast(pl.Int64)
            .alias("bytes_added"),
            pl.col("size")
            .filter(pl.col("action") == "remove")
            .sum()
            .cast(pl.Int64)
            .alias("bytes_removed"),
        )
        .collect()
    )
    aligned = infos.height == versions.height and infos["version"].equals(versions["version"])
    if aligned and versions["version"].is_sorted():
        # one commitInfo per commit, in version order (nearly every log): the rows are already
        # the table's, and a join would gather every column of every commit again (~1 GB at
        # 1,000,000 commits, issue #23)
        table = infos
    else:
        table = versions.join(infos, on="version", how="left").sort("version")
    counted = table.select("version").join(counts, on="version", how="left", maintain_order="left")
    return table.hstack(counted.drop("version")).with_columns(
        pl.col("num_added_files", "num_removed_files", "bytes_added", "bytes_removed").fill_null(0),
        pl.col("version").is_in(frames.metadata["version"].implode()).alias("changes_metadata"),
        pl.col("version").is_in(frames.protocols["version"].implode()).alias("changes_protocol"),
        pl.col("commit_info").is_not_null().alias("has_commit_info"),
    )


def with_commit_details(table: pl.DataFrame) -> pl.DataFrame:
    """:func:`commit_table`'s ``table`` with every commitInfo field typed, in the column order
    of one decoding of them all (the columns it had are shared, not copied)."""
    details = with_commit_info_columns(table.select("commit_info"), DETAIL_KEYS)
    whole = table.hstack(details.select(DETAIL_COLUMNS))
    typed = [c for c in TYPED_COLUMNS if c in whole.columns]
    rest = [c for c in table.columns if c not in typed]
    at = rest.index("commit_info") + 1
    return whole.select(*rest[:at], *typed, *rest[at:])


def operation_parameters(text: str | None) -> dict[str, object]:
    """Decode ``operationParameters`` JSON text; values keep their JSON type."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
