from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltaforensics.analysis import load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.listing import list_log
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.strategies import commit_sequences, live_at, write_checkpoint, write_log


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


_ALL_TABLES = [
    *corpus_tables(),
    *sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir()),
]


@pytest.mark.corpus
@pytest.mark.parametrize("table", _ALL_TABLES, ids=lambda p: p.name)
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
