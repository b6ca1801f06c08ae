"""How a command reads the log: the engine a request chose, and the progress it reports."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from deltaforensics.commands.requests import Reading, SparkChoice
from deltaforensics.engines.base import Engine
from deltaforensics.errors import UsageError
from deltaforensics.log.storage import LogStore, ReportingStore


def spark_engine(store: LogStore, spark: SparkChoice | None) -> Engine | None:
    """The Spark engine ``spark`` asks for; ``None`` means the default polars engine."""
    if spark is None:
        return None
    settings = spark_settings(spark.conf)
    from deltaforensics.engines.spark_engine import SparkEngine  # noqa: PLC0415

    return SparkEngine(store, master=spark.master, conf=settings)


def spark_settings(conf: tuple[str, ...] | list[str] | None) -> dict[str, str]:
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


@contextmanager
def reporting(store: LogStore, reading: Reading, what: str) -> Iterator[LogStore]:
    """``store``, reporting how many log files it has read to the request's progress display
    while the block runs (``store`` itself when nothing is shown)."""
    if reading.progress is None:
        yield store
        return
    with reading.progress(what) as progress:
        if progress is None:
            yield store
            return
        shown = progress

        def on_read(done: int, total: int) -> None:
            shown(done, total, "log files" if done < total else "log files read; analysing")

        yield ReportingStore(store, on_read)
