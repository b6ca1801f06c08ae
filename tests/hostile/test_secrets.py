"""A secret given in any channel never appears in any output, tracebacks included."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from deltaforensics.cli import main

KEY = base64.b64encode(b"super-secret-account-key-0123456789abcdef").decode()
SAS = "sv=2024-01-01&ss=b&srt=sco&sp=rl&se=2030-01-01&sig=VerySecretSignature1234567890%3D"
CLIENT_SECRET = "client-secret-Zq8~9xYz"
# Port 9 on loopback: nothing listens, so every request fails fast with a network error.
ENDPOINT = "http://127.0.0.1:9/fakeaccount"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


CHANNELS = {
    "option-key": [
        "--storage-option",
        "account_name=fakeaccount",
        "--storage-option",
        f"account_key={KEY}",
        "--storage-option",
        f"azure_storage_endpoint={ENDPOINT}",
        "--storage-option",
        "allow_http=true",
    ],
    "option-sas": [
        "--storage-option",
        "account_name=fakeaccount",
        "--storage-option",
        f"sas_token={SAS}",
        "--storage-option",
        f"azure_storage_endpoint={ENDPOINT}",
        "--storage-option",
        "allow_http=true",
    ],
    "option-connection-string": [
        "--storage-option",
        f"connection_string=DefaultEndpointsProtocol=http;AccountName=fakeaccount;AccountKey={KEY};BlobEndpoint={ENDPOINT};",
    ],
    "option-client-secret": [
        "--storage-option",
        "account_name=fakeaccount",
        "--storage-option",
        "tenant_id=t",
        "--storage-option",
        "client_id=c",
        "--storage-option",
        f"client_secret={CLIENT_SECRET}",
        "--storage-option",
        f"azure_storage_endpoint={ENDPOINT}",
        "--storage-option",
        "allow_http=true",
    ],
}


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("channel", list(CHANNELS))
@pytest.mark.parametrize("command", ["history", "snapshot", "explain"])
def test_secrets_from_options_never_leak(
    capsys: pytest.CaptureFixture[str], channel: str, debug: bool, command: str
) -> None:
    args = (["--debug"] if debug else []) + [command, "az://lake/tables/t", *CHANNELS[channel]]
    if command == "explain":
        args += ["--format", "json"]
    code, text = _run(capsys, *args)
    # The service-principal channel is refused before any request (tokens never go over http).
    assert code == (2 if channel == "option-client-secret" else 3), text
    for secret in (KEY, SAS, "VerySecretSignature", CLIENT_SECRET):
        assert secret not in text


def test_secrets_from_a_file_and_the_environment_never_leak(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opts = tmp_path / "opts.json"
    opts.write_text(
        json.dumps(
            {
                "account_name": "fakeaccount",
                "account_key": KEY,
                "azure_storage_endpoint": ENDPOINT,
                "allow_http": "true",
            }
        )
    )
    code, text = _run(
        capsys, "--debug", "history", "az://lake/t", "--storage-options-file", str(opts)
    )
    assert code == 3 and KEY not in text
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", "fakeaccount")
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", KEY)
    monkeypatch.setenv("AZURE_STORAGE_SAS_TOKEN", SAS)
    code, text = _run(
        capsys,
        "--debug",
        "snapshot",
        "az://lake/t",
        "--storage-option",
        f"azure_storage_endpoint={ENDPOINT}",
        "--storage-option",
        "allow_http=true",
    )
    assert code == 3
    assert KEY not in text and "VerySecretSignature" not in text


def test_a_sas_in_the_url_is_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _run(
        capsys,
        "history",
        f"https://fakeaccount.blob.core.windows.net/lake/t?{SAS}",
        "--storage-option",
        f"azure_storage_endpoint={ENDPOINT}",
    )
    assert code in (2, 3)
    assert "VerySecretSignature" not in text


# A Databricks token and a SAS vended by the catalog (issue #22). The catalog is the loopback
# STAND-IN of tests/catalog/standin.py (the real Unity Catalog server is not served by any
# registry reachable here); the vended SAS points at port 9, so every storage request fails.
TOKEN = "dapiTOKEN0123456789abcdefSECRET"
VENDED = "sv=2024-01-01&sr=c&sp=rl&se=2030-01-01&sig=VendedSecretSignature0987654321%3D"


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("command", ["history", "snapshot", "explain"])
def test_a_catalog_token_and_a_vended_sas_never_leak(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    debug: bool,
    command: str,
) -> None:
    from tests.catalog.standin import StandInCatalog, serving

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / ".databrickscfg"))
    with serving(StandInCatalog(token=TOKEN)) as uc:
        uc.register("main.sales.orders", "abfss://lake@fakeaccount.dfs.core.windows.net/orders")
        uc.vend = lambda info: {
            "azure_user_delegation_sas": {"sas_token": VENDED},
            "expiration_time": 1_900_000_000_000,
        }
        monkeypatch.setenv("DATABRICKS_HOST", uc.url)
        monkeypatch.setenv("DATABRICKS_TOKEN", TOKEN)
        args = ["--debug"] if debug else []
        args += [command, "main.sales.orders", "--storage-option"]
        args += [f"azure_storage_endpoint={ENDPOINT}", "--storage-option", "allow_http=true"]
        code, text = _run(capsys, *args)
    assert code == 3, text
    assert "main.sales.orders" in text or "fakeaccount" in text
    for secret in (TOKEN, VENDED, "VendedSecretSignature"):
        assert secret not in text


# S3 and GCS (issue #36): the same channels; every request goes to port 9 and fails.
S3_SECRET = "S3SecretAccessKeyVeryPrivate0123456789"
S3_TOKEN = "IQoJb3JpZ2luS3SessionTokenVeryPrivate"
GCS_TOKEN = "ya29.GcsOAuthTokenVeryPrivate0123"
S3_OPTIONS = [
    "AWS_ACCESS_KEY_ID=AKIAFAKEKEYID0000001",
    f"AWS_SECRET_ACCESS_KEY={S3_SECRET}",
    f"AWS_SESSION_TOKEN={S3_TOKEN}",
    "AWS_ENDPOINT_URL=http://127.0.0.1:9",
    "AWS_ALLOW_HTTP=true",
]


def _gcs_key() -> tuple[str, str]:
    """A service-account key JSON with a real RSA key; its token endpoint is port 9."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )
    doc = {
        "type": "service_account",
        "private_key": pem,
        "client_email": "reader@p.iam.gserviceaccount.com",
        "token_uri": "http://127.0.0.1:9/token",
    }
    body = pem.splitlines()[5]  # a line of the key's body: what a leak would show
    return json.dumps(doc), body


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("channel", ["s3-keys", "gcs-service-account-key", "gcs-oauth-token"])
@pytest.mark.parametrize("command", ["history", "explain"])
def test_s3_and_gcs_secrets_from_options_never_leak(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    channel: str,
    debug: bool,
    command: str,
) -> None:
    monkeypatch.setenv("NO_GCE_CHECK", "true")
    secrets = [S3_SECRET, S3_TOKEN, GCS_TOKEN]
    if channel == "s3-keys":
        uri, pairs = "s3://lake/tables/t", S3_OPTIONS
    elif channel == "gcs-oauth-token":
        uri, pairs = "gs://lake/tables/t", [f"google_oauth_token={GCS_TOKEN}"]
    else:
        key, body = _gcs_key()
        uri, pairs = "gs://lake/tables/t", [f"GOOGLE_SERVICE_ACCOUNT_KEY={key}"]
        secrets.append(body)
    if channel.startswith("gcs"):
        pairs = [*pairs, "google_endpoint=http://127.0.0.1:9"]
    args = (["--debug"] if debug else []) + [command, uri]
    for pair in pairs:
        args += ["--storage-option", pair]
    code, text = _run(capsys, *args)
    assert code == 3, text
    assert "127.0.0.1:9" in text
    for secret in secrets:
        assert secret not in text


