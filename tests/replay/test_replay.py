from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from deltaforensics.analysis import load, open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.listing import list_log
from deltaforensics.model import commit_info
from deltaforensics.replay import Replay, as_of, live_at_end
from deltaforensics.replay.lifecycle import live_count_at_end
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.hostile.test_damaged_logs import METADATA
from tests.strategies import (
    _ADD,
    _META,
    _PROTO,
    EMPTY_CHECKPOINT_METADATA,
    commit_sequences,
    live_at,
    write_checkpoint,
    write_log,
)


def _keys(frame: pl.DataFrame) -> set[tuple[str, str]]:
    return set(zip(frame["path"].to_list(), frame["dv_id"].to_list(), strict=True))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commit_sequences(), st.data())
def test_replay_from_a_checkpoint_equals_replay_from_version_zero(seq, data) -> None:
    partitioned, commits = seq
    with tempfile.TemporaryDirectory() as tmp:
        log = write_log(Path(tmp), commits)
        latest = len(commits) - 1
        k = data.draw(st.integers(0, latest))
        full = load(open_store(tmp), mode="history").replay
        write_checkpoint(log, commits, k)
        from_cp = load(open_store(tmp), mode="snapshot").replay
        assert from_cp.frames.base_version == k
        for v in range(k, latest + 1):
            expected = set(live_at(commits, v))
            assert _keys(full.live_files(v)) == expected
            assert (
                _keys(load(open_store(tmp), version=v, mode="snapshot").replay.live_files(v))
                == expected
            )
        snap = from_cp.snapshot_at(latest)
        if partitioned:
            values = {p["date"] for p in snap.partition_values_logical()}
            assert values <= {"2024-01-01", "2024-01-02", None}


def test_dv_update_keeps_the_path_alive_under_a_new_key(tmp_path: Path) -> None:
    commits = [
        [
            {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7}},
            {
                "metaData": {
                    "id": "x",
                    "schemaString": '{"type":"struct","fields":[]}',
                    "partitionColumns": [],
                    "configuration": {},
                }
            },
        ],
        [
            {
                "add": {
                    "path": "a.parquet",
                    "partitionValues": {},
                    "size": 1,
                    "modificationTime": 1,
                    "dataChange": True,
                }
            }
        ],
        [
            {"remove": {"path": "a.parquet", "dataChange": True}},
            {
                "add": {
                    "path": "a.parquet",
                    "partitionValues": {},
                    "size": 1,
                    "modificationTime": 2,
                    "dataChange": True,
                    "deletionVector": {
                        "storageType": "u",
                        "pathOrInlineDv": "ab^-aqEH.-t@S}K{vb[*k^",
                        "offset": 4,
                        "sizeInBytes": 40,
                        "cardinality": 6,
                    },
                }
            },
        ],
    ]
    write_log(tmp_path, commits)
    rep = load(open_store(str(tmp_path))).replay
    assert rep.live_files(1)["dv_id"].to_list() == [""]
    assert rep.live_files(2)["dv_id"].to_list() == ["uab^-aqEH.-t@S}K{vb[*k^@4"]
    ended = rep.lifecycle.filter(pl.col("dv_id") == "")
    assert ended["end_version"].to_list() == [2] and ended["end_action"].to_list() == ["remove"]


def test_listing_is_taken_once_so_later_commits_are_ignored(tmp_path: Path) -> None:
    commits = [
        [
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {
                "metaData": {
                    "id": "x",
                    "schemaString": "{}",
                    "partitionColumns": [],
                    "configuration": {},
                }
            },
        ]
    ]
    write_log(tmp_path, commits)
    store = open_store(str(tmp_path))
    listing = list_log(store)
    (tmp_path / "_delta_log" / f"{1:020d}.json").write_text(
        '{"add":{"path":"late","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}\n'
    )
    assert load(store, listing=listing).replay.end_version == 0


