"""The per-table lookups building a history's transactions makes for each commit, built once
per history: file actions, app ids and domains by version, the table as each ``metaData``
action has it, and each distinct statement's reads. A speed memo: its lookups are keyed by
strings and identities, which hash fast (the module caches in :mod:`.memos` hash a
:class:`Profile`, which showed in profiles)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from deltaforensics.model.actions import Metadata
from deltaforensics.model.frames import slices_by
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions.commits import CommitRow, operation_of
from deltaforensics.transactions.memos import (
    AsOf,
    cached_profile_for,
    operation_predicates,
    recorded_isolation,
    recurring_reads,
)
from deltaforensics.transactions.parts import Reads, TableAtRead


@dataclass(frozen=True, slots=True)
class StatementFacts:
    """What a commit's recorded statement implies at the table it read: the same for every
    commit that repeats the statement (a history runs the same few again and again)."""

    operation: str
    isolation: IsolationLevel
    isolation_source: str
    reads: Reads | None  # None for a dynamic partition overwrite: it reads what it wrote

    @classmethod
    def of(
        cls, commit: CommitRow, profile: Profile, md: Metadata, has_adds: bool, has_removes: bool
    ) -> StatementFacts:
        isolation, iso_source = recorded_isolation(
            commit.isolation_level, md.configuration.get("delta.isolationLevel"), profile
        )
        operation = operation_of(commit)
        info = operation_predicates(operation, commit.operation_parameters)
        reads = None
        if info.source != "written-partitions":
            reads = recurring_reads(
                operation,
                commit.operation_parameters,
                commit.is_blind_append,
                profile,
                md.partition_columns,
                has_adds,
                has_removes,
            )
        return cls(operation, isolation, iso_source, reads)


class CommitHistory:
    """The lookups, by version and by identity, of one replay's commits."""

    def __init__(self, rep: Replay, forced: Profile | None) -> None:
        self.rep, self.forced = rep, forced
        self.base = rep.frames.base_version
        self.floor = max(self.base, 0)  # the first version whose snapshot the replay knows
        # the file frame is not filtered (a copy of every add: ~0.8 GB at 1,000,000 commits),
        # each commit's rows are cut from it when asked (model.frames.Slices)
        files, in_commit = rep.frames.files, pl.col("source") == "commit"
        self.adds = slices_by(files, "version", where=in_commit & (pl.col("action") == "add"))
        self.removes = slices_by(files, "version", where=in_commit & (pl.col("action") == "remove"))
        self.empty = files.clear()
        self.app_ids = _names_by_version(rep.frames.txns, "app_id")
        self.domains = _names_by_version(rep.frames.domains, "domain")
        md_versions, proto_versions = rep.metadata_versions(), rep.protocol_versions()
        self.md_versions, self.proto_versions = set(md_versions), set(proto_versions)
        self.metadata = AsOf(md_versions, rep.metadata_at)
        self.protocol = AsOf(proto_versions, rep.protocol_at)
        # id(metaData) -> the action (kept, so the id stays its own) and the table it says
        self._tables: dict[int, tuple[Metadata, TableAtRead]] = {}
        self._statements: dict[tuple[Any, ...], StatementFacts] = {}

    def profile(self, commit: CommitRow) -> Profile:
        if self.forced is not None:
            return self.forced
        return cached_profile_for(commit.engine_info, commit.client_version)

    def table_at_read(self, md: Metadata, *, clustered: bool) -> TableAtRead:
        """:meth:`TableAtRead.of`, worked out once per ``metaData`` action (by identity: the
        replay parses each action once); each transaction gets its own copy of the mutable
        values, so that no two share one."""
        found = self._tables.get(id(md))
        if found is None or found[0] is not md:
            found = self._tables[id(md)] = (md, TableAtRead.of(md, clustered=False))
        known = found[1]
        return TableAtRead(
            partition_columns=known.partition_columns,
            physical_names=dict(known.physical_names),
            column_types=known.column_types,
            has_deletion_vectors=known.has_deletion_vectors,
            clustered=clustered,
        )

    def statement(
        self, commit: CommitRow, profile: Profile, md: Metadata, has_adds: bool, has_removes: bool
    ) -> StatementFacts:
        """:meth:`StatementFacts.of`, once per distinct statement, writer and read table
        (``md`` must have been given to :meth:`table_at_read`, which keeps its id its own)."""
        key = (
            commit.operation,
            commit.has_commit_info,
            commit.operation_parameters,
            commit.is_blind_append,
            commit.isolation_level,
            commit.engine_info,  # with client_version: the profile, unless one is forced
            commit.client_version,
            id(md),
            has_adds,
            has_removes,
        )
        found = self._statements.get(key)
        if found is None:
            found = StatementFacts.of(commit, profile, md, has_adds, has_removes)
            self._statements[key] = found
        return found


def _names_by_version(frame: pl.DataFrame, column: str) -> dict[int, set[str]]:
    """The non-null values of ``column`` per version (app ids of ``txn``, domain names)."""
    out: dict[int, set[str]] = {}
    for v, name in frame.select("version", column).iter_rows():
        if name is not None:
            out.setdefault(v, set()).add(name)
    return out
