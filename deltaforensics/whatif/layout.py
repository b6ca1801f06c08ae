"""Where each file's rows would sit under another partition layout (the footprint of
``PartitionBy``).

A file of the current layout holds rows whose values of a new partition column lie between the
file's ``minValues`` and ``maxValues``; under the new layout those rows would be one file per
value. So a file becomes one row per value it spans (the cross product over the new columns),
with a synthetic ``partition_values`` struct and a synthetic path ``<path>#<col>=<value>/…`` so
that path-based checks (delete-read, delete-delete) compare new-layout files, not old ones.

Which values a file spans is :mod:`deltaforensics.whatif.spans`. A file spanning more than
:data:`~deltaforensics.whatif.spans.MAX_SPAN` values, or without statistics for the column, has
an *unknown* footprint (``whatif_unknown``); a current partition column keeps its exact value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

from deltaforensics.model.frames import slices_by
from deltaforensics.model.schemas import PARTITION_VALUES
from deltaforensics.predicates.casts import kind_of_type
from deltaforensics.replay import Replay
from deltaforensics.whatif.spans import (
    MAX_SPAN,
    beyond_span,
    enumerated_spans,
    numeric_universe,
    observed_values,
    sort_key,
    sort_keys,
    span_values,
)
from deltaforensics.whatif.statistics import (
    RANGE_COLUMNS,
    StatRanges,
    stat_ranges,
)

UNKNOWN = "whatif_unknown"
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True, slots=True)
class Layout:
    """The new partition columns and how to find each one's values in the current files."""

    columns: tuple[str, ...]  # logical names, as the user spelled the table's columns
    kinds: dict[str, str]  # logical -> comparison kind (``to_polars`` kinds); "str" if unknown
    stats_keys: dict[str, str]  # logical -> key in the stats JSON (physical name)
    # logical -> field of the current partition struct, for columns the table is partitioned by
    existing: dict[str, str]
    universe: dict[str, tuple[str, ...]]  # observed min/max values per stats column, sorted

    @classmethod
    def for_table(
        cls,
        columns: Sequence[str],
        replay: Replay,
        ranges: Mapping[str, pl.DataFrame],
        named: Mapping[str, Sequence[str]] | None = None,
    ) -> Layout:
        """``ranges``: the statistics of the history per new column (:meth:`StatRanges.get`),
        from which its universe is read; a column missing from them gets none (``{}``: the
        names and kinds only, to know which statistics to read). ``named``: values the
        statements' conditions name per column (logical name, any case), added to the
        universe."""
        md = replay.metadata_at(replay.end_version)
        by_key = {c.lower(): c for c in md.column_types}
        logical = tuple(by_key.get(c.lower(), c) for c in columns)
        part = {c.lower(): md.physical_name(c) for c in md.partition_columns}
        kinds = {c: kind_of_type(md.column_types.get(c)) or "str" for c in logical}
        keys = {c: md.physical_name(c) for c in logical}
        existing = {c: part[c.lower()] for c in logical if c.lower() in part}
        spoken = {k.lower(): v for k, v in (named or {}).items()}
        universe = {
            c: with_named(observed_values(ranges[c], kinds[c]), spoken.get(c.lower(), ()), kinds[c])
            for c in logical
            if c not in existing and c in ranges
        }
        return cls(logical, kinds, keys, existing, universe)

    @classmethod
    def statistics_needed(cls, columns: Sequence[str], replay: Replay) -> dict[str, str]:
        """Stats key -> comparison kind of the statistics a layout of ``columns`` reads."""
        return cls.for_table(columns, replay, {}).new_column_kinds()

    def new_column_kinds(self) -> dict[str, str]:
        """Stats key -> comparison kind of the columns the table is not partitioned by."""
        return {self.stats_keys[c]: self.kinds[c] for c in self.columns if c not in self.existing}

    @property
    def unknown_columns(self) -> tuple[str, ...]:
        """New columns no file has statistics for."""
        return tuple(c for c, seen in self.universe.items() if not seen)


