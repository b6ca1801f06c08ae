"""Plain-text pieces shared by the renderers (each escapes for its own format)."""

from __future__ import annotations

import json
from typing import Any


def change_text(change: dict[str, Any]) -> str:
    """``{"kind": "partition-by", "columns": ["date"]}`` -> ``partition-by columns=date``."""
    params = []
    for key in sorted(k for k in change if k != "kind"):
        v = change[key]
        shown = (
            ", ".join(map(str, v))
            if isinstance(v, list)
            else v
            if isinstance(v, str)
            else json.dumps(v)
        )
        params.append(f"{key}={shown}")
    return " ".join([str(change.get("kind", "?")), *params])
