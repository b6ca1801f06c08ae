"""What resolving a table URL yields: a filesystem, the table's root in it, a display URI.

A value of its own so that :mod:`deltaforensics.log.location`, which picks the resolver for a
URL, and each resolver (:mod:`deltaforensics.log.azure`) depend on it rather than on each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ResolvedLocation:
    fs: Any
    root: str
    display_uri: str  # never carries credentials
    classify: Callable[[BaseException], str]  # an error -> one safe line naming what failed


def plain_reason(exc: BaseException) -> str:
    """The ``classify`` of a filesystem whose errors need no translation."""
    return f"{type(exc).__name__}: {exc}"


__all__ = ["ResolvedLocation", "plain_reason"]
