"""The same bytes through Azurite as from local disk, for every URL form we accept."""

from __future__ import annotations

from pathlib import Path

import pytest
from adlfs import AzureBlobFileSystem

from deltaforensics.log.azure import AzureLogFileSystem
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.storage import StoredFile
from tests.azure.conftest import ACCOUNT, CORPUS_CONTAINER, CORPUS_TABLES, upload_table

pytestmark = [pytest.mark.azurite, pytest.mark.corpus]

URL_FORMS = {
    "az": "az://{container}/{prefix}",
    "abfs": "abfs://{container}/{prefix}",
    "abfss": "abfss://{container}@" + ACCOUNT + ".dfs.core.windows.net/{prefix}",
}


def _by_name(files: list[StoredFile]) -> list[StoredFile]:
    return sorted(files, key=lambda f: f.name)


def _assert_same_log(remote: FsspecLogStore, local: FsspecLogStore) -> None:
    listed = _by_name(local.list_log())
    assert _by_name(remote.list_log()) == listed
    names = [f.name for f in listed if not f.name.endswith("/")]
    assert remote.read_many(names) == local.read_many(names)
    assert remote.read(names[-1]) == local.read(names[-1])


@pytest.mark.parametrize("form", URL_FORMS)
@pytest.mark.parametrize("table", CORPUS_TABLES)
def test_listing_and_bytes_through_azurite_equal_local_disk(
    table: str, form: str, corpus_on_azurite: dict[str, Path], emulator_options: dict[str, str]
) -> None:
    uri = URL_FORMS[form].format(container=CORPUS_CONTAINER, prefix=f"tables/{table}")
    remote = FsspecLogStore.from_uri(uri, emulator_options)
    assert isinstance(remote.fs, AzureLogFileSystem)
    assert remote.uri == uri
    _assert_same_log(remote, FsspecLogStore.from_uri(str(corpus_on_azurite[table])))


def test_nested_sidecars_staged_commits_and_junk_folders_are_listed(
    corpus_on_azurite: dict[str, Path], emulator_options: dict[str, str]
) -> None:
    def names(table: str) -> set[str]:
        uri = f"az://{CORPUS_CONTAINER}/tables/{table}"
        return {f.name for f in FsspecLogStore.from_uri(uri, emulator_options).list_log()}

    assert any(
        n.startswith("_sidecars/") for n in names("kernelrs__v2-checkpoints-parquet-with-sidecars")
    )
    assert any(n.startswith("_staged_commits/") for n in names("delta__catalog-owned-preview"))
    assert "_autostats/" in names("deltars__checkpoint-v2-table")


def test_the_delta_log_folder_itself_is_accepted_as_the_table_url(
    corpus_on_azurite: dict[str, Path], emulator_options: dict[str, str]
) -> None:
    table = "deltars__checkpoint_with_partitions"
    remote = FsspecLogStore.from_uri(
        f"abfss://{CORPUS_CONTAINER}@{ACCOUNT}.dfs.core.windows.net/tables/{table}/_delta_log/",
        emulator_options,
    )
    _assert_same_log(remote, FsspecLogStore.from_uri(str(corpus_on_azurite[table])))


@pytest.mark.parametrize("spelling", ["dir%20with%20space", "dir with space"])
def test_a_table_under_a_folder_with_spaces_reads_encoded_or_not(
    spelling: str, blob_fs: AzureBlobFileSystem, corpus_dir: Path, emulator_options: dict[str, str]
) -> None:
    local = corpus_dir / "delta__multi-part-checkpoint"
    upload_table(blob_fs, local, "odd-names", "dir with space/mp")
    remote = FsspecLogStore.from_uri(f"az://odd-names/{spelling}/mp", emulator_options)
    _assert_same_log(remote, FsspecLogStore.from_uri(str(local)))


def test_max_concurrency_option_bounds_the_fetch_and_results_stay_equal(
    corpus_on_azurite: dict[str, Path], emulator_options: dict[str, str]
) -> None:
    table = "delta__basic-dv-with-checkpoint"
    options = {**emulator_options, "max_concurrency": "2"}
    remote = FsspecLogStore.from_uri(f"az://{CORPUS_CONTAINER}/tables/{table}", options)
    assert isinstance(remote.fs, AzureLogFileSystem)
    assert remote.fs.connection.max_concurrency == 2
    _assert_same_log(remote, FsspecLogStore.from_uri(str(corpus_on_azurite[table])))


def test_a_second_store_sees_files_added_after_the_first_listed(
    blob_fs: AzureBlobFileSystem, corpus_dir: Path, emulator_options: dict[str, str]
) -> None:
    """No listing cache survives between stores: a forensic read must see the log as it is."""
    local = corpus_dir / "deltars__checkpoint_with_partitions"
    root = upload_table(blob_fs, local, "growing", "t")
    uri = "az://growing/t"
    before = {f.name for f in FsspecLogStore.from_uri(uri, emulator_options).list_log()}
    blob_fs.pipe_file(f"{root}/_delta_log/00000000000000000003.json", b'{"commitInfo":{}}\n')
    after = {f.name for f in FsspecLogStore.from_uri(uri, emulator_options).list_log()}
    assert after - before == {"00000000000000000003.json"}
