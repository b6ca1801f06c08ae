"""The same listing and bytes through every store (ADLS on Azurite, S3 on moto's server, GCS on
gcp-storage-emulator: EMULATORS, started by tests/stores/conftest.py) as from local disk, for
every URL form each store accepts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import pytest

from deltaforensics.log.fsspec_store import FsspecLogStore
from tests.azure.test_store_parity import _assert_same_log as assert_same_log
from tests.azure.test_store_parity import _by_name
from tests.stores.conftest import CORPUS_TABLES, Store

pytestmark = [pytest.mark.objectstore, pytest.mark.corpus]

FILESYSTEMS = {
    "adls": "AzureLogFileSystem",
    "s3": "S3LogFileSystem",
    "gcs": "GcsLogFileSystem",
}


@pytest.mark.parametrize("table", CORPUS_TABLES)
def test_listing_and_bytes_equal_local_disk_in_every_url_form(
    table: str, store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    local = FsspecLogStore.from_uri(str(corpus_on(store)[table]))
    for n, form in enumerate(store.forms):
        uri = store.url(f"tables/{table}", form)
        remote = FsspecLogStore.from_uri(uri, store.options)
        assert type(remote.fs).__name__ == FILESYSTEMS[store.kind]
        assert remote.uri == uri
        if n == 0:  # every byte once; the other forms list and read the newest commit
            assert_same_log(remote, local)
        else:
            newest = max(f.name for f in local.list_log() if f.name.endswith(".json"))
            assert _by_name(remote.list_log()) == _by_name(local.list_log())
            assert remote.read(newest) == local.read(newest)


def test_nested_sidecars_staged_commits_and_junk_folders_are_listed(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    corpus_on(store)

    def names(table: str) -> set[str]:
        uri = store.url(f"tables/{table}")
        return {f.name for f in FsspecLogStore.from_uri(uri, store.options).list_log()}

    assert any(
        n.startswith("_sidecars/") for n in names("kernelrs__v2-checkpoints-parquet-with-sidecars")
    )
    assert any(n.startswith("_staged_commits/") for n in names("delta__catalog-owned-preview"))
    assert "_autostats/" in names("deltars__checkpoint-v2-table")


def test_the_delta_log_folder_itself_is_accepted_as_the_table_url(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    table = "deltars__checkpoint_with_partitions"
    local = corpus_on(store)[table]
    uri = store.url(f"tables/{table}/_delta_log/", form=list(store.forms)[-1])
    assert_same_log(
        FsspecLogStore.from_uri(uri, store.options), FsspecLogStore.from_uri(str(local))
    )


@pytest.mark.parametrize("spelling", ["dir%20with%20space", "dir with space"])
def test_a_table_under_a_folder_with_spaces_reads_encoded_or_not(
    spelling: str, store: Store, corpus_dir: Path
) -> None:
    local = corpus_dir / "delta__multi-part-checkpoint"
    store.upload(local, "dir with space/mp", bucket="odd-names")
    remote = FsspecLogStore.from_uri(store.url(f"{spelling}/mp", bucket="odd-names"), store.options)
    assert_same_log(remote, FsspecLogStore.from_uri(str(local)))


def test_max_concurrency_bounds_the_fetch_and_results_stay_equal(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    table = "delta__basic-dv-with-checkpoint"
    local = corpus_on(store)[table]
    options = {**store.options, "max_concurrency": "2"}
    remote = FsspecLogStore.from_uri(store.url(f"tables/{table}"), options)
    assert remote.fs.connection.max_concurrency == 2
    assert_same_log(remote, FsspecLogStore.from_uri(str(local)))


def test_a_second_store_sees_files_added_after_the_first_listed(
    store: Store, corpus_dir: Path
) -> None:
    """No listing cache survives between stores: a forensic read must see the log as it is."""
    local = corpus_dir / "deltars__checkpoint_with_partitions"
    root = store.upload(local, "growing/t", bucket="growing")
    uri = store.url("growing/t", bucket="growing")
    before = {f.name for f in FsspecLogStore.from_uri(uri, store.options).list_log()}
    store.fs.pipe_file(f"{root}/_delta_log/00000000000000000003.json", b'{"commitInfo":{}}\n')
    after = {f.name for f in FsspecLogStore.from_uri(uri, store.options).list_log()}
    assert after - before == {"00000000000000000003.json"}


def test_listing_asks_for_the_log_prefix_only(store: Store, corpus_dir: Path) -> None:
    """Listing by prefix, not a scan: every listing request names the ``_delta_log/`` prefix
    (seen by the proxy in front of the store), and the objects beside the table are not read."""
    local = corpus_dir / "deltars__checkpoint_with_partitions"
    store.upload(local, "crowded/t", bucket="crowded")
    store.fs.pipe({f"crowded/crowded/noise/{i:03d}.json": b"{}" for i in range(20)})
    remote = FsspecLogStore.from_uri(
        store.url("crowded/t", bucket="crowded"), store.proxied_options
    )
    listed = {f.name for f in remote.list_log()}
    assert listed == {f.name for f in FsspecLogStore.from_uri(str(local)).list_log()}
    listings = [p for p in store.proxy.paths if "prefix=" in p]
    assert listings, store.proxy.paths
    for request in listings:
        assert unquote(request.partition("prefix=")[2]).startswith("crowded/t/_delta_log"), request
    assert not any("noise" in p for p in store.proxy.paths)
