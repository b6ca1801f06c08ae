"""URL forms, accounts, endpoints and credential choice: pure, no server needed."""

from __future__ import annotations

import pytest

from deltaforensics.errors import UsageError
from deltaforensics.log.azure import (
    EMULATOR_KEY,
    AzureConnection,
    AzureLogFileSystem,
    AzureUrl,
    connect,
    parse_azure_url,
    resolve,
)
from deltaforensics.log.fsspec_store import FsspecLogStore

KEY = EMULATOR_KEY
GOOD = "https://acct.blob.core.windows.net"


@pytest.mark.parametrize(
    ("uri", "container", "path", "account", "blob_host"),
    [
        ("abfss://lake@acct.dfs.core.windows.net/tables/t", "lake", "tables/t", "acct", "acct.blob.core.windows.net"),
        ("abfs://lake@acct.dfs.core.windows.net/tables/t", "lake", "tables/t", "acct", "acct.blob.core.windows.net"),
        ("abfss://lake@acct.blob.core.windows.net/t/", "lake", "t", "acct", "acct.blob.core.windows.net"),
        ("az://lake/tables/t", "lake", "tables/t", None, None),
        ("abfs://lake/tables/t", "lake", "tables/t", None, None),
        ("abfss://lake/tables/t", "lake", "tables/t", None, None),
        ("azure://lake/t", "lake", "t", None, None),
        ("https://acct.dfs.core.windows.net/lake/tables/t", "lake", "tables/t", "acct", "acct.blob.core.windows.net"),
        ("https://acct.blob.core.windows.net/lake/tables/t/", "lake", "tables/t", "acct", "acct.blob.core.windows.net"),
        ("wasbs://lake@acct.blob.core.windows.net/tables/t", "lake", "tables/t", "acct", "acct.blob.core.windows.net"),
        ("wasb://lake@acct.blob.core.windows.net/t", "lake", "t", "acct", "acct.blob.core.windows.net"),
        ("abfss://lake@acct.dfs.core.usgovcloudapi.net/t", "lake", "t", "acct", "acct.blob.core.usgovcloudapi.net"),
        ("abfss://lake@acct.dfs.core.chinacloudapi.cn/t", "lake", "t", "acct", "acct.blob.core.chinacloudapi.cn"),
        ("https://acct.dfs.core.chinacloudapi.cn/lake/t", "lake", "t", "acct", "acct.blob.core.chinacloudapi.cn"),
        ("abfss://ws@onelake.dfs.fabric.microsoft.com/lh.Lakehouse/Tables/sales", "ws",
         "lh.Lakehouse/Tables/sales", "onelake", "onelake.blob.fabric.microsoft.com"),
        ("https://onelake.dfs.fabric.microsoft.com/ws/lh.Lakehouse/Tables/sales", "ws",
         "lh.Lakehouse/Tables/sales", "onelake", "onelake.blob.fabric.microsoft.com"),
        ("abfss://My%20Workspace@onelake.dfs.fabric.microsoft.com/lh.Lakehouse/Tables/s", "My Workspace",
         "lh.Lakehouse/Tables/s", "onelake", "onelake.blob.fabric.microsoft.com"),
        ("abfss://lake@acct.dfs.core.windows.net/t/_delta_log", "lake", "t", "acct", "acct.blob.core.windows.net"),
        ("abfss://lake@acct.dfs.core.windows.net/", "lake", "", "acct", "acct.blob.core.windows.net"),
        ("az://lake/tables/dir%20with%20space/t", "lake", "tables/dir with space/t", None, None),
        ("abfss://lake@ACCT.DFS.core.windows.net/t", "lake", "t", "acct", "acct.blob.core.windows.net"),
        ("abfss://lake@acct.privatelink.dfs.core.windows.net/t", "lake", "t", "acct",
         "acct.privatelink.blob.core.windows.net"),
        ("abfss://acct.dfs.core.windows.net/lake/t", "lake", "t", "acct", "acct.blob.core.windows.net"),
    ],
)  # fmt: skip
def test_every_url_form_gives_container_path_account_and_blob_host(
    uri: str, container: str, path: str, account: str | None, blob_host: str | None
) -> None:
    url = parse_azure_url(uri)
    assert (url.container, url.path, url.account, url.blob_host) == (
        container,
        path,
        account,
        blob_host,
    )
    assert url.sas_token is None


