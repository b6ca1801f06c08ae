"""``--fail-on``: which selected kinds of finding a report holds (exit code 1 when any)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FAIL_ON_CHOICES = ("conflict", "anomaly", "disagreement")


def fail_on_hits(doc: Mapping[str, Any], fail_on: Iterable[str]) -> list[str]:
    """The selections in ``fail_on`` that the explain report ``doc`` triggers, in order."""
    selected = set(fail_on)
    hits = []
    if "conflict" in selected and (
        doc["conflicts"] or any(r["outcome"] != "commits" for r in doc["races"])
    ):
        hits.append("conflict")
    if "anomaly" in selected and any(a["severity"] != "info" for a in doc["anomalies"]):
        hits.append("anomaly")
    if "disagreement" in selected and any(d["code"] == "W401" for d in doc["diagnostics"]):
        hits.append("disagreement")
    return hits
