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
