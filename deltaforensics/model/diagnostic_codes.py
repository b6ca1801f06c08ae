"""Every diagnostic code (``Wnnn``): a remark about a log the tool could read around.

One catalogue module rather than a constant beside each emitter: the codes are emitted from
seven modules in five layers (``log``, ``replay``, ``analysis``, ``whatif``, ``audit``), some from
two of them (W102, W107), and read by others (``report.gates``, ``whatif.recommendations.candidates``); a code
must sit below all of them. The ranges (:data:`~deltaforensics.model.codes.RANGES`) are topics:
W1xx the log's layout, W2xx what the actions say, W3xx predicates and transactions, W4xx the
conflict model against the log, W5xx error texts, W6xx what-if, W7xx the audit's kept state.

A diagnostic names its code with :func:`~deltaforensics.model.diagnostics.warning` or
:func:`~deltaforensics.model.diagnostics.info`; a code registered as info is never a warning.
Over 400 lines because it is documentation: 31 entries of a dozen lines each.
"""

from __future__ import annotations

from deltaforensics.model.codes import Code
from deltaforensics.model.ids import Severity

COMMIT_GAP = Code(
    code="W101",
    name="commit-gap",
    severity=Severity.WARNING,
    title="commit files missing from the retained log",
    doc="""
## What it means
Commit files between the first and the last listed version are missing. A snapshot is still
exact when a checkpoint at or after the gap covers them (the message says so); without one a
snapshot that needs them is an error, and only the history is read.

## Why it matters
What those commits did (operation, read version, predicate) is unknown: races with a winner in
the gap cannot be judged, and anomalies that span it are not seen.

## What to do
Find who deleted the files (a manual cleanup, an incomplete copy of `_delta_log`). When
analysing a copy, copy the whole log; otherwise analyse from after the gap (`--from-version`).
""",
)
CHECKPOINT_FALLBACK = Code(
    code="W102",
    name="checkpoint-fallback",
    severity=Severity.WARNING,
    title="a checkpoint is unreadable; the snapshot was rebuilt from an older base",
    doc="""
## What it means
A checkpoint could not be read (corrupt, truncated, or with a wrong schema); the tool rebuilt
the snapshot from an older checkpoint or from version 0 and the commits after it.

## Why it matters
The answer is still exact, but every reader of the table meets the same broken file: some fall
back as this tool does, slower, others fail.

## What to do
Write a new checkpoint (`DeltaLog.checkpoint()` on Spark, `DeltaTable.create_checkpoint()` in
deltalake) and find why the writer left a broken one (a killed job, a non-atomic upload).
""",
)
LAST_CHECKPOINT_STALE = Code(
    code="W103",
    name="last-checkpoint-stale",
    severity=Severity.WARNING,
    title="`_last_checkpoint` names a missing or an older checkpoint",
    doc="""
## What it means
`_delta_log/_last_checkpoint` names a version that has no checkpoint (a warning), or an older
checkpoint than the newest one listed (info: a checkpoint writer died before updating the hint).

## Why it matters
The hint only saves a listing; the tool listed the log and used what is there. Readers that
trust the hint without listing fail on a missing checkpoint or replay more commits than needed.

## What to do
Nothing for the analysis. The next checkpoint rewrites the hint; a missing checkpoint means
something removed it, which is worth finding.
""",
)
LAST_CHECKPOINT_UNREADABLE = Code(
    code="W104",
    name="last-checkpoint-unreadable",
    severity=Severity.WARNING,
    title="`_last_checkpoint` is empty or corrupt; the log was listed instead",
    doc="""
## What it means
`_delta_log/_last_checkpoint` exists but is empty or not the JSON it should be.

## Why it matters
The tool lists the log and loses nothing; engines that read the hint first may fail or fall
back to a full listing. A partly written file points at a writer killed mid-checkpoint.

## What to do
Write a new checkpoint, which rewrites the hint; look for killed checkpoint writers.
""",
)
STAGED_COMMITS_PRESENT = Code(
    code="W105",
    name="staged-commits-present",
    severity=Severity.INFO,
    title="staged commits of a catalog-managed table are not treated as committed",
    doc="""
## What it means
`_delta_log/_staged_commits/` holds commit files: the table is catalog-managed, and these are
commits the catalog may or may not have ratified.

## Why it matters
Only the catalog knows which staged commits are part of the table; the analysis covers the
published log only, so the newest commits may be missing from it.

## What to do
Analyse again after the catalog has published the commits, or read the ratified versions from
the catalog.
""",
)
JUNK_FILES_IGNORED = Code(
    code="W106",
    name="junk-files-ignored",
    severity=Severity.INFO,
    title="files in `_delta_log` that are not part of Delta were ignored",
    doc="""
## What it means
`_delta_log` holds files no Delta reader uses: Hadoop `.crc` checksums of the log files, `._*`
resource forks, `.tmp/` leftovers, `_autostats/`.

## Why it matters
Nothing for the analysis. Many of them in a copied log can mean the copy came from a tool that
also skipped or renamed real log files.

## What to do
Nothing; remove the copy's artefacts if they bother you.
""",
)
LOG_STARTS_AFTER_ZERO = Code(
    code="W107",
    name="log-starts-after-zero",
    severity=Severity.INFO,
    title="the retained log starts after version 0",
    doc="""
## What it means
The oldest commit file is newer than version 0: log cleanup removed commits older than
`delta.logRetentionDuration`, and a checkpoint is the base of the snapshot.

## Why it matters
History before the first retained commit is unknown: races whose winners are older cannot be
judged (W302), and the report starts there.

## What to do
Keep the log longer (`delta.logRetentionDuration`) when you need older forensics, or run the
audit, whose kept state carries history past the retention (W702).
""",
)
INCOMPLETE_CHECKPOINT = Code(
    code="W108",
    name="incomplete-checkpoint",
    severity=Severity.WARNING,
    title="a multi-part checkpoint is missing parts and was ignored",
    doc="""
## What it means
A multi-part checkpoint has fewer part files than it declares; it was ignored and an older base
used.

## Why it matters
The snapshot is still exact, but the checkpoint writer failed half-way, and readers that pick
the newest checkpoint without counting its parts read an incomplete table.

## What to do
Write a new checkpoint and look for checkpoint jobs killed mid-write.
""",
)
COMPACTED_FILE_IGNORED = Code(
    code="W109",
    name="compacted-file-ignored",
    severity=Severity.INFO,
    title="log compaction files were ignored; the commits were read directly",
    doc="""
## What it means
`_delta_log` holds log compaction files (`<from>.<to>.compacted.json`), which aggregate a
range of commits.

## Why it matters
They are an optional speed-up of reading; every commit they aggregate is still there, and the
tool reads those, so the analysis (which needs each commit's own actions) is unchanged.

## What to do
Nothing.
""",
)
CATALOG_MANAGED_TABLE = Code(
    code="W110",
    name="catalog-managed-table",
    severity=Severity.WARNING,
    title="a catalog-managed table: the published log may lag the catalog",
    doc="""
## What it means
The protocol has the `catalogManaged` feature: a catalog ratifies commits, and the files in
`_delta_log` are published after the fact.

## Why it matters
The newest ratified commits may not be published yet; the analysis covers only those that are.

## What to do
Publish the commits, or analyse again later; compare the latest version with the catalog's.
""",
)
UNKNOWN_ACTION = Code(
    code="W201",
    name="unknown-action",
    severity=Severity.INFO,
    title="an action this version of the tool does not know was kept, not interpreted",
    doc="""
## What it means
A commit holds an action type the tool does not know (a newer protocol feature, or a writer's
own extension); its raw text is kept.

## Why it matters
If the action takes part in conflict detection in the writing engine, verdicts that involve its
commit may miss a conflict.

## What to do
Check for a newer deltaforensics; report the action if a verdict involving it looks wrong.
""",
)
MISSING_COMMIT_INFO = Code(
    code="W202",
    name="missing-commit-info",
    severity=Severity.INFO,
    title="commits without commitInfo",
    doc="""
## What it means
Some commits have no `commitInfo` action; the protocol makes it optional and some writers omit
it.

## Why it matters
Without it the operation, read version, isolation level and writer of those commits are
unknown: they can be winners, but their own races cannot be judged.

## What to do
Nothing for the table; prefer writers that record commitInfo where forensics matter.
""",
)
UNPARSED_OPERATION_PARAMETERS = Code(
    code="W203",
    name="unparsed-operation-parameters",
    severity=Severity.INFO,
    status="reserved",
    title="operationParameters that could not be parsed (reserved; not emitted)",
    doc="""
## What it means
Reserved for commitInfo `operationParameters` the tool cannot parse. It is not emitted: such a
commit is analysed with what could be read, and its race's `read_reason` and `confidence` say
what was not understood.

## Why it matters
A read set guessed from a partial predicate is less certain, which the confidence carries.

## What to do
Nothing; look at the race's `read_reason`.
""",
)
EMPTY_COMMIT = Code(
    code="W204",
    name="empty-commit",
    severity=Severity.WARNING,
    title="empty commit files",
    doc="""
## What it means
A commit file is empty or blank; it was read as a commit without actions.

## Why it matters
No Delta writer commits an empty file on purpose: a writer crashed while writing it on storage
without an atomic put-if-absent, or something truncated it. What that commit did is lost.

## What to do
Check the writer and the storage's commit guarantees (on S3, a LogStore with a lock or a
conditional put).
""",
)
INVALID_PROTOCOL = Code(
    code="W205",
    name="invalid-protocol",
    severity=Severity.WARNING,
    title="a protocol action that is not valid JSON or breaks the protocol's rules",
    doc="""
## What it means
A `protocol` action is not valid JSON, or lists `readerFeatures` without minReaderVersion 3 or
`writerFeatures` without minWriterVersion 7.

## Why it matters
Engines may refuse the table or ignore its features; the tool reads the log anyway (it reads no
data files) and bases no verdict on the features of that action.

## What to do
Find the writer that committed it; Delta's PROTOCOL.md says what a valid action holds.
""",
)
METADATA_WITHOUT_SCHEMA = Code(
    code="W206",
    name="metadata-without-schema",
    severity=Severity.WARNING,
    title="a metaData action that is not valid JSON or has no schemaString",
    doc="""
## What it means
A `metaData` action is not valid JSON, or has no `schemaString` (Delta Live Tables writes
such tables).

## Why it matters
File lists are still exact, but column types are unknown, so predicates on typed columns and
statistics are matched less precisely.

## What to do
Nothing for the analysis; expect lower confidence on races that depend on column types.
""",
)
UNPARSED_PREDICATE = Code(
    code="W301",
    name="unparsed-predicate",
    severity=Severity.INFO,
    status="reserved",
    title="a predicate that could not be parsed (reserved; not emitted)",
    doc="""
## What it means
Reserved for a recorded predicate the parser cannot read. It is not emitted: the predicate is
kept as unknown, rules treat it conservatively (it may read anything), and the race's
`read_reason` and `confidence` say so.

## Why it matters
An unknown predicate can only make the model predict more conflicts, never fewer.

## What to do
Nothing; look at the race's `read_reason`.
""",
)
READ_VERSION_UNKNOWN = Code(
    code="W302",
    name="read-version-unknown",
    severity=Severity.INFO,
    title="winners of a race are not in the retained log",
    doc="""
## What it means
A commit was rebased over winners (the versions between its read version and its own) that the
retained log no longer holds.

## Why it matters
Those pairs cannot be checked: the race is judged against the winners that remain only.

## What to do
Keep the log longer, or run the audit so its state keeps commits past the retention.
""",
)
READ_VERSION_NOT_BEFORE_VERSION = Code(
    code="W303",
    name="read-version-not-before-version",
    severity=Severity.WARNING,
    title="a commit's readVersion is not before its own version",
    doc="""
## What it means
A commit records a `readVersion` at or after its own version, which no real rebase produces
(anomaly AN003 reports the same commit).

## Why it matters
The field was set by a caller (delta-rs lets custom metadata override it) or is corrupt; the
commit is analysed as if it had read the version before its own.

## What to do
Find the writer that sets commitInfo fields itself and stop it from setting `readVersion`.
""",
)
RACES_NOT_VISIBLE = Code(
    code="W304",
    name="races-not-visible",
    severity=Severity.WARNING,
    title="commits record no readVersion: whether they raced cannot be checked",
    doc="""
## What it means
Commits after version 0 record no `readVersion` in their commitInfo, so the snapshot each one
read is unknown: Delta Kernel writers never write it, delta-rs writes it only for DELETE,
UPDATE, MERGE, OPTIMIZE and RESTORE (not for appends and overwrites), early delta-rs releases
not at all, and a commit without commitInfo has none. The message names those versions as ranges; the report's
`race_visibility` field lists them, and every format says "races: unknown" for them.

## Why it matters
A race is a commit that read an older snapshot than the version before its own; without the
read version such a race is invisible, so "no races" and a passing `--fail-on conflict` gate
mean "could not check" for these versions, not "checked, nothing found". A blind append can
still lose a race (to a metadata or protocol change), so it is counted too. Version 0 and a
CREATE TABLE that lost the version-0 race read nothing and are not counted.

## What to do
Treat these versions as unchecked. Where a statement failed, pass its error text (`--error`):
the conflict it names is checked from the text. Where you choose the writer, Delta-Spark and
Databricks record `readVersion` for every statement.
""",
)
MODEL_DISAGREEMENT = Code(
    code="W401",
    name="model-disagreement",
    severity=Severity.WARNING,
    title="a commit that committed, although the model says it should have failed",
    doc="""
## What it means
For a committed race the conflict model predicts an exception against one of its winners.

## Why it matters
Either the model misses something the engine does (an engine version, a setting), the engine
profile was guessed wrongly, or the commit's recorded read version, predicate or isolation
level is not what the engine used. Its verdicts on similar pairs are then doubtful too.
`--fail-on disagreement` makes it fail a run.

## What to do
Check the engine profile (`--profile`) and the commit's recorded fields; if both are right,
report it with the two commits' log entries.
""",
)
UNRELEASED_BEHAVIOUR = Code(
    code="W402",
    name="unreleased-behaviour",
    severity=Severity.INFO,
    title="a writer newer than every release the model was measured against",
    doc="""
## What it means
Commits record an engine release newer than the newest one whose conflict checker was run
against the model (for delta-rs, deltalake 1.6.6; docs/fidelity.md). Its profile follows the
engine's main branch, which no measured release carries: the profile's name says
`unverified`.

## Why it matters
Verdicts on races it lost or won rest on the engine's source and its own test suite, not on a
measurement; a release can differ from its main branch (deltalake 1.6.6 commits two
concurrent compactions of the same file, which the main branch's suite expects to conflict).

## What to do
Read its verdicts with that in mind; force a measured profile with `--profile` to compare,
and report the release so that it can be measured.
""",
)
NO_EXCEPTION_IN_ERROR_TEXT = Code(
    code="W501",
    name="no-exception-in-error-text",
    severity=Severity.WARNING,
    title="an error text given with `--error` names no Delta concurrency exception",
    doc="""
## What it means
A file or text given with `--error` has no Delta concurrency exception in any format the tool
knows.

## Why it matters
Nothing from it is in the report: the failure it holds is not a write conflict, or its message
was cut or reworded by a wrapper.

## What to do
Give the full driver log or stack trace of the failed job.
""",
)
COMMIT_RETRIES_EXHAUSTED = Code(
    code="W502",
    name="commit-retries-exhausted",
    severity=Severity.INFO,
    title="an error text reports exhausted commit retries, not a conflict",
    doc="""
## What it means
The error text holds `MaxCommitRetriesExceeded`: the writer gave up after retrying its commit
so many times.

## Why it matters
It is not a conflict and names no winner: the writer kept losing the race for the next version
to other writers, without a logical conflict.

## What to do
Fewer concurrent commits to the table, or a higher retry limit; see the races around the time
of the failure.
""",
)
FAILURE_SOURCE_NOT_FULLY_READ = Code(
    code="W503",
    name="failure-source-not-fully-read",
    severity=Severity.WARNING,
    title="a part of a `--failures-from` source could not be read to its end",
    doc="""
## What it means
A Spark event log or driver log given with `--failures-from` holds a part that could not be
decoded to its end (truncated, a damaged block, bad gzip) or opened. What came before the
damage, and every other file, was still read (docs/failures.md).

## Why it matters
A conflict recorded after the damage is not in the report.

## What to do
Read the file with Spark's own tools; if the application is still running, its last part is
being written and the next run reads it whole.
""",
)
PARTITION_LAYOUT = Code(
    code="W601",
    name="partition-layout",
    severity=Severity.WARNING,
    title="partitions, files and bytes per partition of a proposed layout",
    doc="""
## What it means
What partitioning by the given columns would give at the latest version: partitions, files and
bytes per partition. Info normally; a warning when the layout has too many partitions or
multiplies the files (the many-small-files layout).

## Why it matters
Partitioning removes conflicts only if writers filter on the columns, and a fine layout costs
more in small files than the conflicts it removes. The recommendations never offer a layout
that warns.

## What to do
Partition by a low-cardinality column the writers filter on (about 1 GB or more per
partition), or use liquid clustering.
""",
)
FOOTPRINT_UNKNOWN = Code(
    code="W602",
    name="footprint-unknown",
    severity=Severity.WARNING,
    title="pairs the what-if cannot decide are not counted",
    doc="""
## What it means
The what-if had nothing to evaluate, or some pairs have an unknown outcome under the change:
files without min/max statistics for a column, or a footprint too wide to tell.

## Why it matters
Those pairs are left out of the counts and the confidence drops; the prediction covers the
pairs that could be decided.

## What to do
Collect statistics on the column (`delta.dataSkippingStatsColumns`), or give more evidence
(`--error`, `--attempt`).
""",
)
CHANGE_NOT_APPLICABLE = Code(
    code="W603",
    name="change-not-applicable",
    severity=Severity.WARNING,
    title="the engine or the table makes the change a no-op, impossible as stated, or harmful",
    doc="""
## What it means
The change does not do what it promises here: an engine ignores or refuses it, the table
already has it, or it only adds conflicts (Serializable). A warning when the change cannot help
as stated; info for a remark (already partitioned so, no such commit in the history).

## Why it matters
The predicted outcome may be the same as today's, and applying the change would not help.

## What to do
Read the message; pick the change the message points to instead.
""",
)
BASELINE_NOT_REPRODUCED = Code(
    code="W604",
    name="baseline-not-reproduced",
    severity=Severity.WARNING,
    title="evidence the model does not reproduce was excluded",
    doc="""
## What it means
A race, error or attempt whose observed outcome the conflict model does not reproduce without
the change.

## Why it matters
A prediction for it under the change would be unfounded, so it is listed but not counted, and
the confidence drops.

## What to do
See W401 for the same disagreement in the explain report.
""",
)
CHANGE_IS_A_METADATA_COMMIT = Code(
    code="W605",
    name="change-is-a-metadata-commit",
    severity=Severity.INFO,
    title="applying the change is itself a commit that fails concurrent writers",
    doc="""
## What it means
Applying the change commits a metadata change or rewrites the table (new partitioning, deletion
vectors, the isolation level).

## Why it matters
That commit fails every writer running at the time with MetadataChangedException or
ProtocolChangedException.

## What to do
Apply it in a quiet window, with the writers stopped.
""",
)
AUDIT_STATE_DISCARDED = Code(
    code="W701",
    name="audit-state-discarded",
    severity=Severity.WARNING,
    title="the audit's kept state could not be continued; the table was read in full",
    doc="""
## What it means
The audit's state for the table does not continue into the log: the table was replaced, or the
commits after the state expired from the log before this run.

## Why it matters
The table was read in full from what the log still retains; history only the state held is
gone.

## What to do
Run the audit more often than the log's retention; find why the table was replaced.
""",
)
HISTORY_KEPT_BEYOND_RETENTION = Code(
    code="W702",
    name="history-kept-beyond-retention",
    severity=Severity.INFO,
    title="versions older than the log's retention come from the audit state",
    doc="""
## What it means
Commits the log no longer holds are in the report, read from the audit's kept state.

## Why it matters
They are as exact as when they were read; the log itself cannot confirm them any more.

## What to do
Nothing.
""",
)

