"""How an engine spells and defaults ``delta.isolationLevel``.

The spellings are profile data: Delta-Spark accepts its level names in any case, delta-rs only
its camelCase ones, so one property value can mean a level for one writer and nothing for the
other (anomaly AN006).
"""

from __future__ import annotations

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles.profile import Profile


def parse_isolation(value: str | None, profile: Profile) -> IsolationLevel | None:
    """How this engine parses a ``delta.isolationLevel`` value; ``None`` = not honoured."""
    if value is None:
        return None
    if profile.camel_case_isolation_only:
        return dict(profile.isolation_spellings).get(value)
    lowered = value.strip().lower()
    for spelling, level in profile.isolation_spellings:
        if lowered == spelling.lower():
            return level
    return None


def table_isolation(prop: str | None, profile: Profile) -> tuple[IsolationLevel, str]:
    """The level a commit that recorded none ran with, from the table property ``prop``, and
    where that level comes from."""
    parsed = parse_isolation(prop, profile)
    if parsed is not None:
        return parsed, f"table property delta.isolationLevel={prop}"
    if prop is not None:
        return (
            profile.default_isolation,
            f"{profile.engine} default (table property delta.isolationLevel={prop} is not a value {profile.engine} parses)",
        )
    return profile.default_isolation, f"{profile.engine} default"
