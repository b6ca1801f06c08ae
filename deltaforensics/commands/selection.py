"""A request's selection resolved to the versions its command reads."""

from __future__ import annotations

from collections.abc import Sequence

from deltaforensics.analysis import ErrorText, error_times
from deltaforensics.loading import resolve_range
from deltaforensics.log.selection import AroundErrors, ResolvedRange, Selection, Versions
from deltaforensics.log.storage import LogStore


def resolved(
    store: LogStore, selection: Selection, *, errors: Sequence[ErrorText] = ()
) -> ResolvedRange:
    """The range ``selection`` names; no selection at all with ``--error`` texts is the window
    around the times they were logged."""
    if selection == Versions() and errors:
        selection = AroundErrors()
    return resolve_range(store, selection, error_times=error_times(errors))
