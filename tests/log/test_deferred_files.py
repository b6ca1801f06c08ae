"""Checkpoint adds no commit touches are left out of ``files`` (issue #23): what the analysis
asks of the frames must not change. Every real log with a checkpoint is read both ways, and a
multi-part checkpoint shows the cases the shortcut must refuse."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from deltaforensics.analysis import load, open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.listing import list_log
from deltaforensics.log.segment import LogSegment
from deltaforensics.replay import Replay
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.log.test_checkpoints import _write_part

_TABLES = [
    *corpus_tables(),
    *sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir()),
]
_SIDES = ("metadata", "protocols", "txns", "domains", "commit_infos", "cdc", "unknown")


def _segments(table: Path) -> list[LogSegment]:
    listing = list_log(open_store(str(table)))
    try:
        found = [LogSegment.for_history(listing), LogSegment.for_version(listing, None)]
    except DeltaForensicsError:
        return []
    return [s for s in found if s.checkpoint is not None]


@pytest.mark.corpus
@pytest.mark.parametrize("table", _TABLES, ids=[p.name for p in _TABLES])
def test_the_frames_with_adds_left_out_are_the_frames(table: Path) -> None:
    store = open_store(str(table))
    for segment in _segments(table):
        for with_stats in (False, True):
            try:
                whole = PolarsEngine(store, with_stats=with_stats).scan(segment)
            except DeltaForensicsError:
                continue  # an unreadable checkpoint: the loader's fallback, tested elsewhere
            lean = PolarsEngine(store, with_stats=with_stats, defer_untouched=True).scan(segment)
            assert_frame_equal(lean.all_files(), whole.files, check_exact=True)
            for name in _SIDES:
                assert_frame_equal(getattr(lean, name), getattr(whole, name), check_exact=True)
            if lean.deferred is None:
                continue
            kept = lean.files.filter(pl.col("source") == "checkpoint")
            assert (
                kept.height + lean.deferred.count
                == whole.files.filter(pl.col("source") == "checkpoint").height
            )
            a, b = Replay(store.uri, lean), Replay(store.uri, whole)
            assert a.num_files_at(a.end_version) == b.snapshot_at().num_files
            assert "lifecycle" not in a.__dict__, "counting read the adds left out"
            removed = lean.files.filter(
                (pl.col("source") == "commit") & (pl.col("action") == "remove")
            )["path"]
            for v in sorted(set(lean.files["version"].to_list()))[:5]:
                assert_frame_equal(
                    a.live_files_among(v, removed), b.live_files_among(v, removed), check_exact=True
                )
            assert "lifecycle" not in a.__dict__, "a commit's removed files read the adds left out"


def multi_part_table(tmp_path: Path, parts: list[list[str]]) -> Path:
    log = tmp_path / "_delta_log"
    log.mkdir()
    for i, paths in enumerate(parts, start=1):
        _write_part(log, i, paths)
    commit = '{"commitInfo":{"timestamp":5,"operation":"DELETE"}}\n'
    commit += '{"remove":{"path":"p1-0","deletionTimestamp":5,"dataChange":true}}\n'
    (log / f"{2:020d}.json").write_text(commit)
    return tmp_path


def test_adds_no_commit_touches_are_counted_not_read(tmp_path: Path) -> None:
    table = multi_part_table(tmp_path, [["p1-0", "p1-1"], ["p2-0"], [], ["p4-0", "p4-1"]])
    rep = load(open_store(str(table))).replay
    deferred = rep.frames.deferred
    assert deferred is not None and deferred.count == 4
    kept = rep.frames.files.filter(pl.col("source") == "checkpoint")
    assert kept.select("path", "seq").rows() == [("p1-0", 2)]  # its row in the whole part
    assert rep.num_files_at(2) == 4 and "lifecycle" not in rep.__dict__
    assert rep.live_files_among(2, pl.Series(["p1-0"])).is_empty()  # removed at v2
    assert "lifecycle" not in rep.__dict__
    # a path left out is found all the same: the lifecycle of every file is built for it
    assert rep.live_files_among(2, pl.Series(["p4-0"]))["path"].to_list() == ["p4-0"]
    assert "lifecycle" in rep.__dict__
    assert sorted(rep.snapshot_at().files["path"].to_list()) == ["p1-1", "p2-0", "p4-0", "p4-1"]
    seqs = rep.all_files().filter(pl.col("source") == "checkpoint")["seq"].to_list()
    assert seqs == [2, 3, 0, 0, 1]  # part 1 opens with its protocol and metaData


def test_a_path_repeated_across_parts_keeps_every_row(tmp_path: Path) -> None:
    """Two live adds of one path: the lifecycle must order them, so nothing is left out."""
    table = multi_part_table(tmp_path, [["p1-0", "twice"], ["p2-0"], ["twice"], []])
    frames = load(open_store(str(table))).replay.frames
    assert frames.deferred is None
    assert frames.files.filter(pl.col("source") == "checkpoint").height == 4
