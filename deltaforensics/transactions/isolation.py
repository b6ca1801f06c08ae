"""The isolation level a transaction ran at: as recorded, else as the table property its
engine parses, else the engine's default — and where that came from."""

from __future__ import annotations

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, table_isolation


def effective_isolation(
    recorded: str | None, config: dict[str, str], profile: Profile
) -> tuple[IsolationLevel, str]:
    if recorded:
        for level in IsolationLevel:
            if recorded.strip().lower() == level.value.lower():
                return level, "commitInfo.isolationLevel"
    return table_isolation(config.get("delta.isolationLevel"), profile)
