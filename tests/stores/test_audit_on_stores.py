"""The audit reads every store through a ``[storage.NAME]`` section (the secret from the
environment), and reports what it reports for the local copy; a failing table fails alone.
Stores: Azurite, moto's S3 server, gcp-storage-emulator (EMULATORS, tests/stores/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from tests.azure.test_audit_on_azurite import _report
from tests.conftest import SAMPLE_LOGS
from tests.stores.conftest import Store

pytestmark = [pytest.mark.objectstore]

SAMPLE = "merge_without_partition_literal"
SECRET_NAMES = ("AWS_SECRET_ACCESS_KEY",)


def _config(path: Path, options: dict[str, str], tables: dict[str, str]) -> Path:
    text = "[storage.lake]\n"
    for key, value in options.items():
        shown = '{ env = "DF_TEST_LAKE_SECRET" }' if key in SECRET_NAMES else json.dumps(value)
        text += f"{key} = {shown}\n"
    for name, uri in tables.items():
        storage = 'storage = "lake"\n' if "://" in uri else ""
        text += f'[[tables]]\nname = "{name}"\nuri = "{uri}"\n{storage}'
    path.write_text(text)
    return path


def test_audit_reads_each_store_through_a_storage_section(
    store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = store.options.get("AWS_SECRET_ACCESS_KEY", "")
    monkeypatch.setenv("DF_TEST_LAKE_SECRET", secret)
    store.upload(SAMPLE_LOGS / SAMPLE, f"audit/{tmp_path.name}/{SAMPLE}")
    uri = store.url(f"audit/{tmp_path.name}/{SAMPLE}")
    tables = {"remote": uri, "local": str(SAMPLE_LOGS / SAMPLE)}
    config = _config(tmp_path / "audit.toml", store.options, tables)
    code = main(["--quiet", "audit", str(config), "--format", "json", "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert [t["status"] for t in json.loads(out)["tables"]] == ["ok", "ok"]
    assert _report(tmp_path / "out", "remote") == _report(tmp_path / "out", "local") | {
        "table": _report(tmp_path / "out", "remote")["table"]
    }
    if secret:
        assert secret not in out + err


def test_a_denied_table_fails_alone(
    store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DF_TEST_LAKE_SECRET", store.options.get("AWS_SECRET_ACCESS_KEY", ""))
    store.upload(SAMPLE_LOGS / SAMPLE, f"audit/{tmp_path.name}/t")
    store.proxy.inject(
        403, "AccessDenied" if store.kind == "s3" else "AuthorizationPermissionMismatch", "denied"
    )
    tables = {"remote": store.url(f"audit/{tmp_path.name}/t"), "local": str(SAMPLE_LOGS / SAMPLE)}
    config = _config(tmp_path / "audit.toml", store.proxied_options, tables)
    code = main(["--quiet", "audit", str(config), "--format", "json", "-o", str(tmp_path / "out")])
    out, _ = capsys.readouterr()
    assert code == 3
    assert [t["status"] for t in json.loads(out)["tables"]] == ["failed", "ok"]
