"""The behaviour of one engine version's conflict checker and commit writer, as named fields.

Every difference between engines that the checker, the transaction reconstruction, the attempt
simulator, anomalies and what-if need is a field here, set per version range in
:mod:`deltaforensics.profiles.versions`. Code asks the field that says what differs
(``profile.stats_matching``), never which engine it is; ``engine`` and ``name`` are labels
for reports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles.checks import Check
from deltaforensics.profiles.statement_writers import SPARK, BlindAppendFlag, StatementWriter

SPARK_ISOLATION_SPELLINGS = (
    ("Serializable", IsolationLevel.SERIALIZABLE),
    ("WriteSerializable", IsolationLevel.WRITE_SERIALIZABLE),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    name: str
    engine: str  # a label for reports; branch on the fields below instead
    version: tuple[int, ...] = ()
    inferred: bool = True  # chosen from commitInfo, not forced by --profile
    # the row models the engine's main branch for releases newer than any measured (W402)
    unreleased_behaviour: bool = False

    # -- the conflict checker ----------------------------------------------------------------
    rule_order: tuple[Check, ...] = ()  # the checks it runs, in its order
    checks_create_race: bool = True  # delta-rs reloads at the winner's create and writes next
    # Spark's skipRecordingEmptyCommits: the operations whose commands commit through
    # commitIfNeeded, so a commit of theirs with no action at all is not written under
    # Serializable or SnapshotIsolation; every other command's empty commit is written, checked
    empty_commit_skipping_operations: frozenset[str] = frozenset()
    # commands that return before committing when they have nothing to do (Spark: OPTIMIZE
    # with nothing to compact, TRUNCATE of an empty table), whatever the isolation level
    idle_commands_commit_nothing: frozenset[str] = frozenset()
    # Spark's OptimizeExecutor.commitAndRetry: an OPTIMIZE that loses starts a new transaction
    # and commits again while every file it compacted is still in the table and the partition
    # columns are unchanged (measured on Delta 2.4.0 and 3.3.2, docs/fidelity.md)
    optimize_retries_on_conflict: bool = False
    # ... and a file counts as still there only with its same deletion vector (a DML winner on a
    # DV table re-adds the path with a new one): Delta 3.3.2 measured so, 2.4.0 compared paths
    optimize_retry_compares_deletion_vectors: bool = False
    protocol_compared_by_versions: bool = False  # delta-rs: reader/writer versions, not features
    metadata_allow_list: bool = False  # OSS >= 4.1 lets allow-listed property changes pass
    identity_tolerance: bool = False  # OSS >= 3.3 lets identity-high-water-mark winners pass
    row_level_concurrency: bool = False  # Databricks >= 14.2 on DV tables w/o partitions, liquid
    # Databricks 14.2: "MERGE INTO support for row-level concurrency requires Photon"
    merge_row_level_needs_photon: bool = False
    photon: bool = False  # Databricks: the commit's engineInfo names Photon
    dv_optimize_tolerance: bool = False  # Databricks: OPTIMIZE vs DML on DV tables only with ZORDER
    checks_added_files: bool = True  # Kernel-Java does no added/read-file checks
    checks_read_files: bool = True
    blind_loser_shortcut: bool = (
        True  # Spark >= 3.1: a blind-append loser skips the added-files check
    )
    # delta-rs ignores dataChange=false removes, per check: delete-read from 1.3, delete-delete
    # in 1.6.6 only (measured releases; profiles/versions.py)
    delete_read_skips_compaction_removes: bool = False
    delete_delete_skips_compaction_removes: bool = False
    counts_unmarked_appends_as_changed_data: bool = False  # Spark: adds without isBlindAppend=true

    # -- what it read ------------------------------------------------------------------------
    stats_matching: bool = False  # delta-rs matches files to its predicate by min/max stats
    # Delta-Spark's OptimisticTransaction.filterFiles marks as read only the files that survive
    # data skipping (partition values and min/max statistics) on a DELETE, UPDATE, MERGE or
    # replaceWhere filter; its added-files check still matches partition predicates only
    # (ConflictChecker.checkForAddedFilesThatShouldHaveBeenReadByCurrentTxn)
    read_files_by_data_skipping: bool = False
    appends_read_all_files: bool = False  # delta-rs: reads are its predicate, matched by stats
    # delta-rs >= 1.2: an operation without a predicate (append, full overwrite, OPTIMIZE) reads
    # every file of its snapshot; before, it read none (``TransactionInfo::read_files``)
    predicate_free_reads_all_files: bool = True
    # OPTIMIZE (and REORG … APPLY (PURGE)) marks as read only the files it rewrites: Delta-Spark
    # >= 3.3 (OptimizeExecutor.runOptimizeBatch, trackFilesRead(filesToProcess)); before 3.3 it
    # read every file its partition predicate matched (txn.filterFiles(partitionPredicate)) and
    # its retry compared all of them; delta-rs OPTIMIZE reads its whole snapshot
    optimize_reads_compacted_files_only: bool = True

    # -- isolation levels --------------------------------------------------------------------
    default_isolation: IsolationLevel = IsolationLevel.SERIALIZABLE
    isolation_spellings: tuple[tuple[str, IsolationLevel], ...] = SPARK_ISOLATION_SPELLINGS
    camel_case_isolation_only: bool = False  # only these exact spellings (else any case)
    # open-source Delta (>= 2.1) refuses to *set* delta.isolationLevel to anything but
    # Serializable; it honours WriteSerializable only when the property is already there
    refuses_to_set_write_serializable: bool = False

    # -- what it writes ----------------------------------------------------------------------
    writer: StatementWriter = SPARK
    elides_empty_commits: bool = (
        False  # delta-rs writes no commit for a statement that changes nothing
    )
    commit_info_from_user: bool = False  # delta-rs copies caller-given keys into commitInfo
    sql_statements: bool = True  # users write its statements as SQL (delta-rs: Python calls)
    spark_sql: bool = False  # its tables are changed with Spark SQL DDL (REPLACE TABLE, ALTER)

    @property
    def label(self) -> str:
        return self.name

    @property
    def marks_blind_appends(self) -> bool:
        """Whether its own appends record ``isBlindAppend=true``."""
        return self.writer.blind_append_flag is BlindAppendFlag.RECORDED

    @property
    def can_mark_blind_appends(self) -> bool:
        """Whether its appends can carry ``isBlindAppend=true``, by itself or by the caller."""
        return self.marks_blind_appends or self.commit_info_from_user

    def forced(self) -> Profile:
        return replace(self, inferred=False)
