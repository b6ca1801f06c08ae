"""The one accessor of a files frame's statistics: :func:`with_file_stats`.

Frames loaded without the ``stats`` texts (a large history, issue #23) carry a
:class:`~deltaforensics.model.file_stats_source.FileStatsSource` instead; every reader of ``stats``
(the conflict rules' stats matching, attempted statements, the what-if's layouts) passes the
rows it is about to read through here, and gets them with the statistics the log holds, read
for those rows only. Frames that hold their statistics pass through unchanged.
"""

from __future__ import annotations

import polars as pl

from deltaforensics.model.schemas import ActionFrames

_LOGGED = ("commit", "checkpoint")  # sources whose rows the log holds (not an attempt's)


def with_file_stats(frames: ActionFrames, rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (rows of ``frames.files``, its lifecycle, or copies keeping their ``source``,
    ``seq`` and version) with ``stats`` filled in from the log where it is null."""
    source = frames.file_stats
    if source is None or rows.is_empty() or "stats" not in rows.columns:
        return rows
    version = "version" if "version" in rows.columns else "added_version"
    if version not in rows.columns or "seq" not in rows.columns or "source" not in rows.columns:
        return rows
    missing = pl.col("stats").is_null() & pl.col("source").is_in(_LOGGED)
    if not rows.select(missing.any()).item():
        return rows
    at = rows.with_row_index("_at").filter(missing)
    keys = at.select(
        "source",
        pl.col(version).alias("version"),
        "seq",
        pl.col("action") if "action" in at.columns else pl.lit("add").alias("action"),
        "path",
        "dv_id",
    )
    read = source.stats_of(frames.files, keys)
    looked_up = pl.Series([None] * rows.height, dtype=pl.String).scatter(at["_at"], read)
    return rows.with_columns(pl.coalesce(pl.col("stats"), looked_up).alias("stats"))
