"""history, snapshot and explain give the same JSON through every ADLS URL form as from disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adlfs import AzureBlobFileSystem

from deltaforensics.cli import main
from tests.azure.conftest import ACCOUNT, CORPUS_CONTAINER, CORPUS_TABLES, upload_table
from tests.conftest import SAMPLE_LOGS

pytestmark = [pytest.mark.azurite, pytest.mark.corpus]

SAMPLES = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
FORMS = {
    "az": "az://{c}/{p}",
    "abfs": "abfs://{c}/{p}",
    "abfss": "abfss://{c}@" + ACCOUNT + ".dfs.core.windows.net/{p}",
}
COMMANDS = {
    "history": ["history", "{t}", "--format", "json"],
    "snapshot": ["snapshot", "{t}", "--format", "json"],
    "explain": ["explain", "{t}", "--format", "json"],
}


@pytest.fixture(scope="module")
def samples_on_azurite(blob_fs: AzureBlobFileSystem) -> dict[str, Path]:
    for name in SAMPLES:
        upload_table(blob_fs, SAMPLE_LOGS / name, CORPUS_CONTAINER, f"samples/{name}")
    return {name: SAMPLE_LOGS / name for name in SAMPLES}


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, Any]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def _normalise(doc: Any, uri: str) -> Any:
    text = json.dumps(doc, sort_keys=True).replace(json.dumps(uri)[1:-1], "<table>")
    out = json.loads(text)
    if isinstance(out.get("generator"), dict):
        out["generator"] = "<generator>"
    return out


def _options(options: dict[str, str]) -> list[str]:
    return [arg for k, v in options.items() for arg in ("--storage-option", f"{k}={v}")]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    "table", [*(f"corpus:{t}" for t in CORPUS_TABLES), *(f"sample:{s}" for s in SAMPLES)]
)
def test_reports_through_azurite_equal_local_disk(
    capsys: pytest.CaptureFixture[str],
    table: str,
    form: str,
    command: str,
    corpus_on_azurite: dict[str, Path],
    samples_on_azurite: dict[str, Path],
    emulator_options: dict[str, str],
) -> None:
    kind, name = table.split(":", 1)
    local = (corpus_on_azurite if kind == "corpus" else samples_on_azurite)[name]
    prefix = f"tables/{name}" if kind == "corpus" else f"samples/{name}"
    uri = FORMS[form].format(c=CORPUS_CONTAINER, p=prefix)
    args = COMMANDS[command]
    local_code, local_doc = _run(capsys, [a.format(t=str(local)) for a in args])
    remote_code, remote_doc = _run(
        capsys, [a.format(t=uri) for a in args] + _options(emulator_options)
    )
    assert remote_code == local_code, (remote_doc, local_doc)
    if local_code == 0:
        assert _normalise(remote_doc, uri) == _normalise(local_doc, str(local))
    else:  # the same one-line error, naming the remote URL instead of the path
        assert remote_doc.replace(uri, "<table>") == local_doc.replace(str(local), "<table>")
