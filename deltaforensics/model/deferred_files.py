"""A checkpoint's live files that no commit of the segment touches, left unread until asked.

A time window at the end of a long table replays a few thousand commits from a checkpoint
that may hold millions of live files. Almost none of those files meet the window: no commit
adds, removes or re-adds their path, so their lifecycle is known without reading them (live
from the checkpoint to the end), and what the window's analysis asks of them is their count.
The engine then reads only their paths, to tell them from the files the commits do touch,
and :class:`DeferredFiles` stands for the rest: how many they are, which paths the frames'
``files`` cover completely, and how to read every checkpoint row when something (a snapshot,
a what-if layout, an overwrite's survivors) needs all the live files (issue #23).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferredFiles:
    """The checkpoint adds a segment's ``files`` frame leaves out.

    ``count`` adds, all live at the checkpoint, with distinct paths, none of them among
    ``touched_paths`` (sorted, distinct): the paths some commit of the segment or some
    checkpoint remove names, whose every row the frame holds. ``read_checkpoint`` gives the
    checkpoint's file rows, every one, exactly as the frame would have held them."""

    count: int
    touched_paths: pl.Series
    read_checkpoint: Callable[[], pl.DataFrame]
    _read: dict[str, pl.DataFrame] = field(default_factory=dict, compare=False, repr=False)

    def checkpoint_rows(self) -> pl.DataFrame:
        """:attr:`read_checkpoint`'s rows, read once."""
        if "rows" not in self._read:
            self._read["rows"] = self.read_checkpoint()
        return self._read["rows"]

    def covers(self, paths: pl.Series) -> bool:
        """Whether every row of each of ``paths`` is in the frame (none is a deferred file)."""
        wanted = paths.drop_nulls()
        return bool(wanted.is_in(self.touched_paths.implode()).all())
