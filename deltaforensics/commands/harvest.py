"""``--failures-from``: the failures Spark event logs and driver logs recorded on the table, read
as more ``--error`` texts (docs/failures.md)."""

from __future__ import annotations

from collections.abc import Mapping

from deltaforensics.commands.requests import Evidence
from deltaforensics.log.storage import LogStore


def harvested(evidence: Evidence, store: LogStore, storage_options: Mapping[str, str]) -> Evidence:
    """``evidence`` with the failures its sources recorded on ``store``'s table.

    The smallest wiring (issue #33): a failure belongs to the table when its message or its
    plan names the table's location; the winner's commitInfo is not matched against the
    table's commits here (docs/failures.md)."""
    if not evidence.failures_from:
        return evidence
    from deltaforensics.failures import TableCommits, harvest_conflicts  # noqa: PLC0415
    from deltaforensics.sources import read_failures  # noqa: PLC0415

    failures = [
        f
        for source in evidence.failures_from
        for f in read_failures(source, storage_options=dict(storage_options)).failures
    ]
    found = harvest_conflicts(failures, [TableCommits(store.uri, store.uri)])
    texts = {(c.failure.source, c.failure.error_text): None for c in found.conflicts}
    return evidence.with_texts(texts)
