"""A ``--profile`` name checked before anything is read."""

from __future__ import annotations

from deltaforensics.errors import UsageError
from deltaforensics.profiles import profile_by_name


def checked_profile(name: str | None) -> None:
    """Refuse a ``--profile`` name no engine release has, suggesting the nearest one."""
    if name is None:
        return
    try:
        profile_by_name(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
