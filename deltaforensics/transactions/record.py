"""The transaction record: one commit (or one attempted statement) composed of its typed parts
(:mod:`.parts`). It also answers to the flat names callers read it by (:mod:`.flat_names`).
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.transactions.flat_names import FlatNames
from deltaforensics.transactions.parts import Provenance, Read, TableAtRead, Writes


@dataclass(frozen=True, slots=True, kw_only=True)
class Transaction(FlatNames):
    """One commit (``version``) or attempted statement (``version`` None), from its parts."""

    version: int | None  # None for an attempted (uncommitted) statement
    read: Read
    table: TableAtRead
    written: Writes
    provenance: Provenance

    @property
    def name(self) -> str:
        return f"v{self.version}" if self.version is not None else "attempt"
