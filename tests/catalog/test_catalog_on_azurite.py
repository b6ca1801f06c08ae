"""Catalog name → vended SAS → the real Azurite: the ADLS leg of Unity Catalog names.

The catalog is the STAND-IN of tests/catalog/standin.py (vending an ADLS SAS needs Azure AD,
which no test reaches, and the real server is not served by any registry reachable here); the
SAS it vends is real, made for Azurite's account with azure-storage-blob's SAS helper, and the
log is read from the real emulator.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from azure.storage.blob import ContainerSasPermissions, generate_container_sas

from deltaforensics.cli import main
from tests.azure.conftest import ACCOUNT, KEY, azurite, blob_fs, upload_table
from tests.catalog.standin import StandInCatalog
from tests.catalog.test_catalog_names import recent_table

__all__ = ["azurite", "blob_fs"]  # the session's emulator fixtures, shared with tests/azure

pytestmark = pytest.mark.azurite
CONTAINER = "lake"


def _sas(*, read: bool = True, listing: bool = True) -> str:
    return generate_container_sas(
        account_name=ACCOUNT,
        container_name=CONTAINER,
        account_key=KEY,
        permission=ContainerSasPermissions(read=read, list=listing),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )


def _vend(sas: str, lifetime_ms: int, vended: list[str]) -> Any:
    def vend(info: dict[str, Any]) -> dict[str, Any]:
        vended.append(info["table_id"])
        return {
            "azure_user_delegation_sas": {"sas_token": sas},
            "expiration_time": int(time.time() * 1000) + lifetime_ms,
            "url": info["storage_location"],
        }

    return vend


@pytest.fixture
def on_azurite(blob_fs: Any, azurite: Any, tmp_path: Path, uc: StandInCatalog) -> list[str]:
    """main.sales.orders on Azurite, registered with an abfss:// location; the CLI's endpoint
    options (the emulator's, not Azure's) are returned."""
    b = recent_table(tmp_path / "orders", commits=12)
    upload_table(blob_fs, b.path, CONTAINER, f"sales/orders-{tmp_path.name}")
    location = f"abfss://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net/sales/orders-{tmp_path.name}"
    uc.register("main.sales.orders", location)
    return [
        "--catalog-url",
        uc.url,
        "--storage-option",
        f"azure_storage_endpoint={azurite.blob_endpoint}",
        "--storage-option",
        "allow_http=true",
    ]


def test_explain_since_7d_through_a_vended_sas(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, on_azurite: list[str]
) -> None:
    sas, vended = _sas(), []
    uc.vend = _vend(sas, 3_600_000, vended)
    code = main(
        [
            "--debug",
            "explain",
            "main.sales.orders",
            "--since",
            "7d",
            "--format",
            "json",
            *on_azurite,
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert doc["table"]["uri"].startswith(f"abfss://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net/")
    assert doc["table"]["latest_version"] == 11
    window = doc["time_window"]
    # uploaded in one go: the blobs' times are the upload's, so the writer's clock is used
    assert window["clock"] == "commitInfo.timestamp"
    assert window["first_version"] in (6, 7)
    assert len(vended) == 1
    assert sas not in out + err
    assert "sig=" not in out + err


def test_credentials_close_to_expiry_are_vended_again(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, on_azurite: list[str]
) -> None:
    vended: list[str] = []
    uc.vend = _vend(_sas(), 60_000, vended)  # a minute left: inside the renewal margin
    code = main(["history", "main.sales.orders", "--format", "json", *on_azurite])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert len(json.loads(out)["commits"]) == 12
    assert len(vended) >= 2  # renewed before the listing and the reads


def test_a_sas_that_cannot_list_fails_in_one_line_without_the_sas(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, on_azurite: list[str]
) -> None:
    sas = _sas(listing=False)
    uc.vend = _vend(sas, 3_600_000, [])
    code = main(["--debug", "history", "main.sales.orders", *on_azurite])
    out, err = capsys.readouterr()
    assert code == 3
    signature = dict(p.split("=", 1) for p in sas.split("&"))["sig"]
    assert signature not in out + err
    assert sas not in out + err
    assert err.strip().splitlines()[-1].startswith("error: abfss://lake@")
