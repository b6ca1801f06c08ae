"""``whatif``: what a change of layout or isolation would avoid or introduce."""

from __future__ import annotations

from dataclasses import replace

from deltaforensics.analysis import analyze, observed_attempts
from deltaforensics.commands.finish import redacted
from deltaforensics.commands.harvest import failure_input
from deltaforensics.commands.profiles import checked_profile
from deltaforensics.commands.reading import Progress
from deltaforensics.commands.requests import NO_HOOKS, Hooks, WhatIfRequest
from deltaforensics.commands.tables import open_table
from deltaforensics.errors import UsageError
from deltaforensics.log.selection import resolve_range
from deltaforensics.report.document import WhatIfDocument
from deltaforensics.report.document.whatif import whatif_document
from deltaforensics.whatif.document import compare_scenario
from deltaforensics.whatif.scenario import (
    Change,
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    PartitionBy,
    Scenario,
)


def whatif_report(request: WhatIfRequest, hooks: Hooks = NO_HOOKS) -> WhatIfDocument:
    """The what-if report of ``request``'s changes on its table's history."""
    checked_profile(request.profile)
    if not request.changes:
        raise UsageError(NO_CHANGE)
    evidence = request.evidence
    opened = open_table(request.table, request.access, None, Progress(hooks))
    selected = resolve_range(opened.store, request.selection, error_times=evidence.error_times)
    analysis = analyze(
        opened.store,
        selected=selected,
        profile_name=request.profile,
        error_texts=evidence.error_texts,
        attempts=evidence.attempts,
        recommendations=False,
        failures=failure_input(evidence, selected, request.access.storage_options),
    )
    scenario = Scenario.of(*request.changes)
    comparison = compare_scenario(analysis, scenario, attempts=observed_attempts(analysis))
    doc = whatif_document(analysis, comparison)
    doc = redacted(doc, request.redact, analysis.transactions.commit_infos())
    return replace(doc, time_window=selected.window)


NO_CHANGE = (
    "name at least one change: --partition-by, --isolation, --deletion-vectors, "
    "--liquid, --explicit-merge-predicates"
)


def scenario_changes(
    *,
    partition_by: tuple[str, ...] = (),
    isolation: str | None = None,
    deletion_vectors: bool = False,
    liquid: tuple[str, ...] = (),
    explicit_merge_predicates: bool = False,
) -> tuple[Change, ...]:
    """The what-if changes named, in this order; at least one."""
    changes: list[Change] = []
    if partition_by:
        changes.append(PartitionBy(partition_by))
    if isolation:
        if isolation.strip().lower() not in (
            "serializable",
            "writeserializable",
            "snapshotisolation",
        ):
            raise UsageError("--isolation is Serializable or WriteSerializable")
        changes.append(IsolationChange(isolation.strip()))
    if deletion_vectors:
        changes.append(DeletionVectors())
    if liquid:
        changes.append(Liquid(liquid))
    if explicit_merge_predicates:
        changes.append(ExplicitMergePredicates())
    if not changes:
        raise UsageError(NO_CHANGE)
    return tuple(changes)