def test_a_sas_query_is_taken_as_the_credential_and_dropped_from_the_display_uri() -> None:
    sas = "sv=2024-08-04&sr=c&sp=rl&se=2030-01-01T00%3A00%3A00Z&sig=c2VjcmV0K3NpZw%3D%3D"
    url = parse_azure_url(f"https://acct.blob.core.windows.net/lake/t/_delta_log?{sas}")
    assert (url.container, url.path, url.sas_token) == ("lake", "t", sas)
    assert url.display_uri == "https://acct.blob.core.windows.net/lake/t/_delta_log"
    assert "c2VjcmV0" not in repr(url)


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("az://", "names no container"),
        ("https://acct.blob.core.windows.net/", "names no container"),
        ("abfss://lake@example.com/t", "cannot tell the storage account from host 'example.com'"),
        ("https://storage.example.com/lake/t", "cannot tell the storage account"),
    ],
)
def test_unusable_urls_are_usage_errors(uri: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_azure_url(uri)


def test_a_password_in_the_url_is_refused_without_being_repeated() -> None:
    with pytest.raises(UsageError) as info:
        parse_azure_url("abfss://lake:hunter22@acct.dfs.core.windows.net/t")
    assert "hunter22" not in str(info.value)
    assert str(info.value).startswith("abfss://lake@acct.dfs.core.windows.net/t:")


def _connect(
    uri: str, options: dict[str, str] | None = None, env: dict[str, str] | None = None
) -> AzureConnection:
    return connect(parse_azure_url(uri), options or {}, env or {})


@pytest.mark.parametrize(
    ("uri", "account_url"),
    [
        ("abfss://lake@acct.dfs.core.windows.net/t", "https://acct.blob.core.windows.net"),
        ("abfss://lake@acct.dfs.core.usgovcloudapi.net/t", "https://acct.blob.core.usgovcloudapi.net"),
        ("abfss://lake@acct.dfs.core.chinacloudapi.cn/t", "https://acct.blob.core.chinacloudapi.cn"),
        ("abfss://ws@onelake.dfs.fabric.microsoft.com/lh.Lakehouse/Tables/t", "https://onelake.blob.fabric.microsoft.com"),
        ("https://acct.dfs.core.chinacloudapi.cn/lake/t", "https://acct.blob.core.chinacloudapi.cn"),
    ],
)  # fmt: skip
def test_the_blob_endpoint_follows_the_cloud_in_the_url(uri: str, account_url: str) -> None:
    conn = _connect(uri)
    assert conn.account_url == account_url
    assert conn.credential == "DefaultAzureCredential"


def test_az_urls_take_the_account_from_options_or_the_environment() -> None:
    assert _connect("az://lake/t", {"azure_storage_account_name": "fromopt"}).account == "fromopt"
    assert (
        _connect("az://lake/t", env={"AZURE_STORAGE_ACCOUNT_NAME": "fromenv"}).account == "fromenv"
    )
    assert (
        _connect("az://lake/t", env={"AZURE_STORAGE_ACCOUNT": "cli"}).account_url
        == "https://cli.blob.core.windows.net"
    )
    with pytest.raises(UsageError, match="no storage account given"):
        _connect("az://lake/t")


def test_an_account_named_twice_must_agree() -> None:
    assert (
        _connect("abfss://lake@acct.dfs.core.windows.net/t", {"account_name": "ACCT"}).account
        == "acct"
    )
    with pytest.raises(
        UsageError, match="the URL names account 'acct' but account_name names 'other'"
    ):
        _connect("abfss://lake@acct.dfs.core.windows.net/t", {"account_name": "other"})


def test_use_emulator_means_the_azurite_dev_account() -> None:
    conn = _connect("az://lake/t", {"use_emulator": "true"})
    assert (conn.account, conn.account_url) == (
        "devstoreaccount1",
        "http://127.0.0.1:10000/devstoreaccount1",
    )
    assert (conn.credential, conn.credential_source) == ("account key", "emulator default")
    moved = _connect(
        "az://lake/t", {"use_emulator": "1"}, {"AZURITE_BLOB_STORAGE_URL": "http://azurite:10000"}
    )
    assert moved.account_url == "http://azurite:10000/devstoreaccount1"
    bare = _connect("az://lake/t", {"use_emulator": "yes", "endpoint": "http://127.0.0.1:1234"})
    assert bare.account_url == "http://127.0.0.1:1234/devstoreaccount1"


def test_plain_http_needs_allow_http() -> None:
    options = {"account_name": "a", "account_key": KEY, "endpoint": "http://10.0.0.1:10000/a"}
    with pytest.raises(UsageError, match="plain http; set allow_http=true"):
        _connect("az://lake/t", options)
    assert (
        _connect("az://lake/t", {**options, "azure_allow_http": "true"}).account_url
        == options["endpoint"]
    )


def test_the_endpoint_option_overrides_the_host_and_names_the_account() -> None:
    conn = _connect(
        "az://lake/t", {"azure_storage_endpoint": "https://acct.privatelink.blob.core.windows.net/"}
    )
    assert (conn.account, conn.account_url) == (
        "acct",
        "https://acct.privatelink.blob.core.windows.net",
    )
    fabric = _connect(
        "az://ws/lh.Lakehouse/Tables/t", {"account_name": "onelake", "use_fabric_endpoint": "true"}
    )
    assert fabric.account_url == "https://onelake.blob.fabric.microsoft.com"
    hosted = _connect(
        "az://lake/t", {"account_name": "acct", "account_host": "acct.blob.core.usgovcloudapi.net"}
    )
    assert hosted.account_url == "https://acct.blob.core.usgovcloudapi.net"


@pytest.mark.parametrize(
    ("options", "env", "kind", "source"),
    [
        ({"account_key": KEY}, {}, "account key", "storage options"),
        ({}, {"AZURE_STORAGE_ACCOUNT_KEY": KEY}, "account key", "environment"),
        ({}, {"AZURE_STORAGE_KEY": KEY}, "account key", "environment"),
        ({"sas_token": "sv=1&sig=x"}, {"AZURE_STORAGE_ACCOUNT_KEY": KEY}, "SAS token", "storage options"),
        ({}, {"AZURE_STORAGE_SAS_TOKEN": "sv=1&sig=x"}, "SAS token", "environment"),
        ({"bearer_token": "eyJ0"}, {}, "bearer token", "storage options"),
        ({}, {"AZURE_CLIENT_ID": "c", "AZURE_TENANT_ID": "t", "AZURE_CLIENT_SECRET": "s"}, "service principal", "environment"),
        ({"azure_client_id": "c", "azure_tenant_id": "t", "azure_client_secret": "s"}, {}, "service principal", "storage options"),
        ({}, {"AZURE_CLIENT_ID": "managed-identity-client"}, "DefaultAzureCredential", "ambient"),
        ({"use_azure_cli": "true"}, {}, "Azure CLI", "storage options"),
        ({"anon": "true"}, {"AZURE_STORAGE_ACCOUNT_KEY": KEY}, "anonymous access", "storage options"),
        ({"azure_skip_signature": "true"}, {}, "anonymous access", "storage options"),
        ({}, {}, "DefaultAzureCredential", "ambient"),
    ],
)  # fmt: skip
def test_the_credential_is_picked_from_options_before_the_environment(
    options: dict[str, str], env: dict[str, str], kind: str, source: str
) -> None:
    conn = _connect("abfss://lake@acct.dfs.core.windows.net/t", options, env)
    assert (conn.credential, conn.credential_source) == (kind, source)


def test_a_partial_service_principal_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="needs client_id, client_secret and tenant_id"):
        _connect(
            "abfss://lake@acct.dfs.core.windows.net/t", {"client_secret": "s", "client_id": "c"}
        )


