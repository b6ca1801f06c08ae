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

    def with_reads(self, reads: Reads) -> Transaction:
        """A copy that read ``reads`` (the same snapshot and isolation level)."""
        return replace(self, read=replace(self.read, reads=reads))

    def reading_version(self, version: int, source: str) -> Transaction:
        """A copy whose snapshot is ``version`` (``readVersion``), known from ``source``."""
        return replace(self, read=replace(self.read, version=version, version_source=source))
