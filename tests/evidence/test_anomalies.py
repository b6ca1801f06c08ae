"""Anomalies: the delta-rs ones from real deltalake logs, the others on built logs."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake

from deltaforensics.analysis import analyze, open_store
from tests.conftest import SAMPLE_LOGS
from tests.support import LogBuilder


def _codes(path: Path | str) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for a in analyze(open_store(str(path)), recommendations=False).anomalies:
        out.setdefault(a.code, []).append(a.to_dict())
    return out


def _rows(date: str, ids: range) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "date": [date] * len(ids)})


@pytest.mark.engine
def test_concurrent_optimize_on_deltalake_duplicates_data_and_is_reported(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, _rows("2024-01-01", range(5)), partition_by=["date"])
    write_deltalake(path, _rows("2024-01-01", range(5, 10)), mode="append")
    a, b = DeltaTable(path), DeltaTable(path)
    a.optimize.compact()
    b.optimize.compact()  # stale: delta-rs 1.6.6 lets it commit (field notes O5)
    assert len(DeltaTable(path).to_pyarrow_table()) == 20  # the duplication is real
    found = _codes(path)["AN001"]
    assert found[0]["versions"] == [2, 3] and len(found[0]["files"]) == 2
    assert found[0]["severity"] == "error"


@pytest.mark.engine
def test_a_stale_full_overwrite_on_deltalake_is_a_lost_overwrite(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, _rows("2024-01-01", range(5)), partition_by=["date"])
    stale = DeltaTable(path)
    write_deltalake(path, _rows("2024-01-02", range(100, 103)), mode="append")  # v1
    write_deltalake(stale, _rows("2024-01-03", range(500, 502)), mode="overwrite")  # v2 from v0
    (found,) = _codes(path)["AN002"]
    assert found["versions"] == [1, 2]
    assert any("date=2024-01-02" in f for f in found["files"])  # type: ignore[union-attr]


@pytest.mark.engine
def test_two_writers_with_one_app_id_on_deltalake(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, _rows("2024-01-01", range(2)), partition_by=["date"])
    for i, who in enumerate(["alice", "bob", "alice"]):
        write_deltalake(
            path,
            _rows("2024-01-01", range(10 + i, 11 + i)),
            mode="append",
            commit_properties=CommitProperties(
                app_transactions=[Transaction("sink-1", i)], custom_metadata={"userName": who}
            ),
        )
    codes = _codes(path)
    assert "AN007" in codes and codes["AN007"][0]["versions"] == [1, 2, 3]
    assert "AN009" in codes  # userName came from caller-supplied custom metadata


def test_the_deltalake_sample_shows_both_delta_rs_anomalies() -> None:
    codes = _codes(SAMPLE_LOGS / "deltars_concurrent_optimize")
    assert {"AN001", "AN002"} <= set(codes)


def test_built_logs_show_the_other_anomalies(tmp_path: Path) -> None:
    b = LogBuilder(
        tmp_path / "t",
        partition_by=["date"],
        writer="databricks-14.3",
        configuration={"delta.isolationLevel": "WriteSerializable"},
    )
    b.create()
    b.write(add=[b.file("date=A")], read_version=0, blind=True)  # v1
    b.write(add=[b.file("date=A")], writer="delta-rs-1.6.6")  # v2: unmarked append
    b.set_properties({"delta.logRetentionDuration": "interval 31 days"}, read_version=2)  # v3
    b.update(
        "date = 'A'", remove=b.live_files("date=A")[:1], add=[b.file("date=A")], read_version=1
    )  # v4 raced v2, v3
    b.write(add=[b.file("date=B")], read_version=7, blind=True)  # v5: readVersion >= version
    codes = _codes(tmp_path / "t")
    assert codes["AN003"][0]["versions"] == [5]
    assert 4 in codes["AN004"][0]["versions"] and 3 in codes["AN004"][0]["versions"]
    assert codes["AN005"][0]["versions"][:2] == [4, 2]
    assert any(
        "delta-rs" in str(a["reason"]) for a in codes["AN006"]
    )  # WriteSerializable ignored by delta-rs


def test_a_commit_gap_is_an_anomaly() -> None:
    from tests.conftest import CORPUS

    codes = _codes(CORPUS / "deltars__err_logs_table_b")
    assert codes["AN008"][0]["versions"] == [7]
