"""Issue #23: the commits are normalised chunk by chunk, and where the chunks end must not show.

The polars engine reading a log in chunks of 1, 3 or the default number of commit files
gives the frames that one raw frame of every commit, normalised at once, gives: the same
rows in the same order, ``seq`` counted over the whole log, the partition values typed by
every metaData of the segment (even one that comes after a file's chunk) and the lines of
unknown actions kept.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from deltaforensics.analysis import open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.assembly import assemble, segment_partition_columns
from deltaforensics.log.checkpoints import read_checkpoint
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_reader import read_commits
from deltaforensics.log.commit_schemas import without_file_stats
from deltaforensics.log.listing import list_log
from deltaforensics.log.normalize import file_actions
from deltaforensics.log.segment import LogSegment
from deltaforensics.log.storage import LogStore
from deltaforensics.model.schemas import ActionFrames
from tests.conftest import SAMPLE_LOGS, corpus_tables

FRAMES = ("files", "commit_infos", "metadata", "protocols", "txns", "domains", "cdc", "unknown")
SCALARS = ("base_version", "end_version", "partition_columns", "commit_versions")
CHUNK_FILES = (1, 3, None)  # None: the engine's default

PROTOCOL = '{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}'
INFO = '{"commitInfo":{"timestamp":%d,"operation":"WRITE","operationParameters":{}}}'


def metadata(*partition_columns: str) -> str:
    columns = ",".join(f'"{c}"' for c in partition_columns)
    return (
        '{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},'
        '"schemaString":"{\\"type\\":\\"struct\\",\\"fields\\":[]}",'
        f'"partitionColumns":[{columns}],"configuration":{{}},"createdTime":1}}}}'
    )


def add(path: str, values: str, stats: str = '{\\"numRecords\\":1}') -> str:
    return (
        f'{{"add":{{"path":"{path}","partitionValues":{values},"size":1,'
        f'"modificationTime":1,"dataChange":true,"stats":"{stats}"}}}}'
    )


def remove(path: str, values: str) -> str:
    return (
        f'{{"remove":{{"path":"{path}","partitionValues":{values},"size":1,'
        '"deletionTimestamp":2,"dataChange":true}}'
    )


DOMAIN = '{"domainMetadata":{"domain":"d","configuration":"{}","removed":false}}'
# Partitioned by a, then (v4) by a and b. The add of v1 already names b: one raw frame of the
# whole log decodes it with b, so reading v1 before v4's metaData must not lose it. v3 holds an
# action Delta does not define, between two file actions.
WIDENING_LOG = [
    [INFO % 0, PROTOCOL, metadata("a")],
    [INFO % 1, add("p1", '{"a":"1","b":"2"}'), add("p2", '{"a":"1"}')],
    [INFO % 2, remove("p1", '{"a":"1"}'), '{"txn":{"appId":"s","version":1}}'],
    [INFO % 3, add("p3", '{"a":"2"}'), '{"futureAction":{"x":1}}', remove("p2", '{"a":"1"}')],
    [INFO % 4, metadata("a", "b")],
    [INFO % 5, add("p4", '{"a":"3","b":"x"}'), DOMAIN],
    [INFO % 6],
    [INFO % 7, add("p5", '{"a":"4","b":null}'), remove("p3", '{"a":"2"}')],
]


def write_log(root: Path, commits: list[list[str]]) -> Path:
    log = root / "_delta_log"
    log.mkdir(parents=True)
    for version, lines in enumerate(commits):
        (log / f"{version:020d}.json").write_text("\n".join(lines) + "\n")
    return root


def tables() -> list[Path]:
    samples = sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
    return [*corpus_tables(), *samples]


def one_raw_frame(store: LogStore, segment: LogSegment, *, with_stats: bool) -> ActionFrames:
    """The frames as made before issue #23: every commit in one raw frame, normalised once."""
    checkpoint = (
        read_checkpoint(store, segment.checkpoint, with_stats=with_stats)
        if segment.checkpoint
        else None
    )
    got = store.read_many([name for _, name in segment.commits])
    blobs = [(v, name, got[name]) for v, name in segment.commits]
    raw = read_commits(blobs, with_stats=with_stats)
    commits = CommitActions.from_raw(raw)
    columns = segment_partition_columns(checkpoint, commits)
    assert_frame_equal(
        commits.files(columns),
        file_actions(raw, source="commit", partition_columns=columns, version=pl.col("_v")),
        check_exact=True,
    )
    return assemble(segment, checkpoint, commits, columns, blobs)


