"""One local Spark session (``local[2]``) for every Spark test of the run.

Without pyspark the Spark tests are skipped, except under ``CI``, where they fail: CI must run
them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("pyspark is not installed; CI must run the Spark parity tests")
        pytest.skip("pyspark is not installed (pip install -e '.[spark]')")
    from deltaforensics.engines.spark_engine import spark_session

    session = spark_session("local[2]")
    yield session
    session.stop()
