"""``--failures-from``: the failures Spark event logs, driver logs, OpenLineage and Databricks
recorded, for the analysis to keep this table's of (docs/failures.md)."""

from __future__ import annotations

from collections.abc import Mapping

from deltaforensics.analysis import FailureInput
from deltaforensics.commands.requests import Evidence
from deltaforensics.log.selection import ResolvedRange


def failure_input(
    evidence: Evidence, selected: ResolvedRange, storage_options: Mapping[str, str]
) -> FailureInput | None:
    """The sources of ``evidence`` as the analysis reads them (``None``: none given), in the
    window of ``--since``/``--until`` when one chose the range; the analysis matches each
    failure's winner against the table's own commits (:mod:`deltaforensics.failures`)."""
    if not evidence.failures_from:
        return None
    window = selected.window
    return FailureInput(
        sources=evidence.failures_from,
        storage_options=dict(storage_options),
        since_ms=window.since_ms if window is not None else None,
        until_ms=window.until_ms if window is not None else None,
    )
