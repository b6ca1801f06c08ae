"""Action frames -> the file lifecycle, and the table's state at any version.

:mod:`.lifecycle` turns the file actions into one row per add with the version its life
ended; :class:`Replay` (:mod:`.as_of`) answers "as of version v" from it; :mod:`.commits` is
the one-row-per-commit table; :mod:`.diagnostics` remarks on what the actions say.
"""

from __future__ import annotations

from deltaforensics.replay.as_of import Replay, parse_interval_ms, replay
from deltaforensics.replay.commits import operation_parameters
from deltaforensics.replay.diagnostics import content_diagnostics, unreadable_times
from deltaforensics.replay.lifecycle import KEY, build_lifecycle, live_at_end

__all__ = [
    "KEY",
    "Replay",
    "build_lifecycle",
    "content_diagnostics",
    "live_at_end",
    "operation_parameters",
    "parse_interval_ms",
    "replay",
    "unreadable_times",
]