def with_named(observed: tuple[str, ...], named: Sequence[str], kind: str) -> tuple[str, ...]:
    """The observed values and the named ones, in :func:`sort_key` order (observed first on
    ties, as the observed values' own order has them)."""
    extra = [v for v in dict.fromkeys(named) if v not in set(observed)]
    if not extra:
        return observed
    return tuple(sorted((*observed, *extra), key=lambda v: sort_key(v, kind)))


class Relabeler:
    """Re-labels file frames for one :class:`Layout`; pure, caches the per-range spans."""

    def __init__(
        self, layout: Layout, replay: Replay, statistics: StatRanges | None = None
    ) -> None:
        """``statistics``: the history's column statistics, shared by the estimates of a table."""
        self.layout, self.replay = layout, replay
        self.statistics = statistics or StatRanges(replay)
        self._spans: dict[
            tuple[str, str | None, str | None, bool, bool], list[str | None] | None
        ] = {}
        self._keys: dict[str, list[tuple[int, float, str]]] = {}
        self._numbers: dict[str, pl.Series | None] = {}

    @classmethod
    def for_table(
        cls,
        columns: Sequence[str],
        replay: Replay,
        statistics: StatRanges | None = None,
        named: Mapping[str, Sequence[str]] | None = None,
    ) -> Relabeler:
        """The layout of ``columns`` and its relabeler; each new column's statistics are read
        from the history's JSON once (per ``statistics``, shared by the estimates of a table)
        for the universe."""
        statistics = statistics or StatRanges(replay)
        names = Layout.for_table(columns, replay, {})
        statistics.prefetch(names.new_column_kinds())
        ranges = {
            c: statistics.get(names.stats_keys[c], names.kinds[c])
            for c in names.columns
            if c not in names.existing
        }
        return cls(Layout.for_table(columns, replay, ranges, named), replay, statistics)

    def frame(self, files: pl.DataFrame) -> pl.DataFrame:
        """One row per (file, new partition); ``whatif_unknown`` marks unknown footprints."""
        return self._relabel(self.spans(self.statistics.with_add_stats(files)))

    def frames(self, frames: Sequence[pl.DataFrame]) -> list[pl.DataFrame]:
        """:meth:`frame` of each of ``frames``, re-labelled together: a what-if rewrites
        thousands of commits of a few files each, and one pass over all of them costs about
        what one pass over one costs. Frames not shaped as the history's files (an attempted
        statement's) are re-labelled on their own."""
        files = self.replay.all_files()
        names, dtypes = files.columns, files.dtypes

        def shaped(f: pl.DataFrame) -> bool:  # the schema, compared without building one
            return f.columns == names and f.dtypes == dtypes

        alike = [shaped(f) for f in frames]
        together = [i for i, f in enumerate(frames) if f.height and alike[i]]
        batched = set(together)
        out = [
            f if i in batched else self._empty if f.is_empty() and alike[i] else self.frame(f)
            for i, f in enumerate(frames)
        ]
        if together:
            heights = [frames[i].height for i in together]
            joined = pl.concat([frames[i] for i in together]).with_columns(
                pl.Series("_frame", np.repeat(np.array(together, dtype=np.int64), heights))
            )
            pieces = slices_by(self.frame(joined), "_frame").without("_frame")
            for i in together:
                out[i] = pieces.get(i, self._empty)
        return out

    @cached_property
    def _empty(self) -> pl.DataFrame:
        return self.frame(self.replay.frames.files.clear())

    def spans(
        self, files: pl.DataFrame, ranges: dict[str, pl.DataFrame] | None = None
    ) -> pl.DataFrame:
        """``files`` (carrying their statistics) with, per layout column ``i``, a column
        ``_whatif_v{i}``: the file's value of a current partition column, else the list of
        values it spans (null: unknown, which ``whatif_unknown`` also says).

        ``ranges``: :func:`stat_ranges` of ``files`` per new column, when the caller has them
        row for row; the others are read from the statistics texts.
        """
        lay = self.layout
        assert lay.columns, "an unpartitioned layout needs no re-labelling"
        out = files.with_columns(pl.lit(False).alias(UNKNOWN))
        for i, col in enumerate(lay.columns):
            out = self._column(out, col, f"_whatif_v{i}", (ranges or {}).get(col))
        return out

    def _relabel(self, spanned: pl.DataFrame) -> pl.DataFrame:
        """One row per value combination of :meth:`spans`' lists, with the synthetic partition
        values and path."""
        lay = self.layout
        names = [f"_whatif_v{i}" for i in range(len(lay.columns))]
        for col, name in zip(lay.columns, names, strict=True):
            if col not in lay.existing:
                spanned = spanned.explode(name)
        suffix = pl.concat_str(
            [
                pl.concat_str([pl.lit(f"{col}="), pl.col(name).fill_null(HIVE_NULL)])
                for col, name in zip(lay.columns, names, strict=True)
            ],
            separator="/",
        )
        return spanned.with_columns(
            pl.struct([pl.col(n).alias(c) for c, n in zip(lay.columns, names, strict=True)]).alias(
                PARTITION_VALUES
            ),
            pl.concat_str([pl.col("path"), pl.lit("#"), suffix]).alias("path"),
        ).drop(names)

    def _column(
        self, files: pl.DataFrame, col: str, name: str, ranges: pl.DataFrame | None
    ) -> pl.DataFrame:
        lay = self.layout
        if col in lay.existing:
            field = lay.existing[col]
            pv = files.schema.get(PARTITION_VALUES)
            names = {f.name for f in pv.fields} if isinstance(pv, pl.Struct) else set()
            value = (
                pl.col(PARTITION_VALUES).struct.field(field)
                if field in names
                else pl.lit(None, pl.String)
            )
            return files.with_columns(value.alias(name))
        key, kind = lay.stats_keys[col], lay.kinds[col]
        if ranges is None:
            ranges = stat_ranges(files, key, kind)
        probe = files.hstack(ranges)
        table = ranges.unique()
        if col not in self._numbers:
            self._numbers[col] = numeric_universe(kind, self._sort_keys(col, kind))
        wide = beyond_span(table, kind, self._numbers[col])
        decided, enumerated = enumerated_spans(table, kind)
        spans = [
            None if too_wide or known else self._span_of(col, kind, lo, hi, has_null, all_null)
            for (lo, hi, has_null, all_null), too_wide, known in zip(
                table.iter_rows(), wide, decided.to_list(), strict=True
            )
        ]
        table = table.with_columns(
            pl.when(decided)
            .then(enumerated)
            .otherwise(pl.Series(spans, dtype=pl.List(pl.String)))
            .alias(name)
        )
        joined = probe.join(
            table, on=RANGE_COLUMNS, how="left", nulls_equal=True, maintain_order="left"
        )
        return joined.with_columns((pl.col(UNKNOWN) | pl.col(name).is_null()).alias(UNKNOWN)).drop(
            RANGE_COLUMNS
        )

    def _sort_keys(self, col: str, kind: str) -> list[tuple[int, float, str]]:
        if col not in self._keys:
            self._keys[col] = sort_keys(self.layout.universe.get(col, ()), kind)
        return self._keys[col]

    def _span_of(
        self, col: str, kind: str, lo: str | None, hi: str | None, has_null: bool, all_null: bool
    ) -> list[str | None] | None:
        key = (col, lo, hi, has_null, all_null)
        if key not in self._spans:
            if all_null:
                found: list[str | None] | None = [None]
            elif lo is None or hi is None:
                found = None
            else:
                universe = self.layout.universe.get(col, ())
                values = span_values(lo, hi, kind, universe, self._sort_keys(col, kind), MAX_SPAN)
                found = None if values is None or len(values) > MAX_SPAN else list(values)
                if found is not None and has_null:
                    found.append(None)
            self._spans[key] = found
        return self._spans[key]

    def history(self) -> RelabeledHistory:
        """The history in the new layout: ``live_files(v)`` re-labelled."""
        return RelabeledHistory(self.replay, self)

    def layout_stats(self) -> LayoutStats:
        """What the new layout would look like at the latest version, counted from each live
        file's spans without writing out its pieces (a file spanning many values would
        otherwise be that many rows). Counted once per relabeler: a recommendation asks before
        comparing, and the comparison's assessment asks again."""
        return self._layout_stats

    @cached_property
    def _layout_stats(self) -> LayoutStats:
        live, rows = self.statistics.live_at_end
        if live.is_empty():
            return LayoutStats(
                partitions=0, files_before=0, files_after=0, bytes=0, unknown_files=0
            )
        lay = self.layout
        ranges = {
            c: self.statistics.of(rows, lay.stats_keys[c], lay.kinds[c])
            for c in lay.columns
            if c not in lay.existing
        }
        spanned = self.spans(live, ranges)
        lists = [f"_whatif_v{i}" for i, c in enumerate(lay.columns) if c not in lay.existing]
        known = spanned.filter(~pl.col(UNKNOWN))
        pieces = pl.lit(1, pl.Int64)
        for name in lists:  # an empty list still makes one (null) piece, as explode does
            pieces = pieces * pl.col(name).list.len().cast(pl.Int64).clip(lower_bound=1)
        combinations = known.select(f"_whatif_v{i}" for i in range(len(lay.columns))).unique()
        for name in lists:
            combinations = combinations.explode(name)
        return LayoutStats(
            partitions=combinations.unique().height if known.height else 0,
            files_before=live.height,
            files_after=int(known.select(pieces.sum()).item() or 0) if known.height else 0,
            bytes=int(live["size"].fill_null(0).sum()),
            unknown_files=spanned.filter(pl.col(UNKNOWN))["path"].n_unique(),
        )


