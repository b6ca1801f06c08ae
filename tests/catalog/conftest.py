"""The Unity Catalog stand-in (see standin.py for why it is one) and a clean environment."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.catalog.standin import StandInCatalog, serving


@pytest.fixture(autouse=True)
def _no_ambient_catalog_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A developer's own Databricks profile or variables must not change what the tests see."""
    for name in list(os.environ):
        if name.upper().startswith(("DATABRICKS_", "DELTAFORENSICS_UC_", "ARM_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / "home" / ".databrickscfg"))


@pytest.fixture
def uc() -> Iterator[StandInCatalog]:
    with serving(StandInCatalog()) as catalog:
        yield catalog
