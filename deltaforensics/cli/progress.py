"""The progress bar on stderr while the log is read."""

from __future__ import annotations

import sys
from typing import Any


def reporting(store: Any, progress: Any) -> Any:
    """The store, reporting read progress to an active progress bar."""
    if isinstance(progress, NoProgress):
        return store
    from deltaforensics.log.storage import ReportingStore  # noqa: PLC0415

    def on_read(done: int, total: int) -> None:
        progress(done, total, "log files" if done < total else "log files read; analysing")

    return ReportingStore(store, on_read)


class NoProgress:
    def __call__(self, done: int, total: int, label: str) -> None:
        return None


class ProgressBar:
    """A rich progress bar on stderr, only when stderr is a terminal and not ``--quiet``."""

    def __init__(self, what: str, *, quiet: bool) -> None:
        self.what = what
        self.quiet = quiet
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Any:
        if self.quiet or not sys.stderr.isatty():
            return NoProgress()
        from rich.console import Console  # noqa: PLC0415
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[label]}"),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.what, total=None, label="")
        return self._update

    def _update(self, done: int, total: int, label: str) -> None:
        self.bar.update(self.task, completed=done, total=total, label=label)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
