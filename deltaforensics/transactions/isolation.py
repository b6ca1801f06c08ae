"""The isolation level a transaction ran at: as recorded, else as the table property its
engine parses, else the engine's default — and where that came from."""

from __future__ import annotations

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.transactions.engine_profile import Profile, parse_isolation


def effective_isolation(
    recorded: str | None, config: dict[str, str], profile: Profile
) -> tuple[IsolationLevel, str]:
    if recorded:
        for level in IsolationLevel:
            if recorded.strip().lower() == level.value.lower():
                return level, "commitInfo.isolationLevel"
    prop = config.get("delta.isolationLevel")
    parsed = parse_isolation(prop, profile)
    if parsed is not None:
        return parsed, f"table property delta.isolationLevel={prop}"
    if prop is not None:
        return (
            profile.default_isolation,
            f"{profile.engine} default (table property delta.isolationLevel={prop} is not a value {profile.engine} parses)",
        )
    return profile.default_isolation, f"{profile.engine} default"
