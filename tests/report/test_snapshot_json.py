"""snapshot --format json renders the files column-wise; it must equal json.dumps exactly."""

from __future__ import annotations

import json

import polars as pl
import pytest

from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.diagnostic_codes import MISSING_COMMIT_INFO
from deltaforensics.model.diagnostics import Diagnostic, info
from deltaforensics.report.document import snapshot_document
from deltaforensics.report.to_text import snapshot_json
from deltaforensics.snapshot import Snapshot


def _snapshot(
    paths: list[str | None], dates: list[str | None], *, partitioned: bool = True
) -> Snapshot:
    n = len(paths)
    md = {
        "id": "t",
        "partitionColumns": ["date"] if partitioned else [],
        "schemaString": json.dumps(
            {"type": "struct", "fields": [{"name": "date", "type": "string", "metadata": {}}]}
        ),
        "configuration": {"delta.appendOnly": "false"},
    }
    files = pl.DataFrame(
        {
            "path": paths,
            "size": [10 * i if i % 3 else None for i in range(n)],
            "dv_id": ["" if i % 2 else f"dv{i}" for i in range(n)],
            "partition_values": [{"date": d} for d in dates],
        },
        schema={
            "path": pl.String,
            "size": pl.Int64,
            "dv_id": pl.String,
            "partition_values": pl.Struct({"date": pl.String}),
        },
    )
    return Snapshot(
        version=7,
        protocol=Protocol.from_json('{"minReaderVersion":1,"minWriterVersion":2}'),
        metadata=Metadata.from_json(json.dumps(md)),
        files=files,
        app_transactions={"app": 3},
    )


def _expected(snap: Snapshot) -> tuple[str, tuple[Diagnostic, ...]]:
    diags = (info(MISSING_COMMIT_INFO, "1 commit(s) without commitInfo: 4", 4),)
    return json.dumps(snapshot_document("/t", snap, diags).to_dict(), indent=2, default=str), diags


CASES = [
    pytest.param(["a.parquet", "date=x/b.parquet", "c"], ["2024-01-01", "", None], id="plain"),
    pytest.param(['we"ird.parquet', "ü.parquet", "tab\t"], ["x", "y\\z", "é"], id="escaped"),
    pytest.param([], [], id="empty"),
    pytest.param(["a.parquet", None, "c"], [None, None, None], id="nulls"),
]


@pytest.mark.parametrize(("paths", "dates"), CASES)
@pytest.mark.parametrize("partitioned", [True, False])
def test_snapshot_json_equals_json_dumps_of_the_document(
    paths: list[str | None], dates: list[str | None], partitioned: bool
) -> None:
    snap = _snapshot(paths, dates, partitioned=partitioned)
    expected, diags = _expected(snap)
    assert snapshot_json("/t", snap, diags) == expected


def test_snapshot_json_slices_agree_with_one_piece() -> None:
    paths = [f"date=d/part-{i}.parquet" for i in range(25)]
    snap = _snapshot(paths, [f"2024-01-{i % 28 + 1:02d}" for i in range(25)])
    expected, diags = _expected(snap)
    assert snapshot_json("/t", snap, diags, slice_rows=4) == expected  # separators between slices


def test_a_null_deletion_vector_id_is_written_as_null_like_an_empty_one() -> None:
    snap = _snapshot(["a", "b", "c"], ["x", "y", "z"])
    files = snap.files.with_columns(
        pl.when(pl.col("path") == "c").then(None).otherwise(pl.col("dv_id")).alias("dv_id")
    )
    snap = Snapshot(
        version=snap.version, protocol=snap.protocol, metadata=snap.metadata, files=files
    )
    expected, diags = _expected(snap)
    assert snapshot_json("/t", snap, diags) == expected
    assert snapshot_json("/t", snap, diags, slice_rows=2) == expected
