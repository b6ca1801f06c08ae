"""The newest checkpoint decoded while the log is listed (issue #23): started only when a
window from a time to the end is bound to read it, taken only for those same files, and the
frames read with it are the frames read without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from deltaforensics.analysis import open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import LogCorruptError
from deltaforensics.log.checkpoint_prefetch import prefetch_checkpoint
from deltaforensics.log.listing import CheckpointFiles, list_log
from deltaforensics.log.segment import LogSegment
from tests.log.test_deferred_files import multi_part_table


def _table(tmp_path: Path) -> Path:
    """A 4-part checkpoint at v1 (``_last_checkpoint`` naming it) and a commit at v2, time 5."""
    table = multi_part_table(tmp_path, [["p1-0", "p1-1"], ["p2-0"], [], ["p4-0"]])
    (table / "_delta_log" / "_last_checkpoint").write_text('{"version":1,"size":9,"parts":4}')
    return table


def test_a_window_past_the_lookback_takes_the_checkpoint_decoded_early(tmp_path: Path) -> None:
    store = open_store(str(_table(tmp_path)))
    early = prefetch_checkpoint(store, since_ms=6, lookback=0, without_stats_from=0)
    assert early is not None and early.files.names[0].endswith(".0000000001.0000000004.parquet")
    segment = LogSegment.for_history(list_log(store))
    assert segment.checkpoint is not None and segment.checkpoint.names == early.files.names
    got = PolarsEngine(store, with_stats=False, defer_untouched=True, prefetched=early)
    frames = got.scan(segment)
    plain = PolarsEngine(store, with_stats=False, defer_untouched=True).scan(segment)
    assert_frame_equal(frames.files, plain.files)
    assert frames.deferred is not None and plain.deferred is not None
    assert frames.deferred.count == plain.deferred.count == 3
    # taken once: a second read decodes again
    assert early.take(segment.checkpoint, with_stats=False) is None


@pytest.mark.parametrize(
    ("since", "lookback", "threshold"),
    [
        pytest.param(5, 0, 0, id="the-window-starts-at-the-commit-after-it"),
        pytest.param(6, 1, 0, id="the-lookback-reaches-a-commit-not-there"),
        pytest.param(6, 0, 10**9, id="small-enough-to-be-read-with-statistics"),
    ],
)
def test_no_prefetch_unless_the_window_is_bound_to_read_it(
    tmp_path: Path, since: int, lookback: int, threshold: int
) -> None:
    store = open_store(str(_table(tmp_path)))
    assert (
        prefetch_checkpoint(store, since_ms=since, lookback=lookback, without_stats_from=threshold)
        is None
    )


def test_other_files_or_statistics_are_not_taken(tmp_path: Path) -> None:
    store = open_store(str(_table(tmp_path)))
    early = prefetch_checkpoint(store, since_ms=6, lookback=0, without_stats_from=0)
    assert early is not None
    other = CheckpointFiles(version=1, kind="classic", names=("x.checkpoint.parquet",))
    assert early.take(other, with_stats=False) is None
    again = prefetch_checkpoint(store, since_ms=6, lookback=0, without_stats_from=0)
    assert again is not None and again.take(again.files, with_stats=True) is None


def test_a_decoding_error_is_raised_where_the_checkpoint_is_taken(tmp_path: Path) -> None:
    table = _table(tmp_path)
    part = table / "_delta_log" / f"{1:020d}.checkpoint.{2:010d}.{4:010d}.parquet"
    part.write_bytes(b"not parquet")
    store = open_store(str(table))
    early = prefetch_checkpoint(store, since_ms=6, lookback=0, without_stats_from=0)
    assert early is not None
    with pytest.raises(LogCorruptError, match="unreadable parquet checkpoint"):
        early.take(early.files, with_stats=False)