def assert_same_frames(expected: ActionFrames, got: ActionFrames, label: str) -> None:
    for name in SCALARS:
        assert getattr(got, name) == getattr(expected, name), f"{label}: {name}"
    for name in FRAMES:
        try:  # not sorted: the order of the rows is part of the frames
            assert_frame_equal(getattr(got, name), getattr(expected, name), check_exact=True)
        except AssertionError as exc:
            raise AssertionError(f"{label}: ActionFrames.{name}: {exc}") from None


def engine(store: LogStore, with_stats: bool, chunk_files: int | None) -> PolarsEngine:
    if chunk_files is None:
        return PolarsEngine(store, with_stats=with_stats)
    return PolarsEngine(store, with_stats=with_stats, chunk_files=chunk_files)


def assert_chunks_do_not_show(root: Path, *, with_stats: bool = True) -> None:
    store = open_store(str(root))
    try:
        segment = LogSegment.for_history(list_log(store))
    except DeltaForensicsError:
        return  # no segment to read: nothing chunked
    try:
        expected = one_raw_frame(store, segment, with_stats=with_stats)
    except DeltaForensicsError as exc:  # the engine must fail the same way, whatever the chunk
        for n in CHUNK_FILES:
            with pytest.raises(type(exc)) as raised:
                engine(store, with_stats, n).scan(segment)
            assert str(raised.value) == str(exc)
        return
    for n in CHUNK_FILES:
        got = engine(store, with_stats, n).scan(segment)
        assert_same_frames(expected, got, f"chunk_files={n}")


def test_a_widening_partition_and_an_unknown_action_across_chunks(tmp_path: Path) -> None:
    root = write_log(tmp_path, WIDENING_LOG)
    assert_chunks_do_not_show(root)
    frames = PolarsEngine(open_store(str(root)), chunk_files=1).scan(
        LogSegment.for_history(list_log(open_store(str(root))))
    )
    assert frames.partition_columns == ("a", "b")
    values = frames.files.select("path", "seq", pl.col("partition_values").struct.field("b"))
    assert values.rows()[:2] == [("p1", 4, "2"), ("p2", 5, None)]  # seq over the whole log
    assert frames.unknown.rows() == [(3, '{"futureAction":{"x":1}}')]
    assert frames.files["action"].to_list() == ["add"] * 5 + ["remove"] * 3


def test_without_stats_too(tmp_path: Path) -> None:
    root = write_log(tmp_path, WIDENING_LOG)
    assert_chunks_do_not_show(root, with_stats=False)
    raw = read_commits([(0, "0.json", add("p", "{}").encode())])
    assert (
        without_file_stats(raw)["add"].struct.fields
        == read_commits([(0, "0.json", add("p", "{}").encode())], with_stats=False)[
            "add"
        ].struct.fields
    )


def test_a_declined_chunk_in_the_middle_reads_the_whole_log_as_one(tmp_path: Path) -> None:
    """A blank line in v3 sends every file the general way: the same frames still."""
    commits = [list(lines) for lines in WIDENING_LOG]
    commits[3] = [*commits[3][:2], "", *commits[3][2:]]
    assert_chunks_do_not_show(write_log(tmp_path, commits))


@pytest.mark.parametrize("table", tables(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_table_and_sample_reads_the_same_in_any_chunks(table: Path) -> None:
    assert_chunks_do_not_show(table)
