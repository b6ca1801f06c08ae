"""Partition values and paths of unusual JSON types, on the polars fast path and on the exact
reader alike: the live files and their partition values are those the real ``deltalake``
reports (it reads every scalar as its JSON text, as Jackson does), or an error naming the
field where both refuse a container. A path that is a number is refused too, where deltalake
and Jackson read ``5`` as ``"5"`` (issue #32: a path is a string in every command).

Each log is written by hand (no writer produces these) with three plain commits around the
odd one, so the odd commit is parsed with its neighbours in one buffer; the ``exact`` variant
adds a tab escape to its stats, which sends that file through the line-by-line reader.
"""

from __future__ import annotations

import json
from pathlib import Path

import deltalake
import pyarrow as pa
import pytest

from tests.hostile.test_damaged_logs import PROTOCOL, lines, run, write


def _metadata(columns: list[str]) -> dict[str, object]:
    fields = [
        {"name": c, "type": "string", "nullable": True, "metadata": {}} for c in [*columns, "v"]
    ]
    return {
        "metaData": {
            "id": "t",
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps({"type": "struct", "fields": fields}),
            "partitionColumns": columns,
            "configuration": {},
            "createdTime": 1,
        }
    }


def _add(path: object, values: dict[str, object], exact: bool) -> dict[str, object]:
    stats = '{"numRecords":1,"note":"\\t"}' if exact else '{"numRecords":1}'
    return {
        "add": {
            "path": path,
            "partitionValues": values,
            "size": 1,
            "modificationTime": 1,
            "dataChange": True,
            "stats": stats,
        }
    }


CASES: dict[str, tuple[object, dict[str, object]]] = {
    "value-holding-json-object-text": ("d=x/odd.parquet", {"d": '{"x":1}'}),
    "value-holding-json-array-text": ("d=x/odd.parquet", {"d": "[1,2]"}),
    "value-a-number": ("d=1/odd.parquet", {"d": 1}),
    "value-a-float": ("d=1/odd.parquet", {"d": 1.5}),
    "value-true": ("d=1/odd.parquet", {"d": True}),
    "value-null": ("d=1/odd.parquet", {"d": None}),
    "value-empty-string": ("d=1/odd.parquet", {"d": ""}),
    "path-numeric-string": ("5", {"d": "a"}),
    "path-starting-with-a-bracket": ("[1]", {"d": "a"}),
}


def _log(tmp_path: Path, path: object, values: dict[str, object], exact: bool) -> Path:
    plain = [lines(_add(f"d=a/p{i}.parquet", {"d": "a"}, False)) for i in range(3)]
    odd = lines(_add(path, values, exact))
    return write(tmp_path, [lines(PROTOCOL, _metadata(["d"])), *plain[:2], odd, plain[2]])


def _deltalake_files(root: Path) -> list[tuple[str, str | None]]:
    actions = pa.table(deltalake.DeltaTable(str(root)).get_add_actions(flatten=True))
    rows = actions.select(["path", "partition.d"]).to_pylist()
    return sorted((r["path"], r["partition.d"]) for r in rows)


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
@pytest.mark.parametrize("case", list(CASES))
def test_odd_scalars_read_as_deltalake_reads_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, exact: bool
) -> None:
    path, values = CASES[case]
    root = _log(tmp_path, path, values, exact)
    code, out, err = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0, err
    ours = sorted((f["path"], f["partition_values"]["d"]) for f in json.loads(out)["files"])
    # deltalake writes an empty partition value as null; so does the snapshot
    assert ours == _deltalake_files(root)


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"d": {"x": 1}}, "add.partitionValues.d"),
        ({"d": [1, 2]}, "add.partitionValues.d"),
    ],
    ids=["nested-object", "list"],
)
def test_a_container_as_a_partition_value_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    values: dict[str, object],
    field: str,
    exact: bool,
) -> None:
    root = _log(tmp_path, "d=x/odd.parquet", values, exact)
    with pytest.raises(Exception):  # noqa: B017  deltalake refuses it too (any error)
        deltalake.DeltaTable(str(root)).get_add_actions()
    code, out, err = run(capsys, "snapshot", str(root))
    assert code == 3, err
    first = err.strip().splitlines()[0]
    assert "00000000000000000003.json" in first and "version 3" in first and field in first
    assert out == ""


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
@pytest.mark.parametrize("path", [5, 5.5, True], ids=["int", "float", "bool"])
def test_a_path_that_is_not_a_string_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: object, exact: bool
) -> None:
    root = _log(tmp_path, path, {"d": "a"}, exact)
    code, out, err = run(capsys, "snapshot", str(root))
    assert code == 3, err
    first = err.strip().splitlines()[0]
    assert "00000000000000000003.json" in first and "version 3" in first and "add.path" in first
    assert out == ""
