"""A recommendation's rationale in words: what was seen and avoided, the hypothetical
exposure apart, the mechanism, and one example pair (split from :mod:`.candidates`, which
measures the candidates)."""

from __future__ import annotations

from collections.abc import Mapping

from deltaforensics.conflicts.checker import COMMITS
from deltaforensics.model.ids import Severity
from deltaforensics.model.words import agree, plural
from deltaforensics.whatif.comparison import Comparison
from deltaforensics.whatif.recommendations.instructions import TableFacts
from deltaforensics.whatif.scenario import (
    Change,
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    SeparateSchedules,
)
from deltaforensics.whatif.writers import MAX_NAME


def _example(cmp: Comparison) -> str:
    for p in cmp.pairs:
        if p.avoided:
            return f"{_short(p.label)} losing to v{p.winner_version} ({p.before}) now commits: {p.reason}"
    for p in cmp.pairs:
        if p.fragile_before and not p.fragile_after and p.after == COMMITS:
            return f"{_short(p.label)} is no longer one change away from a conflict"
    return ""


def _short(label: str) -> str:
    """A statement's text cut to a name's length (an attempt's label is its SQL)."""
    return label if len(label) <= MAX_NAME else label[: MAX_NAME - 1].rstrip() + "…"


def rationale(
    change: Change, cmp: Comparison, facts: TableFacts, fragile: int, unmeasured: int = 0
) -> str:
    """``unmeasured``: conflicts seen in error texts that no evaluated pair stands for."""
    ev = cmp.evaluated_on
    seen = cmp.baseline.conflicts
    parts = [
        (
            f"Seen: avoids {cmp.conflicts_avoided} of the {plural(seen, 'conflict')} seen (errors, "
            "attempts, model-predicted races)"
            + (f" and {plural(fragile, 'fragile race')}" if fragile > 0 else "")
            if seen
            else f"Seen: {'no measured conflict' if unmeasured else 'no conflict'} (errors, "
            "attempts, model-predicted races)"
            + (f"; makes {plural(fragile, 'fragile race')} robust" if fragile > 0 else "")
        )
        + (f" (but makes {plural(-fragile, 'more race')} fragile)" if fragile < 0 else "")
        + (
            f" but introduces {cmp.conflicts_introduced} (trade-off)"
            if cmp.conflicts_introduced
            else ", introduces none"
        )
        + f", measured on {plural(ev['races'], 'race')}, "
        f"{plural(ev['errors'] - unmeasured, 'error')} and {plural(ev['attempts'], 'attempt')}."
        + (
            f" {plural(unmeasured, 'conflict')} seen in error texts {agree(unmeasured, 'is', 'are')}"
            " not measured (outcome unknown): the failed statement is not known and the text names no job of this "
            "log (give it with --attempt)."
            if unmeasured
            else ""
        ),
        hypothetical_text(cmp.hypothetical),
    ]
    parts.append(_mechanism(change, facts))
    example = _example(cmp)
    if example:
        parts.append(f"For example {example}.")
    parts += [
        d.message + "."
        for d in cmp.diagnostics
        if d.code == "W601" or (d.code in ("W602", "W603") and d.severity is Severity.WARNING)
    ]
    return " ".join(p for p in parts if p)


def hypothetical_text(h: Mapping[str, int]) -> str:
    """The writer matrix as exposure, apart from what was seen ("" when it is empty)."""
    if not h["writer_pairs"]:
        return ""
    flips = []
    if h["avoided"]:
        flips.append(f"{h['avoided']} would no longer")
    if h["introduced"]:
        flips.append(f"{h['introduced']} more would")
    if not flips:
        return (
            f"Hypothetical: of {plural(h['writer_pairs'], 'writer pair')} that could conflict if "
            f"they overlapped ({h['conflicting_before']} do today), the change flips none."
        )
    return (
        f"Hypothetical: of {plural(h['writer_pairs'], 'writer pair')} that could conflict if "
        f"they overlapped ({h['conflicting_before']} do today), {' and '.join(flips)}; those "
        f"writers really overlapped {plural(h['overlapped'], 'time')} in this history."
    )


def _mechanism(change: Change, facts: TableFacts) -> str:
    if isinstance(change, ExplicitMergePredicates):
        return (
            "Without a literal partition conjunct in ON, a MERGE reads the whole table and "
            "conflicts with commits in any other partition; with the partitions it actually "
            "touched as literals it reads only those."
        )
    if isinstance(change, IsolationChange):
        text = (
            "WriteSerializable ignores winners recorded as blind appends (isBlindAppend=true), "
            "unless the loser changes metadata."
        )
        if facts.delta_rs:
            text += (
                f" delta-rs reads only the camelCase value '{change.level}' (it ignores "
                "'WriteSerializable') and never records isBlindAppend itself: its appends must pass "
                'CommitProperties(custom_metadata={"isBlindAppend": True}).'
            )
        if facts.oss_only:
            text += (
                " Open-source Delta (≥ 2.1) refuses to set this property to anything but "
                "Serializable: a table already carrying WriteSerializable keeps it, but OSS cannot "
                "set it — keep the property if it is there."
            )
        return text
    if isinstance(change, PartitionBy):
        return (
            f"The writers filter on {', '.join(change.columns)}: partitioned by it, their read "
            "predicates prune each other's files (Delta only checks partition values)."
        )
    if isinstance(change, Liquid | DeletionVectors):
        return (
            "Databricks row-level concurrency (DBR ≥ 14.2; MERGE needs Photon on 14.2, 14.3 LTS "
            "and above otherwise) lets DML commits that touch different rows commit together."
        )
    if isinstance(change, SeparateSchedules):
        return (
            "These writers conflict whenever they overlap; running them apart removes the overlap."
        )
    if isinstance(change, MarkBlindAppends):
        return (
            "delta-rs never records isBlindAppend, so its appends count as changed data and fail "
            "concurrent Spark UPDATE/DELETE/MERGE even under WriteSerializable. The delta-rs "
            "append itself still reads every file and loses to a concurrent data-changing delete."
        )
    return ""
