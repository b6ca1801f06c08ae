"""Where a files frame's statistics come from when the frames do not hold them (issue #23).

A file action's ``stats`` text is most of a log's bytes and few commands look at it, so a
large history is loaded without it (``engines/``) and a :class:`FileStatsSource` reads it back
for exactly the rows asked for. :meth:`deltaforensics.replay.Replay.with_file_stats` is the one
way anything asks; an :class:`~deltaforensics.model.schemas.ActionFrames` without a source
holds every statistic itself.
"""

from __future__ import annotations

from typing import Protocol

import polars as pl

# The columns a row is found by: ``source`` and ``version`` say which log file holds it,
# ``seq`` its place there, and the file's key tells two actions at one place apart.
STATS_KEY = ("source", "version", "seq", "action", "path", "dv_id")


class FileStatsSource(Protocol):
    """Reads the ``stats`` text of file actions back from the log."""

    def stats_of(self, files: pl.DataFrame, rows: pl.DataFrame) -> pl.Series:
        """The ``stats`` of each of ``rows`` (columns :data:`STATS_KEY`, rows of ``files``,
        the frames' whole files frame), row for row; null where the log has none."""
        ...
