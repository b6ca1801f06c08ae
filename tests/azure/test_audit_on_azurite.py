"""The audit over ADLS (a real Azurite): storage sections with the key from the environment,
reports equal to the local ones, and a second run with state that reads only new commits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from adlfs import AzureBlobFileSystem

from deltaforensics.cli import main
from tests.azure.conftest import ACCOUNT, CORPUS_CONTAINER, KEY, upload_table
from tests.conftest import SAMPLE_LOGS

pytestmark = [pytest.mark.azurite]

SAMPLE = "merge_without_partition_literal"


def _config(path: Path, azurite: Any, tables: dict[str, str]) -> Path:
    text = (
        "[storage.lake]\n"
        f'account_name = "{ACCOUNT}"\n'
        'account_key = { env = "DF_TEST_LAKE_KEY" }\n'
        f'endpoint = "{azurite.blob_endpoint}"\n'
        "allow_http = true\n"
    )
    for name, uri in tables.items():
        storage = "" if "://" not in uri else 'storage = "lake"\n'
        text += f'[[tables]]\nname = "{name}"\nuri = "{uri}"\n{storage}'
    path.write_text(text)
    return path


def _report(out: Path, name: str) -> dict[str, Any]:
    doc = json.loads((out / "reports" / f"{name}.json").read_text())
    uri = doc["table"]["uri"]
    return json.loads(json.dumps(doc).replace(uri, "<uri>"))


@pytest.mark.heavy(60)
def test_audit_reads_adls_through_a_storage_section_and_keeps_state(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    azurite: Any,
    blob_fs: AzureBlobFileSystem,
) -> None:
    monkeypatch.setenv("DF_TEST_LAKE_KEY", KEY)
    # the first 30 commits now, the rest after the first audit
    local = tmp_path / "local" / SAMPLE
    shutil.copytree(SAMPLE_LOGS / SAMPLE, local)
    log = local / "_delta_log"
    for f in [
        *sorted(log.glob("*.json"))[30:],
        log / "_last_checkpoint",
        *log.glob("*30.checkpoint*"),
    ]:
        f.unlink()
    root = upload_table(blob_fs, local, CORPUS_CONTAINER, f"audit/{tmp_path.name}/{SAMPLE}")
    uri = f"abfss://{CORPUS_CONTAINER}@{ACCOUNT}.dfs.core.windows.net/{root.split('/', 1)[1]}"
    config = _config(tmp_path / "audit.toml", azurite, {"remote": uri})
    state = tmp_path / "state"

    code = main(["--quiet", "audit", str(config), "--state", str(state), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    first = json.loads(out)["tables"][0]
    assert first["read"]["mode"] == "full" and first["latest_version"] == 29

    upload_table(blob_fs, SAMPLE_LOGS / SAMPLE, CORPUS_CONTAINER, root.split("/", 1)[1])
    code = main(["--quiet", "audit", str(config), "--state", str(state), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    second = json.loads(out)["tables"][0]
    assert second["read"]["mode"] == "incremental"
    assert second["read"]["commit_files_read"] == 8 and second["latest_version"] == 37
    assert KEY not in out + err

    # the same table from local disk, audited without state, reports the same
    local_config = _config(tmp_path / "local.toml", azurite, {"remote": str(SAMPLE_LOGS / SAMPLE)})
    code = main(["--quiet", "audit", str(local_config), "-o", str(tmp_path / "local-out")])
    capsys.readouterr()
    assert code == 0
    assert _report(tmp_path / "audit-out", "remote") == _report(tmp_path / "local-out", "remote")


def test_a_wrong_key_fails_that_table_only_and_never_shows_the_key(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    azurite: Any,
    blob_fs: AzureBlobFileSystem,
) -> None:
    wrong = KEY[:-8] + "AAAAAAA="
    monkeypatch.setenv("DF_TEST_LAKE_KEY", wrong)
    root = upload_table(blob_fs, SAMPLE_LOGS / SAMPLE, CORPUS_CONTAINER, f"audit/{tmp_path.name}/t")
    uri = f"abfss://{CORPUS_CONTAINER}@{ACCOUNT}.dfs.core.windows.net/{root.split('/', 1)[1]}"
    config = _config(
        tmp_path / "audit.toml", azurite, {"remote": uri, "local": str(SAMPLE_LOGS / SAMPLE)}
    )
    code = main(["--quiet", "audit", str(config), "--format", "json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert code == 3
    assert [t["status"] for t in summary["tables"]] == ["failed", "ok"]
    assert wrong not in out + err
    assert wrong not in (tmp_path / "audit-out" / "summary.json").read_text()