def test_tokens_are_never_sent_over_http() -> None:
    with pytest.raises(UsageError, match="only sent over https"):
        _connect(
            "az://lake/t", {"account_name": "a", "endpoint": "http://h/a", "allow_http": "true"}
        )


def test_a_malformed_key_is_refused_without_being_shown() -> None:
    with pytest.raises(UsageError, match="not valid base64") as info:
        _connect("abfss://lake@acct.dfs.core.windows.net/t", {"account_key": "not*base64*secret"})
    assert "not*base64*secret" not in str(info.value)


def test_connection_strings_give_account_and_endpoint() -> None:
    cs = f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={KEY};EndpointSuffix=core.chinacloudapi.cn"
    conn = _connect("az://lake/t", {"connection_string": cs})
    assert (conn.account, conn.account_url, conn.credential) == (
        "acct",
        "https://acct.blob.core.chinacloudapi.cn",
        "connection string",
    )
    dev = _connect(
        "az://lake/t",
        {"connection_string": "UseDevelopmentStorage=true;AccountName=devstoreaccount1"},
    )
    assert dev.account_url == "http://127.0.0.1:10000/devstoreaccount1"
    with pytest.raises(
        UsageError, match="names account 'acct' but the connection string names 'other'"
    ):
        _connect(
            "abfss://lake@acct.dfs.core.windows.net/t",
            {"connection_string": cs.replace("=acct;", "=other;")},
        )
    with pytest.raises(UsageError, match="not a list of Key=Value"):
        _connect("az://lake/t", {"connection_string": "garbage"})


