"""Every credential channel Azurite can check, and the one-line errors when one is wrong.

The secret of each case (key, SAS signature, connection string) must be absent from the error
message and from the store's repr: these are the texts a user pastes into a ticket.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from azure.storage.blob import (
    AccountSasPermissions,
    ContainerSasPermissions,
    ResourceTypes,
    generate_account_sas,
    generate_container_sas,
)

from deltaforensics.errors import NotADeltaTableError, StorageError
from deltaforensics.log.fsspec_store import FsspecLogStore
from tests.azure.conftest import ACCOUNT, CORPUS_CONTAINER, KEY

pytestmark = [pytest.mark.azurite, pytest.mark.corpus]

TABLE = "deltars__checkpoint_with_partitions"
AZ_URI = f"az://{CORPUS_CONTAINER}/tables/{TABLE}"
WRONG_KEY = "QUJD" + KEY[4:]  # valid base64, wrong bytes


def _container_sas(**permissions: bool) -> str:
    return generate_container_sas(
        ACCOUNT,
        CORPUS_CONTAINER,
        account_key=KEY,
        permission=ContainerSasPermissions(**permissions),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )


def _account_sas() -> str:
    return generate_account_sas(
        ACCOUNT,
        KEY,
        resource_types=ResourceTypes(service=True, container=True, object=True),
        permission=AccountSasPermissions(read=True, list=True),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )


def _sig(sas: str) -> str:
    match = re.search(r"sig=([^&]+)", sas)
    assert match
    return match[1]


def _reads_like_local(store: FsspecLogStore, corpus: dict[str, Path]) -> None:
    local = FsspecLogStore.from_uri(str(corpus[TABLE]))
    assert sorted(f.name for f in store.list_log()) == sorted(f.name for f in local.list_log())
    assert store.read("00000000000000000002.json") == local.read("00000000000000000002.json")


def _failure(uri: str, options: dict[str, str]) -> tuple[StorageError, FsspecLogStore]:
    store = FsspecLogStore.from_uri(uri, options)
    with pytest.raises(StorageError) as info:
        store.list_log()
    message = str(info.value)
    assert "\n" not in message, message
    return info.value, store


def _assert_hidden(secret: str, *texts: str) -> None:
    for text in texts:
        assert secret not in text, text


@pytest.fixture
def corpus(corpus_on_azurite: dict[str, Path]) -> dict[str, Path]:
    return corpus_on_azurite


@pytest.mark.parametrize("key", ["connection_string", "azure_storage_connection_string"])
def test_connection_string_option(key: str, azurite: Any, corpus: dict[str, Path]) -> None:
    store = FsspecLogStore.from_uri(AZ_URI, {key: azurite.connection_string})
    _reads_like_local(store, corpus)
    _assert_hidden(KEY, repr(store))


@pytest.mark.parametrize(
    "key", ["account_key", "azure_storage_account_key", "AZURE_STORAGE_ACCESS_KEY"]
)
@pytest.mark.parametrize("name", ["account_name", "azure_storage_account_name"])
def test_account_key_option_in_both_spellings(
    key: str, name: str, azurite: Any, corpus: dict[str, Path]
) -> None:
    options = {
        name: ACCOUNT,
        key: KEY,
        "azure_storage_endpoint": azurite.blob_endpoint,
        "azure_allow_http": "true",
    }
    store = FsspecLogStore.from_uri(AZ_URI, options)
    _reads_like_local(store, corpus)
    _assert_hidden(KEY, repr(store))


def test_use_emulator_with_an_explicit_key(azurite: Any, corpus: dict[str, Path]) -> None:
    options = {
        "azure_storage_use_emulator": "TRUE",
        "account_key": KEY,
        "endpoint": azurite.blob_endpoint,
    }
    _reads_like_local(FsspecLogStore.from_uri(AZ_URI, options), corpus)


@pytest.mark.parametrize("key", ["sas_token", "azure_storage_sas_token", "azure_storage_sas_key"])
def test_container_sas_token_option(
    key: str, key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    sas = _container_sas(read=True, list=True)
    options = {
        "endpoint": key_options["endpoint"],
        "allow_http": "true",
        "account_name": ACCOUNT,
        key: sas,
    }
    store = FsspecLogStore.from_uri(AZ_URI, options)
    _reads_like_local(store, corpus)
    _assert_hidden(_sig(sas), repr(store))


def test_account_sas_with_a_leading_question_mark(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    sas = "?" + _account_sas()
    options = {"endpoint": key_options["endpoint"], "allow_http": "true", "sas_token": sas}
    _reads_like_local(FsspecLogStore.from_uri(AZ_URI, options), corpus)


def test_a_sas_in_an_https_url_is_used_and_kept_out_of_the_display_uri(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    sas = _container_sas(read=True, list=True)
    uri = f"https://{ACCOUNT}.blob.core.windows.net/{CORPUS_CONTAINER}/tables/{TABLE}?{sas}"
    store = FsspecLogStore.from_uri(
        uri, {"endpoint": key_options["endpoint"], "allow_http": "true"}
    )
    _reads_like_local(store, corpus)
    assert store.uri == f"https://{ACCOUNT}.blob.core.windows.net/{CORPUS_CONTAINER}/tables/{TABLE}"
    _assert_hidden(_sig(sas), repr(store), store.uri)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    yield monkeypatch


def test_connection_string_from_the_environment(
    env: pytest.MonkeyPatch, azurite: Any, corpus: dict[str, Path]
) -> None:
    env.setenv("AZURE_STORAGE_CONNECTION_STRING", azurite.connection_string)
    store = FsspecLogStore.from_uri(AZ_URI, {})
    _reads_like_local(store, corpus)
    _assert_hidden(KEY, repr(store))


@pytest.mark.parametrize(
    ("name_var", "key_var"),
    [("AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY"),  # adlfs / delta-rs
     ("AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY")],  # Azure CLI
)  # fmt: skip
def test_account_key_and_emulator_from_the_environment(
    name_var: str, key_var: str, env: pytest.MonkeyPatch, azurite: Any, corpus: dict[str, Path]
) -> None:
    env.setenv(name_var, ACCOUNT)
    env.setenv(key_var, KEY)
    env.setenv("AZURE_STORAGE_USE_EMULATOR", "true")
    env.setenv("AZURITE_BLOB_STORAGE_URL", f"http://127.0.0.1:{azurite.port}")
    _reads_like_local(FsspecLogStore.from_uri(AZ_URI, {}), corpus)


def test_sas_token_from_the_environment(
    env: pytest.MonkeyPatch, key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    env.setenv("AZURE_STORAGE_ACCOUNT_NAME", ACCOUNT)
    env.setenv("AZURE_STORAGE_SAS_TOKEN", _container_sas(read=True, list=True))
    env.setenv("AZURE_STORAGE_ENDPOINT", key_options["endpoint"])
    env.setenv("AZURE_ALLOW_HTTP", "1")
    _reads_like_local(FsspecLogStore.from_uri(AZ_URI, {}), corpus)


def test_explicit_credentials_replace_the_environment_ones(
    env: pytest.MonkeyPatch, key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    env.setenv("AZURE_STORAGE_ACCOUNT_KEY", WRONG_KEY)
    options = {
        "endpoint": key_options["endpoint"],
        "allow_http": "true",
        "account_name": ACCOUNT,
        "sas_token": _container_sas(read=True, list=True),
    }
    _reads_like_local(FsspecLogStore.from_uri(AZ_URI, options), corpus)


# --- failures: one line each, naming what went wrong, never the secret -------------------------


def test_wrong_account_key(key_options: dict[str, str], corpus: dict[str, Path]) -> None:
    err, store = _failure(AZ_URI, {**key_options, "account_key": WRONG_KEY})
    assert (
        str(err)
        == f"{AZ_URI}: listing _delta_log: authentication failed: account key from storage options was rejected"
    )
    _assert_hidden(WRONG_KEY, str(err), repr(store), repr(err))


def test_wrong_key_from_the_environment_says_so(
    env: pytest.MonkeyPatch, key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    env.setenv("AZURE_STORAGE_ACCOUNT_KEY", WRONG_KEY)
    options = {k: v for k, v in key_options.items() if k != "account_key"}
    err, store = _failure(AZ_URI, options)
    assert "authentication failed: account key from environment was rejected" in str(err)
    _assert_hidden(WRONG_KEY, str(err), repr(store))


def test_wrong_connection_string_key(azurite: Any, corpus: dict[str, Path]) -> None:
    connection = azurite.connection_string.replace(KEY, WRONG_KEY)
    err, store = _failure(AZ_URI, {"connection_string": connection})
    assert str(err).endswith(
        "authentication failed: connection string from storage options was rejected"
    )
    _assert_hidden(WRONG_KEY, str(err), repr(store))


def test_forged_sas_signature(key_options: dict[str, str], corpus: dict[str, Path]) -> None:
    sas = re.sub(
        r"sig=[^&]+", "sig=Zm9yZ2VkK3NpZ25hdHVyZQ%3D%3D", _container_sas(read=True, list=True)
    )
    options = {
        "endpoint": key_options["endpoint"],
        "allow_http": "true",
        "sas_token": sas,
        "account_name": ACCOUNT,
    }
    err, store = _failure(AZ_URI, options)
    assert str(err).endswith("authentication failed: SAS token from storage options was rejected")
    _assert_hidden("Zm9yZ2VkK3NpZ25hdHVyZQ", str(err), repr(store))


def test_sas_without_list_permission_is_not_authorised(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    sas = _container_sas(read=True)
    options = {
        "endpoint": key_options["endpoint"],
        "allow_http": "true",
        "sas_token": sas,
        "account_name": ACCOUNT,
    }
    err, store = _failure(AZ_URI, options)
    assert "not authorised: SAS token from storage options lacks permission" in str(err)
    _assert_hidden(_sig(sas), str(err), repr(store))


def test_anonymous_access_to_a_private_container(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    options = {
        "endpoint": key_options["endpoint"],
        "allow_http": "true",
        "account_name": ACCOUNT,
        "azure_skip_signature": "true",
    }
    err, _ = _failure(AZ_URI, options)
    assert "authentication failed: anonymous access was refused" in str(err)


def test_missing_container(key_options: dict[str, str]) -> None:
    err, store = _failure("az://no-such-container/tables/t", key_options)
    assert str(err) == (
        "az://no-such-container/tables/t: container 'no-such-container' not found "
        f"in storage account '{ACCOUNT}'"
    )
    _assert_hidden(KEY, repr(store))


def test_missing_path_in_an_existing_container(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    uri = f"abfss://{CORPUS_CONTAINER}@{ACCOUNT}.dfs.core.windows.net/tables/no-such-table"
    err, _ = _failure(uri, key_options)
    assert str(err) == f"{uri}: path not found"


def test_an_existing_folder_without_a_log_is_not_a_delta_table(
    key_options: dict[str, str], corpus: dict[str, Path]
) -> None:
    with pytest.raises(NotADeltaTableError, match="no _delta_log folder"):
        FsspecLogStore.from_uri(f"az://{CORPUS_CONTAINER}/tables", key_options).list_log()


def test_nothing_listening_is_cannot_reach_host(azurite: Any) -> None:
    endpoint = f"http://127.0.0.1:{azurite.port}/{ACCOUNT}"
    closed_port = 1 if azurite.port != 1 else 2
    options = {
        "use_emulator": "true",
        "endpoint": endpoint.replace(str(azurite.port), str(closed_port)),
    }
    err, _ = _failure(AZ_URI, options)
    assert str(err).endswith(f"cannot reach 127.0.0.1:{closed_port}: connection refused")
