"""The failure harvest through abfss:// on a real Azurite: the same conflicts as on local disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deltaforensics.errors import StorageError
from deltaforensics.sources import harvest, read_failures
from tests.azure.conftest import ACCOUNT, upload_table
from tests.sources.support import FIXTURES, expected_conflicts, fixture_tables

pytestmark = pytest.mark.azurite
CONTAINER = "sparklogs"


def test_event_logs_and_driver_logs_read_through_abfss(
    blob_fs: Any, emulator_options: dict[str, str]
) -> None:
    upload_table(blob_fs, FIXTURES / "eventlogs", CONTAINER, "spark-events")
    upload_table(blob_fs, FIXTURES / "dbx", CONTAINER, "cluster-logs")
    base = f"abfss://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net"
    sources = [f"{base}/spark-events", f"{base}/cluster-logs"]
    result = harvest(sources, fixture_tables(), storage_options=emulator_options)
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == (
        expected_conflicts()
    )
    assert result.unmatched == () and result.diagnostics == ()
    assert all(s.startswith("abfss://") for c in result.conflicts for s in c.sources)


def test_a_missing_folder_on_abfss_is_the_tools_error(
    blob_fs: Any, emulator_options: dict[str, str]
) -> None:
    blob_fs.mkdir(CONTAINER, exist_ok=True)
    missing = f"abfss://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net/nothing-here"
    with pytest.raises(StorageError, match="nothing-here"):
        read_failures(missing, storage_options=emulator_options)


def test_openlineage_events_read_through_abfss(
    blob_fs: Any, emulator_options: dict[str, str], tmp_path: Path
) -> None:
    """Events written by openlineage-python (tests/sources/openlineage_events.py) on Azurite."""
    from tests.sources.openlineage_events import write_events

    folder = tmp_path / "lineage"
    folder.mkdir()
    zstd = FIXTURES / "eventlogs" / "local-1795858444023.zstd"
    write_events(read_failures(str(zstd)).failures, folder / "events.ndjson")
    upload_table(blob_fs, folder, CONTAINER, "lineage")
    source = f"openlineage:abfss://{CONTAINER}@{ACCOUNT}.dfs.core.windows.net/lineage"
    result = harvest([source], fixture_tables(), storage_options=emulator_options)
    expected = {c for c in expected_conflicts() if c[0].startswith("zstd_")}
    assert {(c.table, c.winner_version, c.exception) for c in result.conflicts} == expected
    assert all(c.failure.source.startswith("abfss://") for c in result.conflicts)
