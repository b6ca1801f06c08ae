"""Reading one value of the audit's TOML config: a string, a URL, no unknown key; each error
names the config file and the key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deltaforensics.errors import UsageError


def is_url(uri: str) -> bool:
    return "://" in uri


def no_unknown(doc: Mapping[str, Any], allowed: set[str], source: str, prefix: str) -> None:
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise UsageError(
            f"{source}: unknown key {prefix}{unknown[0]} (expected one of {', '.join(sorted(allowed))})"
        )


def optional_str(doc: Mapping[str, Any], key: str, source: str, prefix: str) -> str | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{source}: {prefix}{key} must be a non-empty string")
    return value.strip()
