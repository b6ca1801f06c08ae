"""Pausing Python's cyclic garbage collector while a history's objects are built.

An analysis builds a transaction per commit and an evaluation set over them: millions of small
containers that all live on and make no reference cycles. The collector would re-scan the
growing heap again and again (a quarter of ``reconstruct_transactions`` at 100,000 commits,
~2 s of an ``explain``) to free nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, and left as it was found afterwards (a caller that disabled
    it keeps it disabled), also on an error. Usable as a decorator."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