TIMESTAMP_OUT_OF_RANGE = Code(
    code="W207",
    name="timestamp-out-of-range",
    severity=Severity.WARNING,
    title="a commitInfo time no date shows, read as missing",
    doc="""
## What it means
A commit's `commitInfo.timestamp` or `inCommitTimestamp` is outside the dates a calendar shows
(years 1 to 9999 in epoch milliseconds): nanoseconds or microseconds written by mistake, or a
hostile log. The commit is treated as recording no time.

## Why it matters
The commit shows no time in `history`, and `--since`/`--until`/`snapshot --at` place it at the
nearest older commit's time (or the file's), as for a commit without `commitInfo`.

## What to do
Find the writer that recorded it (`engineInfo` of that commit); Delta's PROTOCOL.md defines the
timestamp as milliseconds since the epoch.
""",
)
DIAGNOSTIC_CODES: tuple[Code, ...] = (
    COMMIT_GAP,
    CHECKPOINT_FALLBACK,
    LAST_CHECKPOINT_STALE,
    LAST_CHECKPOINT_UNREADABLE,
    STAGED_COMMITS_PRESENT,
    JUNK_FILES_IGNORED,
    LOG_STARTS_AFTER_ZERO,
    INCOMPLETE_CHECKPOINT,
    COMPACTED_FILE_IGNORED,
    CATALOG_MANAGED_TABLE,
    UNKNOWN_ACTION,
    MISSING_COMMIT_INFO,
    UNPARSED_OPERATION_PARAMETERS,
    EMPTY_COMMIT,
    INVALID_PROTOCOL,
    METADATA_WITHOUT_SCHEMA,
    TIMESTAMP_OUT_OF_RANGE,
    UNPARSED_PREDICATE,
    READ_VERSION_UNKNOWN,
    READ_VERSION_NOT_BEFORE_VERSION,
    RACES_NOT_VISIBLE,
    MODEL_DISAGREEMENT,
    UNRELEASED_BEHAVIOUR,
    NO_EXCEPTION_IN_ERROR_TEXT,
    COMMIT_RETRIES_EXHAUSTED,
    FAILURE_SOURCE_NOT_FULLY_READ,
    PARTITION_LAYOUT,
    FOOTPRINT_UNKNOWN,
    CHANGE_NOT_APPLICABLE,
    BASELINE_NOT_REPRODUCED,
    CHANGE_IS_A_METADATA_COMMIT,
    AUDIT_STATE_DISCARDED,
    HISTORY_KEPT_BEYOND_RETENTION,
)