def _snapshot_both_ways(
    table: str, *, with_stats: bool
) -> tuple[Replay, pl.DataFrame, pl.DataFrame]:
    """The latest snapshot's files without the lifecycle, and (second load) through it."""
    store = open_store(table)
    fast = load(store, mode="snapshot", engine=PolarsEngine(store, with_stats=with_stats)).replay
    slow = load(store, mode="snapshot", engine=PolarsEngine(store, with_stats=with_stats)).replay
    assert not slow.lifecycle.is_empty() or slow.frames.files.is_empty()
    return fast, fast.snapshot_at().files, slow.snapshot_at().files


_TABLES = [
    *corpus_tables(),
    *sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir()),
]


@pytest.mark.corpus
@pytest.mark.parametrize("with_stats", [False, True], ids=["no-stats", "stats"])
@pytest.mark.parametrize("table", _TABLES, ids=[p.name for p in _TABLES])
def test_the_latest_snapshot_without_the_lifecycle_equals_the_lifecycle_one(
    table: Path, with_stats: bool
) -> None:
    try:
        fast, quick, full = _snapshot_both_ways(str(table), with_stats=with_stats)
    except DeltaForensicsError as err:  # the documented unreconstructable logs (test_corpus)
        assert "cannot be reconstructed" in str(err)
        return
    assert "lifecycle" not in fast.__dict__, "the shortcut fell back to the lifecycle"
    assert quick.schema == full.schema
    assert_frame_equal(quick, full, check_exact=True)
    history = load(open_store(str(table)), mode="history").replay
    assert live_count_at_end(history.frames.all_files()) in (None, full.height)
    assert history.num_files_at(history.end_version) == full.height


@pytest.mark.corpus
@pytest.mark.parametrize("table", _TABLES, ids=[p.name for p in _TABLES])
def test_the_lifecycle_lists_live_files_in_key_order_at_every_version(table: Path) -> None:
    """snapshot_at does not re-sort the lifecycle's live files: they must already be in order."""
    try:
        rep = load(open_store(str(table)), mode="history").replay
    except DeltaForensicsError as err:  # the documented unreconstructable logs (test_corpus)
        assert "cannot be reconstructed" in str(err)
        return
    for v in range(rep.first_version, rep.end_version + 1):
        live = rep.live_files(v)
        assert_frame_equal(live, live.sort("path", "dv_id"), check_exact=True)
        assert live.select(pl.struct("path", "dv_id").is_duplicated().any()).item() is False


def _file(path: str, size: int, dv: str | None = None) -> dict[str, object]:
    out: dict[str, object] = {
        "path": path,
        "partitionValues": {},
        "size": size,
        "modificationTime": size,
        "dataChange": True,
    }
    if dv is not None:
        out["deletionVector"] = {
            "storageType": "i",
            "pathOrInlineDv": dv,
            "offset": None,
            "sizeInBytes": 4,
            "cardinality": 1,
        }
    return out


_CHECKPOINT_REMOVE = pa.struct(
    [("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_())]
)


def _write_checkpoint_rows(log: Path, version: int, rows: list[dict[str, object]]) -> None:
    """A classic checkpoint holding exactly ``rows`` (after protocol and metaData): unlike a
    writer's, it may repeat a key, as a careless or older writer's checkpoint can."""
    meta = EMPTY_CHECKPOINT_METADATA
    empty = {"protocol": None, "metaData": None, "add": None, "remove": None}
    table = pa.Table.from_pylist(
        [
            {**empty, "protocol": {"minReaderVersion": 3, "minWriterVersion": 7}},
            {**empty, "metaData": meta},
            *({**empty, **r} for r in rows),
        ],
        schema=pa.schema(
            [
                ("protocol", _PROTO),
                ("metaData", _META),
                ("add", _ADD),
                ("remove", _CHECKPOINT_REMOVE),
            ]
        ),
    )
    pq.write_table(table, log / f"{version:020d}.checkpoint.parquet")


def _checkpoint_add(path: str, size: int, dv: str | None = None) -> dict[str, object]:
    f = _file(path, size, dv)
    f["partitionValues"] = []
    if dv is None:
        f["deletionVector"] = None
    f["stats"] = None
    return {"add": f}


def _log_with_checkpoint(root: Path, checkpoint_rows: list[dict[str, object]]) -> str:
    """Version 0 (protocol, metaData), a checkpoint at 1 holding ``checkpoint_rows``, then
    commits 2 and 3 that re-add, remove and re-key files the checkpoint holds."""
    setup = [
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7}},
        METADATA,
    ]
    commits = [
        setup,
        [{"add": _file("z", 1)}],
        [
            {"remove": {"path": "readded", "dataChange": True}},
            {"add": _file("readded", 20)},
            {"remove": {"path": "removed", "dataChange": True}},
            {"remove": {"path": "rekeyed", "dataChange": True}},
            {"add": _file("rekeyed", 30, dv="dv1")},
            {"add": _file("new", 40)},
            {"add": _file("new-then-gone", 50)},
        ],
        [
            {"add": _file("new", 41)},
            {"remove": {"path": "new-then-gone", "dataChange": True}},
        ],
    ]
    log = write_log(root, commits)
    _write_checkpoint_rows(log, 1, checkpoint_rows)
    return str(root)


