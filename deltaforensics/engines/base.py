"""The engine seam: both engines must produce identical :class:`ActionFrames`."""

from __future__ import annotations

from typing import Protocol

from deltaforensics.log.segment import LogSegment
from deltaforensics.model.schemas import ActionFrames


class Engine(Protocol):
    def scan(self, segment: LogSegment) -> ActionFrames: ...
