"""Checkpoint files are decoded side by side; what comes out must not depend on which finished
first: the frames keep the files' order, and an error names the first failing file."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

from deltaforensics.analysis import open_store
from deltaforensics.errors import LogCorruptError
from deltaforensics.log.checkpoints import read_checkpoint, read_columns
from deltaforensics.log.listing import CheckpointFiles
from deltaforensics.log.storage import StoreWrapper
from tests.strategies import _ADD, _META, _PROTO, EMPTY_CHECKPOINT_METADATA

_PARTS = 4


def _part(i: int) -> str:
    return f"{1:020d}.checkpoint.{i:010d}.{_PARTS:010d}.parquet"


def _write_part(log: Path, i: int, paths: list[str]) -> None:
    meta = EMPTY_CHECKPOINT_METADATA
    rows: list[dict[str, object]] = []
    if i == 1:
        rows += [
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}, "metaData": None},
            {"protocol": None, "metaData": meta},
        ]
    rows += [
        {
            "protocol": None,
            "metaData": None,
            "add": {"path": p, "partitionValues": [], "size": 1, "modificationTime": 1},
        }
        for p in paths
    ]
    schema = pa.schema([("protocol", _PROTO), ("metaData", _META), ("add", _ADD)])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), log / _part(i))


def _checkpoint(log: Path) -> CheckpointFiles:
    names = tuple(_part(i) for i in range(1, _PARTS + 1))
    return CheckpointFiles(version=1, kind="multi-part", names=names, expected_parts=_PARTS)


def test_parts_decoded_side_by_side_keep_their_order(tmp_path: Path) -> None:
    log = tmp_path / "_delta_log"
    log.mkdir()
    sizes = [50_000, 10, 20_000, 1]  # the big first part finishes last
    for i, n in enumerate(sizes, start=1):
        _write_part(log, i, [f"p{i}-{k}" for k in range(n)])
    raw = read_checkpoint(open_store(str(tmp_path)), _checkpoint(log))
    firsts = [f["add"].struct.field("path").drop_nulls()[0] for f in raw.parquet_frames]
    assert firsts == ["p1-0", "p2-0", "p3-0", "p4-0"]
    assert [f["add"].struct.field("path").drop_nulls().len() for f in raw.parquet_frames] == sizes


@pytest.mark.parametrize("attempt", range(5))
def test_the_error_names_the_first_failing_part_not_the_first_to_fail(
    tmp_path: Path, attempt: int
) -> None:
    log = tmp_path / "_delta_log"
    log.mkdir()
    _write_part(log, 1, ["a"])
    # part 2 is a large, valid parquet file whose add column is not a struct: it fails only
    # after it has been decoded; parts 3 and 4 are not parquet at all and fail at once
    big = pa.table({"add": pa.array([f"not-a-struct-{k}" for k in range(300_000)])})
    pq.write_table(big, log / _part(2))
    (log / _part(3)).write_bytes(b"garbage")
    (log / _part(4)).write_bytes(b"")
    with pytest.raises(LogCorruptError) as err:
        read_checkpoint(open_store(str(tmp_path)), _checkpoint(log))
    assert err.value.path == _part(2), err.value
    assert "expected a struct" in err.value.reason


class _BytesOnly(StoreWrapper):
    """The same store without ``local_file``, as a remote store is: every file as bytes."""


@pytest.mark.parametrize("with_stats", [False, True])
def test_local_parts_read_in_place_equal_parts_read_as_bytes(
    tmp_path: Path, with_stats: bool
) -> None:
    log = tmp_path / "_delta_log"
    log.mkdir()
    for i in range(1, _PARTS + 1):
        _write_part(log, i, [f"p{i}-{k}" for k in range(100)])
    store = open_store(str(tmp_path))
    assert store.local_file(_part(1)) == str(log / _part(1))
    in_place = read_checkpoint(store, _checkpoint(log), with_stats=with_stats)
    as_bytes = read_checkpoint(_BytesOnly(store), _checkpoint(log), with_stats=with_stats)
    assert in_place.metadata == as_bytes.metadata and in_place.protocols == as_bytes.protocols
    for a, b in zip(in_place.parquet_frames, as_bytes.parquet_frames, strict=True):
        assert_frame_equal(a, b)


def _remove_struct() -> pa.StructType:
    return pa.struct(
        [("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_())]
    )


@pytest.mark.parametrize("where", ["first", "last", "spread", "none"])
def test_an_action_column_null_in_a_row_group_reads_as_when_decoded(
    tmp_path: Path, where: str
) -> None:
    """Row groups whose statistics show a column null throughout are not decoded: the table
    must equal the one decoding everything gives, wherever the other actions sit."""
    n, group = 1_000, 128
    at = {"first": [0, 1, 2], "last": [n - 2, n - 1], "spread": [5, 400, 999], "none": []}[where]
    rows: list[dict[str, object]] = []
    for i in range(n):
        row: dict[str, object] = {"protocol": None, "metaData": None, "add": None, "remove": None}
        if i == 0:
            row["protocol"] = {"minReaderVersion": 1, "minWriterVersion": 2}
        elif i == 1:
            row["metaData"] = EMPTY_CHECKPOINT_METADATA
        elif i in at:
            row["remove"] = {"path": f"gone-{i}", "deletionTimestamp": i, "dataChange": True}
        else:
            row["add"] = {"path": f"p-{i}", "partitionValues": [], "size": i, "modificationTime": 1}
        rows.append(row)
    schema = pa.schema(
        [("protocol", _PROTO), ("metaData", _META), ("add", _ADD), ("remove", _remove_struct())]
    )
    path = tmp_path / "cp.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=group)
    file = pq.ParquetFile(path)
    columns = ["protocol", "metaData", "remove", "add.path", "add.size"]
    expected = file.read(columns=columns)
    got = read_columns(file, columns)
    assert got.select(expected.column_names).equals(expected)
