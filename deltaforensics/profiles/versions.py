"""Which behaviour each engine version has: a table of (engine, version range) -> profile.

A version gets the one row of its engine whose range holds it. A new engine release that
changes a check is a new row here (split the range it falls in), not a branch in the checker.
Ranges are half-open, ``since`` inclusive, ``until`` exclusive, ``()``/``None`` unbounded.
For example, the delta-rs rows are split where a released deltalake was measured to behave
differently (``tests/conflicts/test_deltars_versions.py``, docs/fidelity.md); a row whose
behaviour no release has been measured with says ``unverified`` in its label, which every
report naming the profile prints.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles.checks import (
    DELTA_RS_ORDER,
    KERNEL_ORDER,
    SPARK_ORDER_30,
    SPARK_ORDER_32,
    SPARK_ORDER_OLD,
)
from deltaforensics.profiles.profile import Profile
from deltaforensics.profiles.profile_names import ENGINE_NAMES, parse_profile_name
from deltaforensics.profiles.statement_writers import DELTA_RS, KERNEL

# The commands that commit with OptimisticTransaction.commitIfNeeded (canSkipEmptyCommits):
# WriteIntoDelta (WRITE), DeleteCommand, UpdateCommand, MergeIntoCommand. TRUNCATE, the
# streaming sink (STREAMING UPDATE), DDL and commitLarge (RESTORE, CLONE, CONVERT) use commit()
# and never skip (delta-io/delta OptimisticTransaction.scala commitIfNeeded/commitImpl).
SPARK_COMMIT_IF_NEEDED_OPERATIONS = frozenset({"WRITE", "DELETE", "UPDATE", "MERGE"})
# Commands that commit only when they have actions: OptimizeTableCommand (``addedFiles.size >
# 0``; REORG … APPLY (PURGE) runs the same executor) and TruncateDeltaTableCommand
# (``deleteActions.nonEmpty``, Delta >= 4.3).
SPARK_IDLE_NO_COMMIT_OPERATIONS = frozenset({"OPTIMIZE", "REORG", "TRUNCATE"})

ENGINES = ENGINE_NAMES


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One engine's behaviour over a range of its versions; ``label`` formats the profile name
    (``{version}`` is the dotted version)."""

    since: tuple[int, ...] = ()
    until: tuple[int, ...] | None = None
    label: str
    behaviour: Profile

    def holds(self, version: tuple[int, ...]) -> bool:
        return version >= self.since and (self.until is None or version < self.until)


_SPARK_31 = Profile(
    name="",
    engine="delta-spark",
    rule_order=SPARK_ORDER_OLD,
    empty_commit_skipping_operations=SPARK_COMMIT_IF_NEEDED_OPERATIONS,
    idle_commands_commit_nothing=SPARK_IDLE_NO_COMMIT_OPERATIONS,
    optimize_retries_on_conflict=True,
    read_files_by_data_skipping=True,
    optimize_reads_compacted_files_only=False,
    counts_unmarked_appends_as_changed_data=True,
    blind_loser_shortcut=False,
    refuses_to_set_write_serializable=True,
    spark_sql=True,
)
_SPARK_32 = replace(_SPARK_31, rule_order=SPARK_ORDER_32, blind_loser_shortcut=True)
# Delta 3.3 (delta-io/delta #3089, #3982): each OPTIMIZE batch marks as read only the files it
# compacts, and its retry compares them with their deletion vectors (measured on 3.3.2 and
# 4.4.0); up to 3.2 it read every file of its partition predicate (a whole-table OPTIMIZE failing
# on a lone file it left alone: measured on 3.2.1, tests/realspark/logs/delta-3.2.1)
_SPARK_33 = replace(
    _SPARK_32,
    optimize_reads_compacted_files_only=True,
    optimize_retry_compares_deletion_vectors=True,
)
_DATABRICKS = replace(
    _SPARK_33,
    engine="databricks",
    default_isolation=IsolationLevel.WRITE_SERIALIZABLE,
    dv_optimize_tolerance=True,
    refuses_to_set_write_serializable=False,
)
_DELTA_RS = Profile(
    name="",
    engine="delta-rs",
    rule_order=DELTA_RS_ORDER,
    checks_create_race=False,
    protocol_compared_by_versions=True,
    blind_loser_shortcut=False,
    stats_matching=True,
    appends_read_all_files=True,
    optimize_reads_compacted_files_only=False,
    isolation_spellings=(
        ("serializable", IsolationLevel.SERIALIZABLE),
        ("writeSerializable", IsolationLevel.WRITE_SERIALIZABLE),
        ("snapshotIsolation", IsolationLevel.SNAPSHOT_ISOLATION),
    ),
    camel_case_isolation_only=True,
    writer=DELTA_RS,
    elides_empty_commits=True,
    commit_info_from_user=True,
    sql_statements=False,
)
_SPARK_NAME = "delta-spark {version}"
_RS_NAME = "delta-rs {version}"
_RS_DOUBLE_DELETE_SKIPPED = (1, 6, 4)  # 1.6.3 refused it, 1.6.6 (next on PyPI) commits both
_RS_NEWEST_MEASURED = (1, 6, 7)  # the first version after the newest release measured, 1.6.6

