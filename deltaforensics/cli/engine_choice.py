"""``--engine``: which engine reads the log, and the Spark settings it needs."""

from __future__ import annotations

from typing import Any

from deltaforensics.cli.options import EngineChoice
from deltaforensics.errors import UsageError


def chosen_engine(store: Any, choice: EngineChoice) -> Any:
    """The log-reading engine; ``None`` means the default polars engine."""
    if not choice.uses_spark:
        return None
    settings = spark_settings(choice.spark_conf)
    from deltaforensics.engines.spark_engine import SparkEngine  # noqa: PLC0415

    return SparkEngine(store, master=choice.spark_master, conf=settings)


def spark_settings(conf: list[str] | None) -> dict[str, str]:
    """``--spark-conf`` pairs, after checking that pyspark is there at all."""
    try:
        import pyspark  # noqa: F401, PLC0415
    except ImportError:
        raise UsageError(
            "--engine spark needs pyspark: pip install 'deltaforensics[spark]'"
        ) from None
    settings: dict[str, str] = {}
    for pair in conf or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--spark-conf takes KEY=VALUE, got {pair!r}")
        settings[key.strip()] = value.strip()
    return settings