@dataclass(frozen=True, slots=True)
class RelabeledHistory:
    """The history in a new layout, for the conflict rules (a
    :class:`~deltaforensics.conflicts.rule.FileHistory`).

    A check asks about a winner's few files, so only those are looked up in the real history
    and re-labelled; the whole history is never re-labelled (a column with many values would
    multiply its rows). A file's pieces are those of the add live at the version asked about.
    """

    original: Replay
    relabeler: Relabeler

    @property
    def end_version(self) -> int:
        return self.original.end_version

    def retains(self, version: int) -> bool:
        return self.original.retains(version)

    def live_files(self, version: int) -> pl.DataFrame:
        return self.relabeler.frame(self.original.live_files(version))

    def with_file_stats(self, rows: pl.DataFrame) -> pl.DataFrame:
        """Re-labelled rows got their statistics before re-labelling (:meth:`Relabeler.frame`);
        a row from the original history gets them here."""
        return self.original.with_file_stats(rows)

    def live_files_among(self, version: int, paths: pl.Series) -> pl.DataFrame:
        """The pieces among ``paths`` (synthetic ``<path>#<partition>``) live at ``version``.

        The original path is a prefix ending before some ``#``: every such prefix is looked up
        (usually one), and only pieces whose synthetic path is asked for are kept."""
        wanted = paths.drop_nulls().unique()
        prefixes = sorted({p[:i] for p in wanted.to_list() for i, ch in enumerate(p) if ch == "#"})
        originals = pl.Series("path", prefixes, dtype=pl.String)
        found = self.relabeler.frame(self.original.live_files_among(version, originals))
        return found.filter(pl.col("path").is_in(wanted.implode()))


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutStats:
    partitions: int  # distinct new partitions of the live files at the latest version
    files_before: int
    files_after: int  # one per (file, partition) it spans
    bytes: int
    unknown_files: int
