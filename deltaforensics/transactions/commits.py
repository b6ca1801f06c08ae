"""The commit table's columns a transaction is built from, one row per commit, and what they
say on their own: the operation's name and the snapshot version the commit read."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import NamedTuple

import polars as pl

from deltaforensics.profiles import Profile


class CommitRow(NamedTuple):
    """The ``Replay.commits`` columns a transaction is built from, for one commit."""

    version: int
    commit_info: str | None
    operation: str | None
    isolation_level: str | None
    engine_info: str | None
    client_version: str | None
    read_version: int | None
    is_blind_append: bool | None
    operation_parameters: str | None
    timestamp: int | None
    in_commit_timestamp: int | None
    has_commit_info: bool


def commit_rows(commits: pl.DataFrame) -> Iterator[CommitRow]:
    """The commits, row by row, from whole columns: ``iter_rows(named=True)`` builds a dict of
    every column per commit, which over 100,000 commits showed in profiles."""
    columns = [commits.get_column(name).to_list() for name in CommitRow._fields]
    return map(CommitRow._make, zip(*columns, strict=True))


def operation_of(commit: CommitRow) -> str:
    """The recorded operation, upper-cased; a commit without commitInfo is a bare
    ``TRANSACTION``, one whose commitInfo names none ``UNKNOWN``."""
    return (
        commit.operation or ("TRANSACTION" if not commit.has_commit_info else "UNKNOWN")
    ).upper()


def read_version_of(commit: CommitRow, profile: Profile, creates: bool) -> tuple[int | None, str]:
    """The snapshot version the commit read, and where that came from; ``creates``: the commit
    writes both protocol and metaData."""
    v, read_version = commit.version, commit.read_version
    if read_version is not None and read_version >= 0:
        return read_version, "commitInfo.readVersion"
    if v == 0:
        return -1, "table creation"
    if _late_create(commit.operation, creates):
        return (
            -1,
            "table creation at a later version: it lost a creation race (delta-rs rewrites it as the next version)",
        )
    if commit.has_commit_info:
        # one string per distinct writer and operation, not one per commit (issue #23)
        return (
            None,
            sys.intern(
                f"not recorded ({profile.engine} writes no readVersion for {commit.operation or 'this operation'})"
            ),
        )
    return None, "not recorded (no commitInfo)"


def _late_create(operation: str | None, writes_protocol_and_metadata: bool) -> bool:
    """A plain CREATE TABLE after version 0 without ``readVersion`` read nothing: no engine
    creates over an existing table except a creator that lost the version-0 race (§E 34)."""
    return (operation or "").upper() in late_create_operations() and writes_protocol_and_metadata


def late_create_operations() -> tuple[str, ...]:
    """The operations (upper-cased) a create that lost the version-0 race records."""
    return ("CREATE TABLE", "CREATE TABLE AS SELECT")
