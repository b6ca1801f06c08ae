"""Where Spark reads a store's ``_delta_log``: a local store's as a plain path (its
``SupportsLocalFiles`` capability), a remote store's as its URI, a store that cannot say as
nothing. No Spark session: only the path is computed."""

from __future__ import annotations

from pathlib import Path

from deltaforensics.engines.spark_paths import spark_log_uri
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.storage import ReportingStore, StoreWrapper


def _local(tmp_path: Path) -> FsspecLogStore:
    table = tmp_path / "a [table]"
    (table / "_delta_log").mkdir(parents=True)
    return FsspecLogStore.from_uri(str(table))


def test_a_local_store_is_read_by_its_escaped_path(tmp_path: Path) -> None:
    store = _local(tmp_path)
    expected = "file://" + (tmp_path / "a [table]" / "_delta_log").resolve().as_posix()
    expected = expected.replace("[", "\\[").replace("]", "\\]")
    assert spark_log_uri(store) == expected
    assert spark_log_uri(ReportingStore(store, lambda done, total: None)) == expected


def test_a_store_that_keeps_no_local_capability_is_read_by_its_uri_or_not_at_all(
    tmp_path: Path,
) -> None:
    """A wrapper passes no capability on: a local path it hides is not Spark's to read."""
    local = _local(tmp_path)
    assert spark_log_uri(StoreWrapper(local)) is None

    class Remote(StoreWrapper):
        @property
        def uri(self) -> str:
            return "abfss://c@acct.dfs.core.windows.net/t"

    assert spark_log_uri(Remote(local)) == ("abfss://c@acct.dfs.core.windows.net/t/_delta_log")
