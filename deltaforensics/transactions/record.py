"""The transaction record: one commit (or one attempted statement) composed of its typed parts
(:mod:`.parts`). Callers read the parts (``t.read.reads.partition_predicate``,
``t.written.added``, ``t.provenance.operation`` …); a changed copy is ``dataclasses.replace``
of a part, or one of the named edits below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from deltaforensics.transactions.parts import Provenance, Read, Reads, TableAtRead, Writes


@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction:
    """One commit (``version``) or attempted statement (``version`` None), from its parts."""

    version: int | None  # None for an attempted (uncommitted) statement
    read: Read
    table: TableAtRead
    written: Writes
    provenance: Provenance

    @property
    def name(self) -> str:
        return f"v{self.version}" if self.version is not None else "attempt"

    @property
    def blind_reason(self) -> str:
        """Why nothing can conflict with this transaction as a blind loser: an append reads no
        files; a metadata-only change (ALTER TABLE, SET TBLPROPERTIES) reads no files either,
        and Delta checks it only against a winner's ``metaData`` or ``protocol`` action."""
        w = self.written
        if (w.changes_metadata or w.changes_protocol) and w.file_counts == (0, 0):
            return (
                f"{self.provenance.operation or 'the change'} changes only table metadata and "
                "reads no data files: only a winner's metaData or protocol action fails it, "
                "and none wrote one"
            )
        return "a blind append reads nothing, so no winner can conflict with it"

    def with_reads(self, reads: Reads) -> Transaction:
        """A copy that read ``reads`` (the same snapshot and isolation level)."""
        return replace(self, read=replace(self.read, reads=reads))

    def reading_version(self, version: int, source: str) -> Transaction:
        """A copy whose snapshot is ``version`` (``readVersion``), known from ``source``."""
        return replace(self, read=replace(self.read, version=version, version_source=source))
