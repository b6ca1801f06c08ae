"""A what-if change in words: one imperative sentence in Delta's words that every format (rich,
Markdown, HTML, the audit dashboard) shows for a recommendation or a ``whatif`` scenario."""

from __future__ import annotations

from collections.abc import Mapping

from deltaforensics.report.document.entry import JsonValue
from deltaforensics.report.plain import change_text
from deltaforensics.whatif.scenario import (
    Change,
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    PartitionBy,
    SeparateSchedules,
    change_from_dict,
)

REWRITE_WORDS = "forces a table rewrite"


def rewrite_words(change: str, rewrites_table: bool) -> str:
    """``change`` (its words) followed by "forces a table rewrite" when applying it rewrites
    the table: a commit that fails every writer running concurrently (issue #31 item 3)."""
    return f"{change} ({REWRITE_WORDS})" if rewrites_table else change


def change_json_words(change: Mapping[str, JsonValue]) -> str:
    """:func:`change_words` of a change's JSON form (a dataset row read back); a kind this does
    not know yet is shown with its parameters, never dropped."""
    try:
        c = change_from_dict(change)
    except (ValueError, KeyError, TypeError):
        return change_text(change)
    return change_words(c)


def change_words(c: Change) -> str:
    """A recommended or what-if change as one imperative sentence in Delta's words: ``Partition
    the table by date``. The one wording every format uses."""
    if isinstance(c, PartitionBy):
        return f"Partition the table by {', '.join(c.columns)}"
    if isinstance(c, Liquid):
        return f"Use liquid clustering on {', '.join(c.columns)} instead of partitions"
    if isinstance(c, IsolationChange):
        return f"Set the table's isolation level: delta.isolationLevel = '{c.level}'"
    if isinstance(c, DeletionVectors):
        return "Enable deletion vectors (delta.enableDeletionVectors = true)"
    if isinstance(c, ExplicitMergePredicates):
        ops = ", ".join(c.operations)
        return f"Name the partitions each {ops} touches as literals in its condition"
    if isinstance(c, SeparateSchedules):
        if c.writer_a == c.writer_b:
            return f"Run one instance of {c.writer_a} at a time"
        return f"Never run {c.writer_a} and {c.writer_b} at the same time"
    return f"Have {c.writer} record its appends as blind appends (isBlindAppend)"
