"""How a command reads the log: the engine a request chose, and the progress it reports."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from deltaforensics.commands.requests import Hooks, ProgressFn
from deltaforensics.errors import UsageError


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


class Progress:
    """The caller's progress display: a store reporting to :meth:`on_read` (a
    :class:`~deltaforensics.log.storage.ReportingStore`) shows the log files it reads while
    the display is :meth:`shown` (before and after, nothing is shown)."""

    def __init__(self, hooks: Hooks) -> None:
        self._open = hooks.progress
        self.wanted = hooks.progress is not None
        self._shown: ProgressFn | None = None

    @contextmanager
    def shown(self, what: str) -> Iterator[None]:
        if self._open is None:
            yield
            return
        with self._open(what) as shown:
            self._shown = shown
            try:
                yield
            finally:
                self._shown = None

    def on_read(self, done: int, total: int) -> None:
        if self._shown is not None:
            self._shown(done, total, "log files" if done < total else "log files read; analysing")