ROWS: Mapping[str, tuple[Row, ...]] = MappingProxyType(
    {
        "delta-spark": (
            Row(until=(3, 0), label=_SPARK_NAME + " (≤3.1)", behaviour=_SPARK_31),
            Row(
                since=(3, 0),
                until=(3, 1),
                label=_SPARK_NAME + " (≤3.1)",
                behaviour=replace(_SPARK_31, rule_order=SPARK_ORDER_30),
            ),
            Row(
                since=(3, 1),
                until=(3, 2),
                label=_SPARK_NAME + " (≤3.1)",
                behaviour=replace(_SPARK_31, rule_order=SPARK_ORDER_30, blind_loser_shortcut=True),
            ),
            Row(since=(3, 2), until=(3, 3), label=_SPARK_NAME + " (3.2–4.0)", behaviour=_SPARK_32),
            Row(
                since=(3, 3),
                until=(4, 1),
                label=_SPARK_NAME + " (3.2–4.0)",
                behaviour=replace(_SPARK_33, identity_tolerance=True),
            ),
            Row(
                since=(4, 1),
                label=_SPARK_NAME + " (≥4.1)",
                behaviour=replace(_SPARK_33, identity_tolerance=True, metadata_allow_list=True),
            ),
        ),
        "databricks": (
            Row(until=(14, 2), label="databricks {version}", behaviour=_DATABRICKS),
            # the page "Isolation levels and write conflicts on Azure Databricks": row-level
            # concurrency from 14.2; "MERGE INTO support for row-level concurrency requires
            # Photon in Databricks Runtime 14.2. In Databricks Runtime 14.3 LTS and above,
            # Photon is not required."
            Row(
                since=(14, 2),
                until=(14, 3),
                label="databricks {version}",
                behaviour=replace(
                    _DATABRICKS, row_level_concurrency=True, merge_row_level_needs_photon=True
                ),
            ),
            Row(
                since=(14, 3),
                label="databricks {version}",
                behaviour=replace(_DATABRICKS, row_level_concurrency=True),
            ),
        ),
        # measured per release by tests/conflicts/test_deltars_versions.py (docs/fidelity.md)
        "delta-rs": (
            # 0.x-1.1: an operation without a predicate registers no read files
            # (TransactionInfo::read_files returned an empty set; measured 0.25.5, 1.1.4)
            Row(
                until=(1, 2),
                label=_RS_NAME,
                behaviour=replace(_DELTA_RS, predicate_free_reads_all_files=False),
            ),
            # 1.2: without a predicate every file of its snapshot is read (measured 1.2.1)
            Row(since=(1, 2), until=(1, 3), label=_RS_NAME, behaviour=_DELTA_RS),
            # 1.3: dataChange=false removes no longer fail readers (delta-rs PR #3982;
            # measured 1.3.3, 1.4.2, 1.5.1, 1.6.3); the delete-delete check still refuses
            # two concurrent compactions of the same file
            Row(
                since=(1, 3),
                until=_RS_DOUBLE_DELETE_SKIPPED,
                label=_RS_NAME,
                behaviour=replace(_DELTA_RS, delete_read_skips_compaction_removes=True),
            ),
            # 1.6.6: two concurrent compactions of the same file both commit, the rows
            # duplicated (field notes §3.4, O5; measured 1.6.6)
            Row(
                since=_RS_DOUBLE_DELETE_SKIPPED,
                until=_RS_NEWEST_MEASURED,
                label=_RS_NAME,
                behaviour=replace(
                    _DELTA_RS,
                    delete_read_skips_compaction_removes=True,
                    delete_delete_skips_compaction_removes=True,
                ),
            ),
            # delta-rs main expects the double compaction to conflict again
            # (conflict_checker.rs test_concurrent_compaction_double_delete_still_conflicts);
            # no release after 1.6.6 has been measured, so the row says it is unverified
            Row(
                since=_RS_NEWEST_MEASURED,
                label=_RS_NAME + " (unverified: no release measured)",
                behaviour=replace(
                    _DELTA_RS, delete_read_skips_compaction_removes=True, unreleased_behaviour=True
                ),
            ),
        ),
        "kernel": (
            Row(
                label="delta-kernel",
                behaviour=Profile(
                    name="",
                    engine="kernel",
                    rule_order=KERNEL_ORDER,
                    checks_added_files=False,
                    checks_read_files=False,
                    blind_loser_shortcut=False,
                    writer=KERNEL,
                ),
            ),
        ),
    }
)
DEFAULT_VERSIONS: Mapping[str, tuple[int, ...]] = MappingProxyType(
    {"delta-spark": (4, 1), "databricks": (15, 4), "delta-rs": (1, 6, 6), "kernel": ()}
)