def test_s3_secrets_from_the_environment_never_leak(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEKEYID0000001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", S3_SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", S3_TOKEN)
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    code, text = _run(capsys, "--debug", "snapshot", "s3a://lake/t")
    assert code == 3 and "connection refused" in text
    assert S3_SECRET not in text and S3_TOKEN not in text


@pytest.mark.parametrize("cloud", ["s3", "gcs"])
def test_vended_aws_and_gcp_credentials_never_leak(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cloud: str
) -> None:
    from tests.catalog.standin import StandInCatalog, serving

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / ".databrickscfg"))
    with serving(StandInCatalog(token=TOKEN)) as uc:
        if cloud == "s3":
            uc.register("main.sales.orders", "s3://lake/orders")
            uc.vend = lambda info: {
                "aws_temp_credentials": {
                    "access_key_id": "ASIAVENDED0000000001",
                    "secret_access_key": S3_SECRET,
                    "session_token": S3_TOKEN,
                },
                "expiration_time": 1_900_000_000_000,
            }
            endpoint = ["AWS_ENDPOINT_URL=http://127.0.0.1:9", "AWS_ALLOW_HTTP=true"]
        else:
            uc.register("main.sales.orders", "gs://lake/orders")
            uc.vend = lambda info: {
                "gcp_oauth_token": {"oauth_token": GCS_TOKEN},
                "expiration_time": 1_900_000_000_000,
            }
            endpoint = ["google_endpoint=http://127.0.0.1:9"]
        monkeypatch.setenv("DATABRICKS_HOST", uc.url)
        monkeypatch.setenv("DATABRICKS_TOKEN", TOKEN)
        args = ["--debug", "history", "main.sales.orders"]
        for pair in endpoint:
            args += ["--storage-option", pair]
        code, text = _run(capsys, *args)
    assert code == 3, text
    for secret in (TOKEN, S3_SECRET, S3_TOKEN, GCS_TOKEN):
        assert secret not in text
