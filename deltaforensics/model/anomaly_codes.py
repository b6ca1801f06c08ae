"""Every anomaly code (``ANnnn``): something wrong that the log alone shows, with no failed
job needed to see it (the detectors are in :mod:`deltaforensics.evidence.anomalies`).

Registered here beside the diagnostic codes rather than beside the detectors, so that the whole
catalogue of codes that are not rules sits in one layer, below every module that reports or
reads them; an :class:`~deltaforensics.evidence.anomalies.Anomaly` takes its kind and severity
from its entry. Sources: semantics doc key findings 5 and 10, §A.9; field notes §3.3 (O5, 8b)
and §3.4.
"""

from __future__ import annotations

from deltaforensics.model.codes import Code
from deltaforensics.model.ids import Severity

DUPLICATE_REMOVE = Code(
    code="AN001",
    name="duplicate-remove",
    severity=Severity.ERROR,
    title="the same file removed in two versions: both rewrites are live, rows are duplicated",
    doc="""
## What it means
Two commits removed the same file (same path and deletion vector): two writers both rewrote
it, and each added its own replacement.

## Why it matters
Both replacements are live, so the rows of the removed file are in the table twice. Two
concurrent OPTIMIZE runs on deltalake 1.6.6 do exactly this, because its conflict check lets
the pair commit; older releases (measured 0.25.5 to 1.6.3) and delta-rs main refuse the second
one, so the reason names what the second remover's own release does.

## What to do
Deduplicate the rows of the listed versions' files (restore to before the second commit and
re-run it, or delete the duplicates); never run two OPTIMIZE or rewrite jobs on delta-rs at
once.
""",
)
LOST_OVERWRITE = Code(
    code="AN002",
    name="lost-overwrite",
    severity=Severity.ERROR,
    title="a full overwrite left alive files added after the snapshot it overwrote",
    doc="""
## What it means
A full overwrite (`mode=overwrite`, no predicate) left older files live: they were added after
the snapshot it read, so it did not remove them.

## Why it matters
The table holds the overwrite's rows and the rows of the concurrent appends, which the
overwrite was meant to replace (a stale overwrite on delta-rs commits this way).

## What to do
Decide which rows should remain and remove the survivors; serialise overwrites with the writers
that append to the same table.
""",
)
READ_VERSION_NOT_BEFORE_VERSION = Code(
    code="AN003",
    name="read-version-not-before-version",
    severity=Severity.WARNING,
    title="a commit records a readVersion at or after its own version",
    doc="""
## What it means
`readVersion >= version`: impossible for a real rebase, so the field was forged or is corrupt
(diagnostic W303 reports the same commit).

## Why it matters
Every verdict that relies on the writers' recorded fields is suspect while a writer sets them
itself.

## What to do
Find the writer that sets commitInfo fields through custom metadata and stop it.
""",
)
METADATA_CHANGE_DURING_RACE = Code(
    code="AN004",
    name="metadata-change-during-race",
    severity=Severity.WARNING,
    title="a metadata change landed while other writers were racing",
    doc="""
## What it means
A commit was rebased over one or more metadata changes (schema, properties, partitioning).

## Why it matters
Concurrent writers fail with MetadataChangedException unless the change is on the engine's
allow-list; those that committed may have written with the old schema or settings.

## What to do
Change metadata in a quiet window, with the writers stopped.
""",
)
UNMARKED_APPEND_VS_SPARK_READER = Code(
    code="AN005",
    name="unmarked-append-vs-spark-reader",
    severity=Severity.WARNING,
    title="appends without isBlindAppend raced a Spark transaction that reads",
    doc="""
## What it means
Writers that do not mark blind appends (delta-rs, Kernel) appended while a Spark transaction
that reads the table was running.

## Why it matters
Spark counts such adds as changed data, so they conflict with its reads even under
WriteSerializable, where marked blind appends would not.

## What to do
Mark the appends as blind where the writer allows it, or keep the Spark jobs and these writers
on separate schedules.
""",
)
ISOLATION_LEVEL_IGNORED = Code(
    code="AN006",
    name="isolation-level-ignored",
    severity=Severity.WARNING,
    title="`delta.isolationLevel` has a value the writing engine does not parse",
    doc="""
## What it means
The table property `delta.isolationLevel` holds a spelling the writing engine does not parse
(e.g. `WriteSerializable` for delta-rs, which parses camelCase only).

## Why it matters
That engine runs with its default isolation instead, so conflicts the setting was meant to
avoid still happen.

## What to do
Use a spelling every writing engine parses (`writeSerializable` is read by Spark and delta-rs
alike).
""",
)
DUPLICATE_APP_ID = Code(
    code="AN007",
    name="duplicate-app-id",
    severity=Severity.ERROR,
    title="one streaming app id committed by two writers",
    doc="""
## What it means
One application transaction id (`txn.appId`) was committed by two different writers.

## Why it matters
Two instances of one streaming query, or a reused checkpoint or `txnAppId`: exactly-once
delivery no longer holds, and batches may be skipped or written twice.

## What to do
One running query per checkpoint location, and a unique `txnAppId` per writer.
""",
)
COMMIT_GAP = Code(
    code="AN008",
    name="commit-gap",
    severity=Severity.WARNING,
    title="commit files missing inside the retained log",
    doc="""
## What it means
Versions between the oldest and the newest commit file have no commit file.

## Why it matters
Something other than log cleanup removed them; what they did is lost (diagnostic W101 says how
the snapshot was read around them).

## What to do
Find who deleted them; restore them from a backup if one exists.
""",
)
FORGEABLE_PROVENANCE = Code(
    code="AN009",
    name="forgeable-provenance",
    severity=Severity.INFO,
    title="commitInfo fields a caller can set: provenance is low confidence",
    doc="""
## What it means
delta-rs commits carry provenance fields (isolation level, blind append, user, job, notebook)
at the top level of commitInfo, where delta-rs writes caller-supplied custom metadata.

## Why it matters
Those fields say whatever the caller said, so the report's writers and settings for these
commits are low confidence.

## What to do
Trust them as far as you trust the jobs that write the table.
""",
)

ANOMALY_CODES: tuple[Code, ...] = (
    DUPLICATE_REMOVE,
    LOST_OVERWRITE,
    READ_VERSION_NOT_BEFORE_VERSION,
    METADATA_CHANGE_DURING_RACE,
    UNMARKED_APPEND_VS_SPARK_READER,
    ISOLATION_LEVEL_IGNORED,
    DUPLICATE_APP_ID,
    COMMIT_GAP,
    FORGEABLE_PROVENANCE,
)