def profile_of(engine: str, version: tuple[int, ...] = ()) -> Profile:
    """The profile of ``engine`` at ``version`` (its default version when empty)."""
    v = version or DEFAULT_VERSIONS[engine]
    row = next(r for r in ROWS[engine] if r.holds(v))
    name = row.label.format(version=".".join(map(str, v)))
    return replace(row.behaviour, name=name, version=v)


def delta_spark(version: tuple[int, ...] = ()) -> Profile:
    return profile_of("delta-spark", version)


def databricks(version: tuple[int, ...] = ()) -> Profile:
    return profile_of("databricks", version)


def delta_rs(version: tuple[int, ...] = ()) -> Profile:
    return profile_of("delta-rs", version)


def kernel(version: tuple[int, ...] = ()) -> Profile:
    return profile_of("kernel", version)


def _numbers(text: str) -> tuple[int, ...]:
    m = re.match(r"(\d+(?:\.\d+)*)", text)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


# commitInfo fields only Databricks writes (its cluster, job, notebook and user): the JSON a
# Databricks conflict message prints of the winning commit carries them without an engineInfo
DATABRICKS_ONLY_FIELDS = ("clusterId", "job", "notebook", "userId", "userName")


def _engine_release(engine_info: str, client_version: str) -> tuple[str, str]:
    """The engine that wrote a commit and the release it recorded (``""``: none), from its
    ``engineInfo`` and ``clientVersion``: the one reading of them :func:`profile_for` and
    :func:`engine_of_commit` share."""
    if m := re.search(r"Databricks-Runtime/(\S+)", engine_info):
        return "databricks", m.group(1)
    if m := re.search(r"Delta-Lake/(\S+)", engine_info):
        return "delta-spark", m.group(1)
    if m := re.search(r"delta-rs[:.](?:py-)?(\S+)", engine_info + " " + client_version):
        return "delta-rs", m.group(1)
    if engine_info.startswith("Kernel") or "kernel" in engine_info.lower():
        return "kernel", ""
    return "delta-spark", ""


def profile_for(engine_info: str | None, client_version: str | None = None) -> Profile:
    """The checker that most likely ran for a commit, from what the writer recorded."""
    engine, release = _engine_release(engine_info or "", client_version or "")
    profile = profile_of(engine, _numbers(release))
    if engine == "databricks":  # Photon is named in the runtime's release
        return replace(profile, photon="photon" in release.lower())
    return profile


def engine_of_commit(commit_info: Mapping[str, object]) -> str:
    """Which engine wrote a commit, from its ``commitInfo`` (an engine of :data:`ENGINES`):
    what :func:`profile_for` reads from ``engineInfo`` and ``clientVersion``, and Databricks
    whatever those say when the commit records a field only Databricks writes
    (:data:`DATABRICKS_ONLY_FIELDS`)."""
    info, client = commit_info.get("engineInfo"), commit_info.get("clientVersion")
    engine, _ = _engine_release(
        info if isinstance(info, str) else "", client if isinstance(client, str) else ""
    )
    return "databricks" if any(k in commit_info for k in DATABRICKS_ONLY_FIELDS) else engine


def written_on_databricks(commit_info: Mapping[str, object]) -> bool:
    """Whether :func:`engine_of_commit` says Databricks wrote this commit."""
    return engine_of_commit(commit_info) == "databricks"


def profile_by_name(name: str) -> Profile:
    """``--profile`` values: ``delta-spark[-X.Y]``, ``databricks[-X.Y]``, ``delta-rs[-X.Y]``,
    ``kernel``, each release one the engine had (:mod:`.profile_names`)."""
    engine, version = parse_profile_name(name)
    return profile_of(engine, version).forced()
