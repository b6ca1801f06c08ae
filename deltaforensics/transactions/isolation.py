"""The isolation level a transaction ran at: as recorded, else as the table property its
engine parses, else the engine's default — and where that came from."""

from __future__ import annotations

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, table_isolation


def effective_isolation(
    recorded: str | None, config: dict[str, str], profile: Profile
) -> tuple[IsolationLevel, str]:
    level = recorded_level(recorded)
    if level is not None:
        return level, "commitInfo.isolationLevel"
    return table_isolation(config.get("delta.isolationLevel"), profile)


def recorded_level(recorded: str | None) -> IsolationLevel | None:
    """The level a commitInfo ``isolationLevel`` text names, if it names one."""
    if recorded:
        for level in IsolationLevel:
            if recorded.strip().lower() == level.value.lower():
                return level
    return None