def test_concurrency_and_timeouts_are_options() -> None:
    conn = _connect(
        "az://lake/t",
        {"account_name": "a", "max_concurrency": "8", "timeout": "2m", "connect_timeout": "500ms"},
    )
    assert (conn.max_concurrency, conn.read_timeout, conn.connect_timeout) == (8, 120.0, 0.5)
    with pytest.raises(UsageError, match="max_concurrency"):
        _connect("az://lake/t", {"account_name": "a", "max_concurrency": "0"})
    with pytest.raises(UsageError, match="read_timeout"):
        _connect("az://lake/t", {"account_name": "a", "read_timeout": "soon"})


def test_no_secret_reaches_a_repr() -> None:
    sas = "sv=1&sig=c2lnbmF0dXJl"
    conn = _connect(
        "abfss://lake@acct.dfs.core.windows.net/t",
        {"sas_token": sas, "client_secret": "shh-secret"},
    )
    for text in (
        repr(conn),
        repr(parse_azure_url(f"https://acct.blob.core.windows.net/l/t?{sas}")),
    ):
        assert "c2lnbmF0dXJl" not in text and "shh-secret" not in text


def test_resolve_passes_account_and_sovereign_host_to_adlfs_without_network() -> None:
    location = resolve(
        "abfss://lake@acct.dfs.core.usgovcloudapi.net/tables/t", {"account_key": KEY}
    )
    assert isinstance(location.fs, AzureLogFileSystem)
    assert location.fs.service_client.url == "https://acct.blob.core.usgovcloudapi.net/"
    assert location.fs.account_name == "acct"
    assert (location.root, location.display_uri) == (
        "lake/tables/t",
        "abfss://lake@acct.dfs.core.usgovcloudapi.net/tables/t",
    )
    assert KEY not in repr(location) and KEY not in repr(location.fs)


def test_onelake_resolves_with_default_azure_credential() -> None:
    location = resolve("abfss://ws@onelake.dfs.fabric.microsoft.com/lh.Lakehouse/Tables/sales", {})
    assert location.fs.service_client.url == "https://onelake.blob.fabric.microsoft.com/"
    assert location.root == "ws/lh.Lakehouse/Tables/sales"


@pytest.mark.parametrize(
    "uri",
    ["abfss://lake@acct.dfs.core.windows.net/t", "https://acct.dfs.core.windows.net/lake/t",
     "https://acct.blob.core.windows.net/lake/t", "az://lake/t", "wasbs://lake@acct.blob.core.windows.net/t"],
)  # fmt: skip
def test_the_store_dispatches_azure_urls_here(uri: str) -> None:
    store = FsspecLogStore.from_uri(uri, {"account_name": "acct", "account_key": KEY})
    assert isinstance(store.fs, AzureLogFileSystem)
    assert store.root == "lake/t"


def test_other_schemes_stay_on_the_generic_path() -> None:
    store = FsspecLogStore.from_uri("memory://somewhere/t", {})
    assert not isinstance(store.fs, AzureLogFileSystem)


def test_azure_url_is_a_frozen_value() -> None:
    url = AzureUrl(container="c", path="p", display_uri="az://c/p")
    with pytest.raises(AttributeError):
        url.container = "x"  # type: ignore[misc]