_HELD = [
    _checkpoint_add("kept", 1),
    _checkpoint_add("readded", 2),
    _checkpoint_add("removed", 3),
    _checkpoint_add("rekeyed", 4),
    _checkpoint_add("kept-with-dv", 5, dv="dv0"),
    {"remove": {"path": "tombstone", "deletionTimestamp": 1, "dataChange": True}},
]


def _expected_live() -> list[tuple[str, str, int, int]]:
    return [
        ("kept", "", 1, 1),
        ("kept-with-dv", "idv0", 5, 1),
        ("new", "", 41, 3),
        ("readded", "", 20, 2),
        ("rekeyed", "idv1", 30, 2),
    ]


def _rows(files: pl.DataFrame) -> list[tuple[str, str, int, int]]:
    return list(files.select("path", "dv_id", "size", "added_version").iter_rows())


def test_commits_that_re_add_remove_and_re_key_checkpoint_files_end_them(tmp_path: Path) -> None:
    table = _log_with_checkpoint(tmp_path, _HELD)
    fast, quick, full = _snapshot_both_ways(table, with_stats=False)
    assert live_at_end(fast.frames.files) is not None
    assert "lifecycle" not in fast.__dict__
    assert _rows(quick) == _expected_live()
    assert quick["end_version"].null_count() == quick.height
    assert_frame_equal(quick, full, check_exact=True)
    again = fast.snapshot_at(fast.end_version).files  # explain asks twice: computed once
    assert again is quick and "lifecycle" not in fast.__dict__


@pytest.mark.parametrize(
    ("repeat", "live_size"),
    [
        pytest.param(_checkpoint_add("kept", 9), 9, id="two-adds-the-later-wins"),
        pytest.param(
            {"remove": {"path": "kept", "deletionTimestamp": 1, "dataChange": True}},
            1,
            id="add-and-remove-the-add-wins",
        ),
    ],
)
def test_a_key_repeated_inside_the_checkpoint_is_replayed_by_the_lifecycle(
    tmp_path: Path, repeat: dict[str, object], live_size: int
) -> None:
    table = _log_with_checkpoint(tmp_path, [*_HELD, repeat])
    fast, quick, full = _snapshot_both_ways(table, with_stats=False)
    assert live_at_end(fast.frames.files) is None
    assert_frame_equal(quick, full, check_exact=True)
    assert [r[2] for r in _rows(quick) if r[0] == "kept"] == [live_size]


@pytest.mark.parametrize(
    ("extra", "counted"),
    [
        pytest.param([], True, id="checkpoint-keys-unique-counted-without-sorting"),
        pytest.param([_checkpoint_add("kept", 9)], False, id="repeated-key-falls-back"),
    ],
)
def test_the_count_of_live_files_is_the_snapshots(
    tmp_path: Path, extra: list[dict[str, object]], counted: bool
) -> None:
    table = _log_with_checkpoint(tmp_path, [*_HELD, *extra])
    store = open_store(table)
    rep = load(store, mode="snapshot").replay
    count = live_count_at_end(rep.frames.all_files())
    assert (count is not None) == counted
    n = rep.num_files_at(rep.end_version)
    if counted:  # neither the live rows nor the lifecycle were built to count them
        assert n == count == len(_expected_live())
        assert "_live_at_end" not in rep.__dict__ and "lifecycle" not in rep.__dict__
    again = load(store, mode="snapshot").replay
    assert n == again.snapshot_at().num_files == again.live_files(again.end_version).height
    assert rep.num_files_at(2) == again.live_files(2).height  # older versions: the lifecycle


