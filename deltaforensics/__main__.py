from __future__ import annotations

from deltaforensics.cli import entry

entry()
