"""Action frames -> the file lifecycle, and the table's state at any version.

The lifecycle has one row per *add* of a logical file (key = path + deletion-vector id): the
version it became live and the version its life ended, either by a remove of the same key or by
a re-add that superseded the record. Built with one sort and one window — no per-action loop.
A snapshot at ``v`` is a filter: ``added_version <= v`` and (``end_version`` null or ``> v``).
"""

from __future__ import annotations

from deltaforensics.replay.as_of import (
    KEY,
    Replay,
    build_lifecycle,
    content_diagnostics,
    live_at_end,
    operation_parameters,
    parse_interval_ms,
    replay,
)

__all__ = [
    "KEY",
    "Replay",
    "build_lifecycle",
    "content_diagnostics",
    "live_at_end",
    "operation_parameters",
    "parse_interval_ms",
    "replay",
]
