"""What one run of the command line remembers between parsing, the command and the error handler."""

from __future__ import annotations

import gc
from typing import Any


class _State:
    debug = False
    quiet = False
    redact = False
    secrets: tuple[str, ...] = ()
    ending = False  # the process ends with this command (:func:`entry`)

    def __init__(self) -> None:
        self.kept: list[Any] = []


STATE = _State()


def one_table_then_exit() -> None:
    """When the process ends with this one table's command (:func:`entry`), pause the cyclic
    collector for all of it, not only the analysis: it would re-scan the objects the analysis
    keeps to the end, to free nothing (0.4 s of an explain of 100,000 commits)."""
    if STATE.ending:
        gc.disable()


def keep(*results: Any) -> None:
    """Keep a command's results referenced when the process ends with the command
    (:func:`entry`): releasing an explain's millions of objects one by one took half a second
    at 100,000 commits, for nothing."""
    if STATE.ending:
        STATE.kept.extend(results)
