"""Reading while a real deltalake writer keeps committing: one listing, a consistent answer."""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from deltaforensics.analysis import load, load_commits, open_store


@pytest.mark.engine
def test_reads_during_commits_are_consistent_cuts(tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": [0], "date": ["2024-01-01"]}), partition_by=["date"])
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        i = 1
        try:
            while not stop.is_set() and i < 400:
                write_deltalake(
                    path,
                    pa.table({"id": [i], "date": [f"2024-01-{i % 28 + 1:02d}"]}),
                    mode="append",
                )
                if i % 25 == 0:
                    DeltaTable(path).delete(f"id = {i - 3}")
                i += 1
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=writer)
    thread.start()
    seen: list[int] = []
    try:
        for _ in range(25):
            loaded = load(open_store(path), mode="history")
            v = loaded.replay.end_version
            ours = set(loaded.replay.snapshot_at(v).files["path"].to_list())
            prefix = str(Path(path).resolve()) + "/"
            theirs = {uri.split(prefix, 1)[-1] for uri in DeltaTable(path, version=v).file_uris()}
            assert ours == theirs, v
            _, commits, _ = load_commits(open_store(path))
            assert commits["version"].to_list() == list(range(commits.height))
            seen.append(v)
    finally:
        stop.set()
        thread.join()
    assert not errors, errors
    assert len(set(seen)) > 1, "the writer never committed while we read"
