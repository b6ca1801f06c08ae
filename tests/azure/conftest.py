"""One real Azurite per session, and the corpus tables uploaded to it once.

The emulator starter lives in benchmarks/_azurite.py (the benchmark uses it too) and is loaded
here by path. Azurite is installed on first use with `.ci/install_azurite.sh` (npm, into the
git-ignored `.azurite/`); if that cannot be done the fixture fails under CI and skips elsewhere.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from adlfs import AzureBlobFileSystem

REPO = Path(__file__).resolve().parents[2]


def _load_starter() -> ModuleType:
    path = REPO / "benchmarks" / "_azurite.py"
    spec = importlib.util.spec_from_file_location("deltaforensics_azurite_starter", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


starter = _load_starter()
ACCOUNT: str = starter.ACCOUNT
KEY: str = starter.KEY

# Diverse real logs: multi-part and classic checkpoints, V2 checkpoints with sidecars (parquet
# and JSON), a junk sub-folder, compacted log files, catalog-managed _staged_commits, many files.
CORPUS_TABLES = (
    "delta__multi-part-checkpoint",
    "kernelrs__v2-checkpoints-parquet-with-sidecars",
    "delta__v2-checkpoint-json",
    "deltars__checkpoint-v2-table",
    "delta__catalog-owned-preview",
    "deltars__checkpoint_with_partitions",
    "kernelrs__compacted-log-files-table",
    "delta__basic-dv-with-checkpoint",
)
CORPUS_CONTAINER = "corpus"


def upload_table(fs: Any, local_dir: Path, container: str, prefix: str) -> str:
    """Copy every file under ``local_dir`` to ``container/prefix``; return that fs path.

    Empty folders are not copied: blob storage has no empty folders to copy them to.
    """
    if not fs.exists(container):
        fs.mkdir(container)
    root = f"{container}/{prefix.strip('/')}"
    fs.pipe(
        {
            f"{root}/{path.relative_to(local_dir).as_posix()}": path.read_bytes()
            for path in sorted(local_dir.rglob("*"))
            if path.is_file()
        }
    )
    fs.invalidate_cache()
    return root


@pytest.fixture(autouse=True)
def _no_ambient_azure_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own AZURE_* variables must not change what these tests see."""
    for name in list(os.environ):
        if name.upper().startswith(("AZURE_", "AZURITE_")):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    exe, output = starter.ensure_azurite()
    if exe is None:
        message = f"Azurite is not installed and installing it failed: {starter.INSTALL_HINT}"
        if os.environ.get("CI"):
            pytest.fail(f"{message}\n{output}")
        pytest.skip(message)
    server = starter.start_azurite(exe, tmp_path_factory.mktemp("azurite"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def blob_fs(azurite: Any) -> AzureBlobFileSystem:
    """Plain adlfs with the emulator's connection string: for uploads and cross-checks."""
    return AzureBlobFileSystem(
        connection_string=azurite.connection_string, skip_instance_cache=True
    )


@pytest.fixture(scope="session")
def emulator_options(azurite: Any) -> dict[str, str]:
    return {"use_emulator": "true", "azure_storage_endpoint": azurite.blob_endpoint}


@pytest.fixture(scope="session")
def key_options(azurite: Any) -> dict[str, str]:
    return {
        "account_name": ACCOUNT,
        "account_key": KEY,
        "endpoint": azurite.blob_endpoint,
        "allow_http": "true",
    }


@pytest.fixture(scope="session")
def corpus_on_azurite(blob_fs: AzureBlobFileSystem, corpus_dir: Path) -> dict[str, Path]:
    """Upload the chosen corpus tables to corpus/tables/<name>; map name -> local folder."""
    local = {name: corpus_dir / name for name in CORPUS_TABLES}
    for name, path in local.items():
        upload_table(blob_fs, path, CORPUS_CONTAINER, f"tables/{name}")
    return local
