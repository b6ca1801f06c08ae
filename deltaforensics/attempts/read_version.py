"""``--started-at``: the version a job started at a given time would have read."""

from __future__ import annotations

import polars as pl

from deltaforensics.replay import Replay


def read_version_at(replay: Replay, timestamp_ms: int) -> int:
    """The latest version committed at or before ``timestamp_ms`` (in-commit timestamp when the
    commit has one, else ``commitInfo.timestamp``): what a job started then would have read."""
    commits = replay.core_commits.select(
        "version", pl.coalesce("in_commit_timestamp", "timestamp").alias("ts")
    ).filter(pl.col("ts").is_not_null())
    if commits.is_empty():
        raise ValueError("no commit in the analysed history records a timestamp")
    before = commits.filter(pl.col("ts") <= timestamp_ms)
    if before.is_empty():
        first = commits.sort("version").row(0, named=True)
        raise ValueError(
            f"no commit at or before {timestamp_ms} ms; the first analysed commit v{first['version']} "
            f"is at {first['ts']} ms"
        )
    return int(before["version"].max())  # type: ignore[arg-type]
