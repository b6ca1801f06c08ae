"""A table written straight to Azurite by delta-rs, with a real conflict in its history."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from adlfs import AzureBlobFileSystem

from deltaforensics.log.fsspec_store import FsspecLogStore
from tests.azure.conftest import ACCOUNT, KEY

deltalake = pytest.importorskip("deltalake")

pytestmark = [pytest.mark.azurite, pytest.mark.engine]

URI = "az://lake/tables/conflicts"


def _rows(date: str, ids: range) -> pa.Table:
    return pa.table({"date": [date] * len(ids), "user_id": list(ids)})


@pytest.fixture(scope="module")
def delta_rs_options(azurite: Any) -> dict[str, str]:
    """The object_store spelling delta-rs users already have; we must accept it as is."""
    return {
        "azure_storage_account_name": ACCOUNT,
        "azure_storage_account_key": KEY,
        "azure_storage_endpoint": azurite.blob_endpoint,
        "allow_http": "true",
    }


@pytest.fixture(scope="module")
def conflicted_table(blob_fs: AzureBlobFileSystem, delta_rs_options: dict[str, str]) -> str:
    """v0-v2 one partition each; then a stale delete commits behind an append (v4 read v2),
    a fresh delete commits (v5), and an identical stale delete fails on ConcurrentDeleteRead."""
    from deltalake import DeltaTable, write_deltalake
    from deltalake.exceptions import CommitFailedError

    if not blob_fs.exists("lake"):
        blob_fs.mkdir("lake")
    so = delta_rs_options
    write_deltalake(URI, _rows("2024-01-01", range(10)), partition_by=["date"], storage_options=so)
    write_deltalake(URI, _rows("2024-01-02", range(10)), mode="append", storage_options=so)
    write_deltalake(URI, _rows("2024-01-03", range(10)), mode="append", storage_options=so)
    a, b = DeltaTable(URI, storage_options=so), DeltaTable(URI, storage_options=so)
    write_deltalake(a, _rows("2024-01-04", range(3)), mode="append")  # v3
    b.delete("date = '2024-01-01' AND user_id < 3")  # v4, read at v2: commits
    stale = DeltaTable(URI, storage_options=so)
    DeltaTable(URI, storage_options=so).delete("date = '2024-01-02' AND user_id < 3")  # v5
    with pytest.raises(CommitFailedError, match="concurrent transaction deleted data"):
        stale.delete("date = '2024-01-02' AND user_id < 3")
    return URI


def _commit_info(raw: bytes) -> dict[str, Any]:
    for line in raw.decode().splitlines():
        action = json.loads(line) if line.strip() else {}
        if "commitInfo" in action:
            info: dict[str, Any] = action["commitInfo"]
            return info
    return {}


def test_our_store_reads_what_delta_rs_wrote_including_a_stale_commit(
    conflicted_table: str, blob_fs: AzureBlobFileSystem, delta_rs_options: dict[str, str]
) -> None:
    store = FsspecLogStore.from_uri(conflicted_table, delta_rs_options)
    commits = sorted(f.name for f in store.list_log() if f.name.endswith(".json"))
    assert commits == [f"{v:020d}.json" for v in range(6)]  # the failed delete left nothing
    raw = store.read_many(commits)
    direct = blob_fs.cat([f"lake/tables/conflicts/_delta_log/{n}" for n in commits])
    assert [raw[n] for n in commits] == [
        direct[f"lake/tables/conflicts/_delta_log/{n}"] for n in commits
    ]

    read_versions = {v: _commit_info(raw[n]).get("readVersion") for v, n in enumerate(commits)}
    assert read_versions[4] == 2  # committed although v3 landed after its snapshot
    assert any(rv is not None and rv < v - 1 for v, rv in read_versions.items())
    assert _commit_info(raw[commits[4]])["operation"] == "DELETE"


def test_every_url_form_reads_the_delta_rs_table(
    conflicted_table: str, delta_rs_options: dict[str, str]
) -> None:
    forms = [
        "az://lake/tables/conflicts",
        "abfs://lake/tables/conflicts",
        f"abfss://lake@{ACCOUNT}.dfs.core.windows.net/tables/conflicts",
    ]
    reads = [
        FsspecLogStore.from_uri(uri, delta_rs_options).read("00000000000000000004.json")
        for uri in forms
    ]
    assert reads[0] == reads[1] == reads[2]
