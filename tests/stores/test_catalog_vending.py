"""Catalog name → vended AWS or GCP credential → the S3 or GCS emulator.

The catalog is the STAND-IN of tests/catalog/standin.py (see there why); it vends what Unity
Catalog's ``temporary-table-credentials`` answers for a table on S3 (``aws_temp_credentials``)
or on GCS (``gcp_oauth_token``). The tables are read from moto's server and from
gcp-storage-emulator (EMULATORS), through the tests' proxy, which records the credential each
request carried: the vended one, never the user's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main
from tests.azure.test_report_parity import _normalise
from tests.catalog.conftest import _no_ambient_catalog_settings, uc
from tests.catalog.standin import StandInCatalog
from tests.stores.conftest import Store, emulators
from tests.stores.test_report_parity import storage_args

__all__ = [
    "_no_ambient_catalog_settings",
    "uc",
]  # the stand-in's fixtures, as tests/catalog has them

pytestmark = [pytest.mark.objectstore, pytest.mark.corpus]

TABLE = "deltars__checkpoint_with_partitions"
VENDED_KEY_ID = "ASIAVENDEDKEYID00001"
VENDED_SECRET = "vended/Secret+Access+Key0123456789"
VENDED_SESSION = "IQoJb3JpZ2luX2VjEVENDEDSESSIONTOKEN"
VENDED_OAUTH = "ya29.VendedOAuthToken0123456789"


def _vend(kind: str, vended: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def vend(info: dict[str, Any]) -> dict[str, Any]:
        vended.append(info["table_id"])
        credential: dict[str, Any] = (
            {
                "aws_temp_credentials": {
                    "access_key_id": VENDED_KEY_ID,
                    "secret_access_key": VENDED_SECRET,
                    "session_token": VENDED_SESSION,
                }
            }
            if kind == "s3"
            else {"gcp_oauth_token": {"oauth_token": VENDED_OAUTH}}
        )
        return {**credential, "expiration_time": int(time.time() * 1000) + 3_600_000}

    return vend


@pytest.mark.parametrize("kind", ["s3", "gcs"])
def test_history_through_vended_temporary_credentials_equals_the_local_copy(
    kind: str,
    servers: Callable[[str], Store],
    corpus_on: Callable[[Store], dict[str, Path]],
    uc: StandInCatalog,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = servers(kind)
    local = corpus_on(store)[TABLE]
    store.proxy.clear()
    location = store.url(f"tables/{TABLE}")
    uc.register("main.sales.orders", location)
    vended: list[str] = []
    uc.vend = _vend(kind, vended)
    # the user's own credential is replaced by the vended one; the endpoint is kept
    endpoint = {k: v for k, v in store.proxied_options.items() if "KEY" not in k.upper()}
    if kind == "s3":
        endpoint["AWS_ACCESS_KEY_ID"] = emulators.S3_KEY_ID
        endpoint["AWS_SECRET_ACCESS_KEY"] = emulators.S3_SECRET
    args = ["history", "--format", "json", "--catalog-url", uc.url, *storage_args(endpoint)]
    code = main(["--debug", args[0], "main.sales.orders", *args[1:]])
    out, err = capsys.readouterr()
    assert code == 0, err
    remote = json.loads(out)
    assert main(["history", str(local), "--format", "json"]) == 0
    mine = json.loads(capsys.readouterr()[0])
    assert _normalise(remote, location) == _normalise(mine, str(local))
    assert len(vended) == 1
    seen = [a for a in store.proxy.authorizations if a]
    assert seen
    if kind == "s3":
        assert all(f"Credential={VENDED_KEY_ID}/" in a for a in seen), seen
    else:
        assert all(a == f"Bearer {VENDED_OAUTH}" for a in seen), seen
    for secret in (VENDED_SECRET, VENDED_SESSION, VENDED_OAUTH):
        assert secret not in out + err


def test_a_credential_for_another_cloud_is_refused_in_one_line(
    servers: Callable[[str], Store], uc: StandInCatalog, capsys: pytest.CaptureFixture[str]
) -> None:
    store = servers("s3")
    uc.register("main.sales.orders", store.url(f"tables/{TABLE}"))
    uc.vend = _vend("gcs", [])
    code = main(["history", "main.sales.orders", "--catalog-url", uc.url])
    _, err = capsys.readouterr()
    assert code == 3
    assert "vended a GCS credential for s3://corpus/" in err and "which is on S3" in err
    assert err.count("\n") == 1 and VENDED_OAUTH not in err
