"""The progress bar on stderr while the log is read."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class ProgressBar:
    """A rich progress bar on stderr, only when stderr is a terminal and not ``--quiet``."""

    def __init__(self, what: str, *, quiet: bool) -> None:
        self.what = what
        self.quiet = quiet
        self.bar: Any = None
        self.task: Any = None

    @staticmethod
    def shows(*, quiet: bool) -> bool:
        """Whether a bar is drawn: stderr is a terminal and ``--quiet`` was not given."""
        return not quiet and sys.stderr.isatty()

    def __enter__(self) -> Callable[[int, int, str], None] | None:
        """The function told of each file read; ``None`` when no bar is shown."""
        if not self.shows(quiet=self.quiet):
            return None
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
