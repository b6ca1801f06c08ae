"""The flat names a transaction is read by (``t.read_predicate``, ``t.added``,
``t.isolation`` …), each answered by the part that holds it (:data:`FLAT_NAMES`), and
:meth:`FlatNames.revised`, which makes a copy from those names: ``dataclasses.replace``
knows only the parts."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    import polars as pl

    from deltaforensics.model.ids import IsolationLevel
    from deltaforensics.predicates.ir import Predicate
    from deltaforensics.profiles import Profile
    from deltaforensics.transactions.parts import Provenance, Read, TableAtRead, Writes

# flat name -> the path of parts that holds it
FLAT_NAMES: dict[str, tuple[str, ...]] = {
    "read_version": ("read", "version"),
    "read_version_source": ("read", "version_source"),
    "isolation": ("read", "isolation"),
    "isolation_source": ("read", "isolation_source"),
    "blind": ("read", "reads", "blind"),
    "read_predicate": ("read", "reads", "partition_predicate"),
    "full_predicate": ("read", "reads", "full_predicate"),
    "read_whole_table": ("read", "reads", "whole_table"),
    "registers_read_files": ("read", "reads", "registers_files"),
    "read_reason": ("read", "reads", "reason"),
    "confidence": ("read", "reads", "confidence"),
    "partition_columns": ("table", "partition_columns"),
    "physical_names": ("table", "physical_names"),
    "column_types": ("table", "column_types"),
    "has_deletion_vectors": ("table", "has_deletion_vectors"),
    "clustered": ("table", "clustered"),
    "added": ("written", "added"),
    "removed": ("written", "removed"),
    "changes_metadata": ("written", "changes_metadata"),
    "changes_protocol": ("written", "changes_protocol"),
    "metadata_change_keys": ("written", "metadata_change", "keys"),
    "metadata_change_other": ("written", "metadata_change", "other"),
    "metadata_change_values": ("written", "metadata_change", "values"),
    "identity_only_metadata": ("written", "metadata_change", "identity_only"),
    "protocol_drops_features": ("written", "protocol_drops_features"),
    "app_ids": ("written", "app_ids"),
    "domains": ("written", "domains"),
    "dynamic_partition_overwrite": ("written", "dynamic_partition_overwrite"),
    "z_order": ("written", "z_order"),
    "operation": ("provenance", "operation"),
    "parameters": ("provenance", "parameters"),
    "profile": ("provenance", "profile"),
    "is_blind_append": ("provenance", "is_blind_append"),
    "commit_info": ("provenance", "commit_info"),
    "has_commit_info": ("provenance", "has_commit_info"),
    "timestamp": ("provenance", "timestamp"),
    "statement": ("provenance", "statement"),
}


class FlatNames:
    """The flat names of :class:`~deltaforensics.transactions.record.Transaction`."""

    __slots__ = ()

    if TYPE_CHECKING:  # the parts, declared by the dataclass that inherits this
        read: Read
        table: TableAtRead
        written: Writes
        provenance: Provenance

    def revised(self, **changes: Any) -> Self:
        """A copy with ``changes`` given by flat name (``read_predicate=…``) or part name
        (``read=…``), each put into the part that holds it; the other parts are shared."""
        revised: Self = _replaced(self, [(FLAT_NAMES.get(k, (k,)), v) for k, v in changes.items()])
        return revised

    @property
    def file_counts(self) -> tuple[int, int]:
        return self.written.file_counts

    @property
    def has_data_change(self) -> bool:
        return self.written.has_data_change

    @property
    def is_commit_large(self) -> bool:
        return self.provenance.is_commit_large

    @property
    def writer(self) -> str:
        return self.provenance.writer

    @property
    def who(self) -> str:
        return self.provenance.who

    # the flat names (FLAT_NAMES), read through the parts

    @property
    def read_version(self) -> int | None:
        return self.read.version

    @property
    def read_version_source(self) -> str:
        return self.read.version_source

    @property
    def isolation(self) -> IsolationLevel:
        return self.read.isolation

    @property
    def isolation_source(self) -> str:
        return self.read.isolation_source

    @property
    def blind(self) -> bool:
        return self.read.reads.blind

    @property
    def read_predicate(self) -> Predicate | None:
        return self.read.reads.partition_predicate

    @property
    def full_predicate(self) -> Predicate | None:
        return self.read.reads.full_predicate

    @property
    def read_whole_table(self) -> bool:
        return self.read.reads.whole_table

    @property
    def registers_read_files(self) -> bool:
        return self.read.reads.registers_files

    @property
    def read_reason(self) -> str:
        return self.read.reads.reason

    @property
    def confidence(self) -> str:
        return self.read.reads.confidence

    @property
    def partition_columns(self) -> tuple[str, ...]:
        return self.table.partition_columns

    @property
    def physical_names(self) -> dict[str, str]:
        return self.table.physical_names

    @property
    def column_types(self) -> dict[str, str]:
        return self.table.column_types

    @property
    def has_deletion_vectors(self) -> bool:
        return self.table.has_deletion_vectors

    @property
    def clustered(self) -> bool:
        return self.table.clustered

    @property
    def added(self) -> pl.DataFrame:
        return self.written.added

    @property
    def removed(self) -> pl.DataFrame:
        return self.written.removed

    @property
    def changes_metadata(self) -> bool:
        return self.written.changes_metadata

    @property
    def changes_protocol(self) -> bool:
        return self.written.changes_protocol

    @property
    def metadata_change_keys(self) -> tuple[str, ...]:
        return self.written.metadata_change.keys

    @property
    def metadata_change_other(self) -> bool:
        return self.written.metadata_change.other

    @property
    def metadata_change_values(self) -> dict[str, tuple[str | None, str | None]]:
        return self.written.metadata_change.values

    @property
    def identity_only_metadata(self) -> bool:
        return self.written.metadata_change.identity_only

    @property
    def protocol_drops_features(self) -> bool:
        return self.written.protocol_drops_features

    @property
    def app_ids(self) -> frozenset[str]:
        return self.written.app_ids

    @property
    def domains(self) -> frozenset[str]:
        return self.written.domains

    @property
    def dynamic_partition_overwrite(self) -> bool:
        return self.written.dynamic_partition_overwrite

    @property
    def z_order(self) -> tuple[str, ...]:
        return self.written.z_order

    @property
    def operation(self) -> str:
        return self.provenance.operation

    @property
    def parameters(self) -> dict[str, Any]:
        return self.provenance.parameters

    @property
    def profile(self) -> Profile:
        return self.provenance.profile

    @property
    def is_blind_append(self) -> bool | None:
        return self.provenance.is_blind_append

    @property
    def commit_info(self) -> dict[str, Any]:
        return self.provenance.commit_info

    @property
    def has_commit_info(self) -> bool:
        return self.provenance.has_commit_info

    @property
    def timestamp(self) -> int | None:
        return self.provenance.timestamp

    @property
    def statement(self) -> str | None:
        return self.provenance.statement


def _replaced(value: Any, changes: list[tuple[tuple[str, ...], Any]]) -> Any:
    """``value`` with each (path, new) of ``changes`` replaced, part by part."""
    here: dict[str, Any] = {}
    inner: dict[str, list[tuple[tuple[str, ...], Any]]] = {}
    for path, new in changes:
        if len(path) == 1:
            here[path[0]] = new
        else:
            inner.setdefault(path[0], []).append((path[1:], new))
    for name, nested in inner.items():
        here[name] = _replaced(here.get(name, getattr(value, name)), nested)
    return replace(value, **here)
