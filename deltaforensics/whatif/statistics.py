"""Per-file facts of one column — minimum, maximum, whether it holds nulls — read from the
statistics JSON of a whole history: the input of a partition-layout estimate
(:mod:`deltaforensics.whatif.layout`).

Reading them is the costliest step of a ``PartitionBy`` estimate on a large history (every
add's statistics text is parsed), so a :class:`StatRanges` reads each column once per history,
reads every column asked for together in one pass, and splits the rows over the cores.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any, TypeVar

import polars as pl

from deltaforensics.model.file_stats_source import STATS_KEY
from deltaforensics.replay import Replay

RANGE_COLUMNS = ["_lo", "_hi", "_has_null", "_all_null"]
T = TypeVar("T")
_PARALLEL_ROWS = 50_000  # below this one thread is as fast
_SLICES = 4


def add_stats(replay: Replay, paths: pl.Series | None = None) -> pl.DataFrame:
    """The statistics of every logical file (of those at ``paths``), from its last add that
    has some."""
    adds = replay.all_files().filter(pl.col("action") == "add")
    if paths is not None:
        adds = replay.with_file_stats(adds.filter(pl.col("path").is_in(paths.implode())))
    return (
        adds.filter(pl.col("stats").is_not_null())
        .select("path", "dv_id", pl.col("stats").alias("_add_stats"))
        .unique(["path", "dv_id"], keep="last", maintain_order=True)
    )


def with_stats(files: pl.DataFrame, stats: pl.DataFrame) -> pl.DataFrame:
    """Removes often carry no statistics: take them from the add of the same logical file
    (``stats``: :func:`add_stats`). Only the rows without statistics are looked up."""
    if files.is_empty() or "stats" not in files.columns or not files["stats"].null_count():
        return files
    wanted = stats.filter(pl.col("path").is_in(files["path"].drop_nulls().unique().implode()))
    return (
        files.join(
            wanted, on=["path", "dv_id"], how="left", nulls_equal=True, maintain_order="left"
        )
        .with_columns(pl.coalesce("stats", "_add_stats").alias("stats"))
        .drop("_add_stats")
    )


def stat_path(section: str, key: str) -> pl.Expr:
    return pl.col("stats").str.json_path_match(f"$.{section}[{json.dumps(key)}]")


def stat_ranges(files: pl.DataFrame, key: str, kind: str = "float") -> pl.DataFrame:
    """Per file (row-aligned): the column's minimum and maximum as text, whether it holds a
    null, and whether it holds only nulls (``RANGE_COLUMNS``)."""
    return stat_ranges_many(files, {key: kind})[key]


def stat_ranges_many(files: pl.DataFrame, kinds: Mapping[str, str]) -> dict[str, pl.DataFrame]:
    """:func:`stat_ranges` of several columns (stats key -> comparison kind).

    For strings, dates, integers and booleans one ``json_decode`` of the statistics reads all
    their values at once (the texts equal ``json_path_match``'s); floats, whose text polars
    formats differently on the two paths, and any text ``json_decode`` rejects, take four
    ``json_path_match`` reads per row.
    """
    if "stats" not in files.columns:
        empty = pl.DataFrame(
            {"_lo": [None] * files.height, "_hi": [None] * files.height},
            schema={"_lo": pl.String, "_hi": pl.String},
        ).with_columns(pl.lit(False).alias("_has_null"), pl.lit(False).alias("_all_null"))
        return dict.fromkeys(kinds, empty)
    texts = _decoded(files, [k for k, kind in kinds.items() if kind != "float"])
    for key in kinds:
        if key not in texts:
            texts[key] = _parallel(
                files,
                [
                    stat_path("minValues", key).alias("_lo"),
                    stat_path("maxValues", key).alias("_hi"),
                    stat_path("nullCount", key).alias("_nulls"),
                    pl.col("stats").str.json_path_match("$.numRecords").alias("_records"),
                ],
            )
    nulls = pl.col("_nulls").cast(pl.Int64, strict=False)
    records = pl.col("_records").cast(pl.Int64, strict=False)
    return {
        key: texts[key].select(
            "_lo",
            "_hi",
            (nulls > 0).fill_null(False).alias("_has_null"),
            (nulls == records).fill_null(False).alias("_all_null"),
        )
        for key in kinds
    }


def _decoded(files: pl.DataFrame, keys: list[str]) -> dict[str, pl.DataFrame]:
    """The four texts per key from one ``json_decode`` pass; empty if it rejects the texts."""
    if not keys:
        return {}
    per_column = pl.Struct(dict.fromkeys(keys, pl.String))
    dtype = pl.Struct(
        {
            "minValues": per_column,
            "maxValues": per_column,
            "nullCount": per_column,
            "numRecords": pl.String,
        }
    )
    try:
        decoded = _parallel(files, [pl.col("stats").str.json_decode(dtype).alias("s")])["s"]
    except pl.exceptions.PolarsError:
        return {}
    sections = {s: decoded.struct.field(s) for s in ("minValues", "maxValues", "nullCount")}
    return {
        key: pl.DataFrame(
            {
                "_lo": sections["minValues"].struct.field(key),
                "_hi": sections["maxValues"].struct.field(key),
                "_nulls": sections["nullCount"].struct.field(key),
                "_records": decoded.struct.field("numRecords"),
            }
        )
        for key in keys
    }


def _parallel(files: pl.DataFrame, exprs: list[pl.Expr]) -> pl.DataFrame:
    """``files.select(exprs)``, the rows in slices computed side by side: a string expression
    over one column runs on one thread per chunk, and a history's column is one chunk."""
    n = files.height
    if n < _PARALLEL_ROWS:
        return files.select(exprs)
    lazy = files.lazy()
    bounds = [n * i // _SLICES for i in range(_SLICES + 1)]
    parts = pl.collect_all([lazy.slice(a, b - a).select(exprs) for a, b in pairwise(bounds)])
    return pl.concat(parts, how="vertical")


class StatRanges:
    """One history's :func:`stat_ranges`, each column read once however many estimates ask.

    Read per distinct statistics text (a history's removes repeat their adds' texts, and its
    re-labelled files ask about the same texts again), and found again by text for any frame
    of the history's files (:meth:`of`). Thread-safe, so that :meth:`warm` can read on a
    second thread while the caller goes on: what it has not finished is waited for, never
    read twice.
    """

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self._done: dict[tuple[str, str], pl.DataFrame] = {}
        self._lock = threading.RLock()
        self._cached: dict[str, Any] = {}

    def _once(self, name: str, compute: Callable[[], T]) -> T:
        with self._lock:
            if name not in self._cached:
                self._cached[name] = compute()
            found: T = self._cached[name]
            return found

    @property
    def add_stats(self) -> pl.DataFrame:
        """:func:`add_stats` of the whole history, when its frames hold the statistics."""
        return self._once("add_stats", lambda: add_stats(self.replay))

    def with_add_stats(self, files: pl.DataFrame) -> pl.DataFrame:
        """``files`` with their own statistics, and a row without any (a remove, mostly) with
        those of its file's add (:func:`with_stats`). From frames without statistics, only
        these rows' and their adds' are read from the log."""
        files = self.replay.with_file_stats(files)
        if self.replay.frames.file_stats is None:
            return with_stats(files, self.add_stats)
        if files.is_empty() or "stats" not in files.columns or not files["stats"].null_count():
            return files
        lacking = files.filter(pl.col("stats").is_null())["path"].drop_nulls().unique()
        return with_stats(files, add_stats(self.replay, lacking))

    @property
    def texts(self) -> pl.DataFrame:
        """Every distinct statistics text of the history, in order of first appearance."""
        return self._once("texts", self._texts)

    def _texts(self) -> pl.DataFrame:
        files = self.replay.all_files()
        if "stats" not in files.columns:
            return pl.DataFrame(schema={"stats": pl.String})
        # every text of the history: from frames without statistics, the whole log is read
        files = self.replay.with_file_stats(files.select(*STATS_KEY, "stats"))
        return files.select(pl.col("stats").drop_nulls().unique(maintain_order=True))

    def prefetch(self, kinds: Mapping[str, str]) -> None:
        """Read the columns not read yet (stats key -> kind), all in one pass."""
        with self._lock:
            missing = {k: kind for k, kind in kinds.items() if (k, kind) not in self._done}
            if missing:
                for key, frame in stat_ranges_many(self.texts, missing).items():
                    self._done[key, missing[key]] = frame

    def warm(
        self, kinds: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None
    ) -> threading.Thread:
        """Start reading on a second thread what a layout estimate will ask for: the texts,
        the live files' rows and the columns of ``kinds`` (stats key -> kind, or a function
        that finds them on that thread). Polars releases the GIL, so this overlaps the
        caller's Python work. Best effort: an error is left for the caller's own read of the
        same thing to raise."""

        def read() -> None:
            try:
                self.prefetch((kinds() if callable(kinds) else kinds) or {})
                self.live_at_end  # noqa: B018 - read for its side effect: computed and kept
            except Exception:  # noqa: S110 - the caller's own read raises it
                pass

        thread = threading.Thread(target=read, name="statistics", daemon=True)
        thread.start()
        return thread

    def get(self, key: str, kind: str) -> pl.DataFrame:
        """The column's ranges per text of :attr:`texts` (row-aligned)."""
        self.prefetch({key: kind})
        return self._done[key, kind]

    def rows_of(self, files: pl.DataFrame) -> pl.Series:
        """For each row of ``files`` (rows of this history), the index of its statistics text
        in :attr:`texts` (null: none): one join on the texts, however many columns are read
        for the rows afterwards (:meth:`of`)."""
        table = self.texts.with_row_index("_text")
        found = files.select("stats").join(table, on="stats", how="left", maintain_order="left")
        return found["_text"]

    def of(self, rows: pl.Series, key: str, kind: str) -> pl.DataFrame:
        """:func:`stat_ranges` of the files whose :meth:`rows_of` are ``rows``."""
        return (
            self.get(key, kind)
            .select(pl.all().gather(rows))
            .with_columns(
                pl.col("_has_null").fill_null(False), pl.col("_all_null").fill_null(False)
            )
        )

    def live_sample(self, key: str, kind: str, files: int) -> pl.DataFrame:
        """:func:`stat_ranges` of the first ``files`` files live at the history's last
        version, read from their own statistics texts (not the whole history's)."""
        live = self.live
        return self._once(
            f"sample {files} {kind} {key}", lambda: stat_ranges(live.head(files), key, kind)
        )

    @property
    def live_at_end(self) -> tuple[pl.DataFrame, pl.Series]:
        """The files live at the history's last version, carrying their statistics, and
        their :meth:`rows_of` (every layout estimate of the table counts them)."""
        return self._once("live_at_end", self._live_at_end)

    @property
    def live(self) -> pl.DataFrame:
        """The files live at the history's last version, carrying their statistics."""
        return self._once("live", self._live)

    def _live(self) -> pl.DataFrame:
        rep = self.replay
        return self.with_add_stats(rep.live_files(rep.end_version))

    def _live_at_end(self) -> tuple[pl.DataFrame, pl.Series]:
        live = self.live
        if "stats" not in live.columns:
            return live, pl.Series("_text", [None] * live.height, dtype=pl.UInt32)
        return live, self.rows_of(live)
