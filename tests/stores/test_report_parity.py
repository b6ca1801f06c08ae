"""history, snapshot and explain give the same JSON through every store (ADLS on Azurite, S3 on
moto's server, GCS on gcp-storage-emulator: EMULATORS) as from the local copy: the corpus'
multi-part and V2 checkpoints, and the sample logs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.cli import main
from tests.azure.test_report_parity import _normalise, _options
from tests.conftest import SAMPLE_LOGS
from tests.stores.conftest import CORPUS_TABLES, Store

pytestmark = [pytest.mark.objectstore, pytest.mark.corpus]

SAMPLES = sorted(p.name for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
COMMANDS = {
    "history": ["history", "{t}", "--format", "json"],
    "snapshot": ["snapshot", "{t}", "--format", "json"],
    "explain": ["explain", "{t}", "--format", "json"],
}


@pytest.fixture(scope="module")
def samples_on() -> Callable[[Store], dict[str, Path]]:
    done: set[str] = set()

    def upload(store: Store) -> dict[str, Path]:
        if store.kind not in done:
            for name in SAMPLES:
                store.upload(SAMPLE_LOGS / name, f"samples/{name}")
            done.add(store.kind)
        return {name: SAMPLE_LOGS / name for name in SAMPLES}

    return upload


_LOCAL: dict[tuple[str, str], tuple[int, Any]] = {}  # the local run, once for the three stores


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, Any]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def storage_args(options: dict[str, str]) -> list[str]:
    return _options(options)


@pytest.mark.parametrize(
    "table", [*(f"corpus:{t}" for t in CORPUS_TABLES), *(f"sample:{s}" for s in SAMPLES)]
)
def test_reports_through_each_store_equal_local_disk(
    capsys: pytest.CaptureFixture[str],
    table: str,
    store: Store,
    corpus_on: Callable[[Store], dict[str, Path]],
    samples_on: Callable[[Store], dict[str, Path]],
) -> None:
    kind, name = table.split(":", 1)
    local = (corpus_on(store) if kind == "corpus" else samples_on(store))[name]
    uri = store.url(f"tables/{name}" if kind == "corpus" else f"samples/{name}")
    for args in COMMANDS.values():
        key = (str(local), args[0])
        if key not in _LOCAL:
            _LOCAL[key] = _run(capsys, [a.format(t=str(local)) for a in args])
        local_code, local_doc = _LOCAL[key]
        remote_code, remote_doc = _run(
            capsys, [a.format(t=uri) for a in args] + storage_args(store.options)
        )
        assert remote_code == local_code, (remote_doc, local_doc)
        if local_code == 0:
            assert _normalise(remote_doc, uri) == _normalise(local_doc, str(local))
        else:  # the same one-line error, naming the remote URL instead of the path
            assert remote_doc.replace(uri, "<table>") == local_doc.replace(str(local), "<table>")
