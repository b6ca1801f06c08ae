"""The three object stores, each a real server the tests start on loopback, behind one fixture.

- ``adls``: Azurite (benchmarks/_azurite.py, as tests/azure uses it).
- ``s3``: moto's standalone server, an S3 EMULATOR (benchmarks/_cloud_emulators.py).
- ``gcs``: gcp-storage-emulator, a GCS EMULATOR (the same module).

Every test of this folder that takes ``store`` runs once per store: the same tables, uploaded
the same way, must give the same listing, bytes and reports as the local copy. Each store
also has a fault-injecting proxy in front of it (tests/stores/fault_proxy.py, a stand-in of
the tests' own) for the failures emulators cannot produce.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.azure.conftest import CORPUS_TABLES
from tests.stores.fault_proxy import FaultProxy, serving

REPO = Path(__file__).resolve().parents[2]
STORES = ("adls", "s3", "gcs")
BUCKET = "corpus"
__all__ = ["CORPUS_TABLES"]  # the real logs tests/azure uploads, uploaded to every store here


def _load(name: str) -> ModuleType:
    path = REPO / "benchmarks" / name
    spec = importlib.util.spec_from_file_location(f"deltaforensics_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


emulators = _load("_cloud_emulators.py")
azurite_starter = _load("_azurite.py")


@dataclass
class Store:
    """One running store: how to upload to it, spell its URLs, and open it with options."""

    kind: str
    fs: Any  # a plain fsspec filesystem of the store, for uploads and cross-checks
    options: dict[str, str] = field(repr=False)
    forms: dict[str, str]  # URL form name -> template with {bucket} and {prefix}
    endpoint: str
    proxy: FaultProxy = field(init=False)
    proxied_options: dict[str, str] = field(init=False, repr=False)
    _made: set[str] = field(default_factory=set)

    def url(self, prefix: str, form: str | None = None, bucket: str = BUCKET) -> str:
        template = self.forms[form or next(iter(self.forms))]
        return template.format(bucket=bucket, prefix=prefix.strip("/"))

    def make_bucket(self, bucket: str) -> None:
        if bucket in self._made:
            return
        if self.kind == "s3":
            with contextlib.suppress(FileExistsError):
                self.fs.call_s3("create_bucket", Bucket=bucket)
        elif not self.fs.exists(bucket):
            self.fs.mkdir(bucket)
        self._made.add(bucket)

    def upload(self, local_dir: Path, prefix: str, bucket: str = BUCKET) -> str:
        """Copy every file under ``local_dir`` to ``bucket/prefix``; return that fs path."""
        self.make_bucket(bucket)
        root = f"{bucket}/{prefix.strip('/')}"
        self.fs.pipe(
            {
                f"{root}/{path.relative_to(local_dir).as_posix()}": path.read_bytes()
                for path in sorted(local_dir.rglob("*"))
                if path.is_file()
            }
        )
        self.fs.invalidate_cache()
        return root


@pytest.fixture(autouse=True)
def _no_ambient_cloud_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A developer's own AWS_*, GOOGLE_* and AZURE_* settings must not change what tests see."""
    for name in list(os.environ):
        if name.upper().startswith(("AZURE_", "AZURITE_", "AWS_", "GOOGLE_", "STORAGE_EMULATOR")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("NO_GCE_CHECK", "true")


def _proxied(kind: str, url: str, options: dict[str, str]) -> dict[str, str]:
    """The store's options with the proxy as its endpoint."""
    if kind == "s3":
        return {**options, "AWS_ENDPOINT_URL": url}
    if kind == "gcs":
        return {**options, "google_endpoint": url}
    return {**options, "azure_storage_endpoint": f"{url}/{azurite_starter.ACCOUNT}"}


def _start_s3(tmp: Path) -> tuple[Any, Callable[[], None], Store]:
    import s3fs

    server = emulators.start_emulator("s3", tmp)
    fs = s3fs.S3FileSystem(
        key=emulators.S3_KEY_ID,
        secret=emulators.S3_SECRET,
        endpoint_url=server.endpoint,
        client_kwargs={"region_name": emulators.S3_REGION},
        skip_instance_cache=True,
        use_listings_cache=False,
    )
    options = {
        "AWS_ACCESS_KEY_ID": emulators.S3_KEY_ID,
        "AWS_SECRET_ACCESS_KEY": emulators.S3_SECRET,
        "AWS_REGION": emulators.S3_REGION,
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_ALLOW_HTTP": "true",
    }
    forms = {"s3": "s3://{bucket}/{prefix}", "s3a": "s3a://{bucket}/{prefix}"}
    return server, server.stop, Store("s3", fs, options, forms, server.endpoint)


def _start_gcs(tmp: Path) -> tuple[Any, Callable[[], None], Store]:
    from gcsfs.core import GCSFileSystem

    server = emulators.start_emulator("gcs", tmp)
    fs = GCSFileSystem(
        endpoint_url=server.endpoint,
        token="anon",
        project="emulated",
        skip_instance_cache=True,
        use_listings_cache=False,
    )
    options = {"google_endpoint": server.endpoint}
    forms = {"gs": "gs://{bucket}/{prefix}", "gcs": "gcs://{bucket}/{prefix}"}
    return server, server.stop, Store("gcs", fs, options, forms, server.endpoint)


def _start_adls(tmp: Path) -> tuple[Any, Callable[[], None], Store]:
    from adlfs import AzureBlobFileSystem

    exe, output = azurite_starter.ensure_azurite()
    if exe is None:
        message = (
            f"Azurite is not installed and installing it failed: {azurite_starter.INSTALL_HINT}"
        )
        if os.environ.get("CI"):
            pytest.fail(f"{message}\n{output}")
        pytest.skip(message)
    server = azurite_starter.start_azurite(exe, tmp)
    fs = AzureBlobFileSystem(connection_string=server.connection_string, skip_instance_cache=True)
    options = {"use_emulator": "true", "azure_storage_endpoint": server.blob_endpoint}
    account = azurite_starter.ACCOUNT
    forms = {
        "az": "az://{bucket}/{prefix}",
        "abfs": "abfs://{bucket}/{prefix}",
        "abfss": "abfss://{bucket}@" + account + ".dfs.core.windows.net/{prefix}",
    }
    endpoint = f"http://127.0.0.1:{server.port}"
    return server, server.stop, Store("adls", fs, options, forms, endpoint)


_STARTERS = {"s3": _start_s3, "gcs": _start_gcs, "adls": _start_adls}


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Store]]:
    """Each store started on first use, and stopped at the end of the session."""
    started: dict[str, Store] = {}
    stops: list[Callable[[], None]] = []
    proxies: list[Any] = []

    def get(kind: str) -> Store:
        if kind not in started:
            _, stop, store = _STARTERS[kind](tmp_path_factory.mktemp(kind))
            stops.append(stop)
            style = "gcs" if kind == "gcs" else "s3"
            context = serving(FaultProxy(upstream=store.endpoint, style=style))
            store.proxy = context.__enter__()
            proxies.append(context)
            store.proxied_options = _proxied(kind, store.proxy.url, store.options)
            started[kind] = store
        return started[kind]

    try:
        yield get
    finally:
        for context in proxies:
            context.__exit__(None, None, None)
        for stop in stops:
            stop()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, servers: Callable[[str], Store]) -> Store:
    found = servers(request.param)
    found.proxy.clear()
    return found


@pytest.fixture(scope="session")
def corpus_on(corpus_dir: Path) -> Callable[[Store], dict[str, Path]]:
    """The corpus tables uploaded to a store once, at ``corpus/tables/<name>``."""
    done: set[str] = set()
    local = {name: corpus_dir / name for name in CORPUS_TABLES}

    def upload(store: Store) -> dict[str, Path]:
        if store.kind not in done:
            for name, path in local.items():
                store.upload(path, f"tables/{name}")
            done.add(store.kind)
        return local

    return upload
