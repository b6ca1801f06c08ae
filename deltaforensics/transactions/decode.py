"""commitInfo texts decoded leniently: a text that is not JSON reads as nothing recorded,
because a messy log yields a report, never a traceback (style guide §2.5)."""

from __future__ import annotations

from typing import Any

from deltaforensics.model.json_text import loads


def json_or_none(text: str | None) -> Any:
    if not text:
        return None
    try:
        return loads(text)
    except ValueError:
        return None


def parameters_of(value: Any) -> dict[str, Any]:
    """``operationParameters`` as a dict; anything else recorded there reads as none."""
    return value if isinstance(value, dict) else {}