def test_an_older_snapshot_still_comes_from_the_lifecycle(
    tmp_path: Path,
) -> None:
    rep = load(open_store(_log_with_checkpoint(tmp_path, _HELD)), mode="snapshot").replay
    older = rep.snapshot_at(2).files
    assert "lifecycle" in rep.__dict__
    assert [r[0] for r in _rows(older)] == [
        "kept",
        "kept-with-dv",
        "new",
        "new-then-gone",
        "readded",
        "rekeyed",
    ]
    assert older.filter(pl.col("path") == "new")["size"].to_list() == [40]
    assert_frame_equal(
        rep.snapshot_at().files, rep.live_files(rep.end_version).sort("path", "dv_id")
    )


@pytest.mark.corpus
@pytest.mark.parametrize("table", _TABLES, ids=lambda p: p.name)
def test_live_files_among_equals_cutting_live_files(table: Path) -> None:
    """The binary-searched lookup returns exactly the rows of ``live_files`` with those paths,
    at every version, for paths that are live, removed, re-added or never existed."""
    try:
        rep = load(open_store(str(table)), mode="history").replay
    except DeltaForensicsError:
        return  # the documented unreconstructable logs (test_corpus)
    paths = rep.lifecycle["path"].unique().sort()
    picks = pl.concat([paths.gather_every(3), pl.Series("path", ["no/such/file.parquet", None])])
    for v in range(rep.first_version, rep.end_version + 1):
        expected = rep.live_files(v).filter(pl.col("path").is_in(picks.implode()))
        got = rep.live_files_among(v, picks)
        assert got.sort("path", "dv_id").equals(expected.sort("path", "dv_id")), v
        assert got.height == expected.height


@pytest.mark.corpus
@pytest.mark.parametrize("table", _TABLES, ids=[p.name for p in _TABLES])
def test_the_commit_table_is_the_same_parsed_in_slices(
    table: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """commitInfo texts are decoded a slice of rows at a time: a slice boundary changes
    nothing (three rows at a time against all at once)."""
    try:
        frames = load(open_store(str(table)), mode="history").replay.frames
    except DeltaForensicsError as err:  # the documented unreconstructable logs (test_corpus)
        assert "cannot be reconstructed" in str(err)
        return
    whole = Replay("t", frames).commits
    monkeypatch.setattr(commit_info, "_ROWS_AT_ONCE", 3)
    assert_frame_equal(Replay("t", frames).commits, whole, check_exact=True)


@pytest.mark.corpus
@pytest.mark.parametrize("held_up_to", [0, None], ids=["decoded-apart", "held-when-small"])
@pytest.mark.parametrize("table", _TABLES, ids=[p.name for p in _TABLES])
def test_the_commit_details_decoded_apart_equal_one_decoding_of_every_field(
    table: Path, held_up_to: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transactions read the commit table without the fields only a history shows
    (``core_commits``); the history's table adds those decoded from the same texts (or, for a
    small table, both come from one decoding). Both equal one decoding of every field at once,
    column for column and in its order."""
    if held_up_to is not None:  # as a log of more commits than a small table holds is read
        monkeypatch.setattr(as_of, "_DETAILS_HELD_UP_TO", held_up_to)
    try:
        rep = load(open_store(str(table)), mode="history").replay
    except DeltaForensicsError as err:  # the documented unreconstructable logs (test_corpus)
        assert "cannot be reconstructed" in str(err)
        return
    whole, core = rep.commits, rep.core_commits
    every = commit_info.with_commit_info_columns(whole.select("commit_info"))
    assert whole.columns[1 : 2 + len(commit_info.TYPED_COLUMNS)] == every.columns
    assert_frame_equal(whole.select(every.columns), every, check_exact=True)
    assert_frame_equal(core, whole.drop(commit_info.DETAIL_COLUMNS), check_exact=True)
    assert not set(commit_info.DETAIL_COLUMNS) & set(core.columns)
