"""Action frames -> the file lifecycle: one row per add, with the version its life ended.

The lifecycle has one row per *add* of a logical file (key = path + deletion-vector id): the
version it became live and the version its life ended, either by a remove of the same key or by
a re-add that superseded the record. Built with one sort and one window — no per-action loop.
"""

from __future__ import annotations

import polars as pl

KEY = ("path", "dv_id")


def build_lifecycle(files: pl.DataFrame) -> pl.DataFrame:
    """One row per add with ``added_version``, ``end_version`` and ``end_action``.

    Sorts only the key columns and a row index (not the wide rows with their stats), takes the
    next action of the same key with a plain shift over the sorted keys (no ``over`` window,
    which hashes every key again), then gathers the add rows in that order.
    """
    order = _in_action_order(files.select(*KEY, "version", "seq", "action").with_row_index("_i"))
    same_key = _same_key_as_next()
    nxt = order.select(
        "_i",
        "action",
        pl.when(same_key).then(pl.col("version").shift(-1)).alias("end_version"),
        pl.when(same_key).then(pl.col("action").shift(-1)).alias("end_action"),
    ).filter(pl.col("action") == "add")
    return _lifecycle_rows(files, nxt["_i"], nxt["end_version"], nxt["end_action"])


def _in_action_order(keys: pl.DataFrame) -> pl.DataFrame:
    """Each key's actions in the order they took effect: by version, within a version a remove
    before an add (a re-add supersedes it), then by position in the commit."""
    return keys.with_columns((pl.col("action") == "add").cast(pl.Int8).alias("_rank")).sort(
        [*KEY, "version", "_rank", "seq"]
    )


def _lifecycle_rows(
    files: pl.DataFrame,
    adds: pl.Series,
    end_version: pl.Series | pl.Expr,
    end_action: pl.Series | pl.Expr,
) -> pl.DataFrame:
    """The rows ``adds`` (indices of add actions in ``files``) as lifecycle rows."""
    return (
        files.drop("action", "deletion_timestamp")[adds]
        .with_columns(end_version=end_version, end_action=end_action)
        .rename({"version": "added_version"})
    )


def live_at_end(files: pl.DataFrame) -> pl.DataFrame | None:
    """The lifecycle rows live at the segment's last version, without the whole lifecycle.

    At the last version a file is live when its add is the last action of its key. A
    checkpoint's adds all come before every commit, so one of them is live exactly when no
    commit touches its key: only the (few) commit rows need the lifecycle's five-key sort, and
    the (many) checkpoint rows only the (path, dv_id) sort the snapshot is ordered by anyway.
    Returns ``None`` — use the lifecycle — when that shortcut would not be exact: a key repeated
    inside the checkpoint, a null key, or checkpoint rows that do not all precede the commits.
    """
    parts = _end_candidates(files)
    if parts is None:
        return None
    untouched, commits = parts
    candidates = pl.concat([untouched, _live_commit_adds(commits)], how="vertical").sort(*KEY)
    if candidates.select(_same_key_as_next().any()).item():
        return None
    return _lifecycle_rows(
        files,
        candidates.filter(pl.col("action") == "add")["_i"],
        pl.lit(None, dtype=files.schema["version"]),
        pl.lit(None, dtype=files.schema["action"]),
    )


def live_count_at_end(files: pl.DataFrame) -> int | None:
    """``live_at_end(files).height``, without sorting or gathering the live rows: a report
    that only counts the files of a large checkpoint need not order 400,000 paths.

    The two parts of :func:`live_at_end`'s candidates never share a key (the checkpoint's are
    the keys no commit touches, the commits' one row per key), so a key repeats among them
    exactly when it repeats among the untouched checkpoint rows; ``None`` then, as there."""
    parts = _end_candidates(files)
    if parts is None:
        return None
    untouched, commits = parts
    if untouched.select(pl.struct(*KEY).is_duplicated().any()).item():
        return None
    return int(untouched.select((pl.col("action") == "add").sum()).item()) + _live_commit_count(
        commits
    )


def _end_candidates(files: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The checkpoint rows that may be live at the last version, those whose key no commit
    touches (``_i``, key, ``action``), and the commits' rows (``_i``, key, ``version``,
    ``seq``, ``action``), of which the adds that are the last action of their key are live;
    ``None`` for a null key or checkpoint rows that do not all precede the commits."""
    if any(files[k].null_count() for k in KEY):
        return None
    keys = files.select(*KEY, "version", "seq", "action").with_row_index("_i")
    in_checkpoint = files["source"] == "checkpoint"
    if in_checkpoint.any():
        checkpoint = keys.filter(in_checkpoint).select("_i", *KEY, "action", "version")
        commits = keys.filter(~in_checkpoint)
    else:  # a history from version 0: no copy of every row to filter none out
        checkpoint, commits = keys.clear().select("_i", *KEY, "action", "version"), keys
    if not _checkpoint_precedes(checkpoint, commits):
        return None
    untouched = checkpoint
    if not checkpoint.is_empty() and not commits.is_empty():
        # an anti join needs no distinct right side: deduplicating 5,000,000 commit keys first
        # cost more than the join (issue #23)
        untouched = checkpoint.join(commits.select(*KEY), on=list(KEY), how="anti")
    return untouched.select("_i", *KEY, "action"), commits


def _same_key_as_next() -> pl.Expr:
    return pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(-1)) for k in KEY)


def _checkpoint_precedes(checkpoint: pl.DataFrame, commits: pl.DataFrame) -> bool:
    """Checkpoint rows share one version, older than every commit row's."""
    if checkpoint.is_empty():
        return True
    first, last = checkpoint["version"].min(), checkpoint["version"].max()
    if first != last:
        return False
    return commits.is_empty() or bool(commits["version"].min() > last)  # type: ignore[operator]


def _live_commit_count(commits: pl.DataFrame) -> int:
    """``_live_commit_adds(commits).height``, gathering only the repeated keys' rows."""
    again, last = _repeated_keys(commits)
    adds = commits.select(((pl.col("action") == "add") & ~again).sum()).item()
    return int(adds) + last.height


def _live_commit_adds(commits: pl.DataFrame) -> pl.DataFrame:
    """Commit adds that are the last action of their key (``_i``, key, ``action``)."""
    again, last = _repeated_keys(commits)
    columns = ["_i", *KEY, "action"]
    once = commits.filter((pl.col("action") == "add") & ~again).select(columns)
    return pl.concat([once, last.select(columns)], how="vertical")


def _repeated_keys(commits: pl.DataFrame) -> tuple[pl.Series, pl.DataFrame]:
    """Which rows' keys may repeat, and of those keys the adds that are their last action.

    A key with one action is live exactly when that action is an add; only the keys with
    several are put in the order they took effect. In an append-heavy log that is a few of
    them: sorting all 5,000,000 file actions of a 1,000,000-commit log by key took 16 CPU s
    and ~0.7 GB (issue #23), finding the repeated keys a hash pass."""
    again = commits.select(_maybe_repeated()).to_series()
    repeated = commits.filter(again)
    last = _in_action_order(repeated).filter(~_same_key_as_next() & (pl.col("action") == "add"))
    return again, last


def _maybe_repeated() -> pl.Expr:
    """Rows whose key may have another row: equal keys hash alike, so every repeated key is
    marked (and a hash collision only sends a few more rows to be ordered). Hashing the
    columns costs a 64-bit number a row, where a struct of the key row-encoded every path
    again: ~0.9 GB at 1,000,000 commits (issue #23)."""
    return (pl.col("path").hash(seed=1) ^ pl.col("dv_id").hash(seed=2)).is_duplicated()
