"""From recorded failures to conflicts of analysed tables: recognise, match, de-duplicate.

Recognising is the ``--error`` evidence's own reading (:func:`extract_conflicts`): every Delta
concurrency exception it knows is a conflict, every other failure is counted and nothing more.

A conflict belongs to a table when

0. the message names it: era-C texts (Delta ≥ 4.x) say ``a concurrent DELETE deleted data
   from table delta.`<location>` (committed at version N)`` or a catalog name; or
1. the winner's commitInfo in the message matches a commit of that table: the same
   ``timestamp`` (or ``inCommitTimestamp``), and wherever both say it the same ``operation``,
   ``readVersion``, ``userMetadata``, ``txnId`` and version; or
2. the statement's plan (or text) names the table's location.

Clues are combined when the source has several: the named table or the plan narrows several
commitInfo matches, and contradicting clues leave the conflict unmatched; the named table or
the plan stands alone when the message carries no commitInfo. One table or none:
a conflict matching no table, or several, is *unmatched* with the reason — never guessed.

One failure seen twice (an event log and the driver log, two copies of a log) is one: same
table, winner version and exception, and the loser's start time within a second (the failure
time when a source has no start time).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from deltaforensics.evidence.conflict_evidence import ConflictEvidence
from deltaforensics.evidence.error_text import extract_conflicts
from deltaforensics.evidence.winners import EXCEPTION_CODES
from deltaforensics.failures.records import (
    CommitFacts,
    FailedStatement,
    Harvest,
    HarvestedConflict,
    SourceDiagnostic,
    TableCommits,
)

SAME_MOMENT_MS = 1000
_DELTA_PATH = re.compile(r"delta\.`([^`]+)`")


def harvest_conflicts(
    failures: Iterable[FailedStatement],
    tables: Sequence[TableCommits],
    *,
    diagnostics: Iterable[SourceDiagnostic] = (),
    other_failures: int = 0,
) -> Harvest:
    """Recognise, match and de-duplicate; ``other_failures`` adds failures a reader already
    counted without recording them (a driver log's other errors)."""
    matched: list[HarvestedConflict] = []
    unmatched: list[HarvestedConflict] = []
    others = other_failures
    index = _TableIndex(tables)
    for failure in failures:
        found = extract_conflicts(failure.error_text, source=failure.source)
        if not found:
            others += 1
            continue
        for evidence in found:
            one = failure
            if failure.source_kind == "driverlog" and evidence.observed_at is not None:
                one = replace(failure, failed_at=evidence.observed_at)  # several in one window
            conflict = index.match(evidence, one)
            (matched if conflict.table is not None else unmatched).append(conflict)
    return Harvest(
        conflicts=tuple(deduplicate(matched)),
        unmatched=tuple(deduplicate(unmatched)),
        other_failures=others,
        diagnostics=tuple(diagnostics),
    )


def normalize_location(location: str) -> str:
    """``file:/tmp/t/`` and ``/tmp/t`` are one place; ``abfss://c@a.dfs…/t`` keeps its form
    (its host lower-cased); ``dbfs:/x`` is ``/dbfs/x`` as a driver sees it."""
    loc = location.strip().rstrip("/")
    if loc.startswith("file://"):
        loc = loc[len("file://") :]
    elif loc.startswith("file:"):
        loc = loc[len("file:") :]
    elif loc.startswith("dbfs:/"):
        loc = "/dbfs/" + loc[len("dbfs:/") :].lstrip("/")
    if "://" in loc:
        scheme, _, rest = loc.partition("://")
        host, _, path = rest.partition("/")
        loc = f"{scheme.lower()}://{host.lower()}/{path}"
    return loc or "/"


class _TableIndex:
    def __init__(self, tables: Sequence[TableCommits]) -> None:
        self.tables = tables
        self.by_time: dict[int, list[tuple[TableCommits, CommitFacts]]] = {}
        self.by_location = {normalize_location(t.location): t for t in tables}
        for table in tables:
            for commit in table.commits:
                for ts in {commit.timestamp, commit.in_commit_timestamp}:
                    if ts is not None:
                        self.by_time.setdefault(ts, []).append((table, commit))

    def match(self, evidence: ConflictEvidence, failure: FailedStatement) -> HarvestedConflict:
        named = self._named(evidence.table_name)
        if named:  # Delta names the table (``delta.`<location>``` or a catalog name)
            by_plan, failure = named, replace(failure, locations=())
        else:
            by_plan = self._by_location(failure)
        commits = self._by_commit_info(evidence)
        base = HarvestedConflict(
            table=None,
            winner_version=evidence.winner_version,
            exception=evidence.exception,
            code=EXCEPTION_CODES.get(evidence.exception),
            evidence=evidence,
            failure=failure,
            sources=(failure.source,),
        )
        if commits is not None:
            names = sorted({t.name for t, _ in commits})
            if len(names) > 1 and by_plan:
                narrowed = [(t, c) for t, c in commits if t.name in {p.name for p in by_plan}]
                if len({t.name for t, _ in narrowed}) == 1:
                    commits, names = narrowed, [narrowed[0][0].name]
            if len(commits) == 1:
                table, commit = commits[0]
                if by_plan and table.name not in {p.name for p in by_plan}:
                    return replace(
                        base,
                        unmatched_reason=(
                            f"the winner's commitInfo matches v{commit.version} of {table.name},"
                            f" but the plan names {', '.join(p.name for p in by_plan)}"
                        ),
                        candidates=(table.name, *(p.name for p in by_plan)),
                    )
                return replace(
                    base,
                    table=table.name,
                    winner_version=commit.version,
                    matched_by="the winner's commitInfo (" + _clues(evidence) + ")",
                )
            if commits:
                return replace(
                    base,
                    unmatched_reason=(
                        "the winner's commitInfo matches commits of several tables: "
                        + ", ".join(names)
                        if len(names) > 1
                        else f"the winner's commitInfo matches several commits of {names[0]}"
                    ),
                    candidates=tuple(names),
                )
            if evidence.winner_timestamp is not None and not by_plan:
                return replace(
                    base,
                    unmatched_reason=(
                        "no analysed table has a commit with the winner's timestamp"
                        f" {evidence.winner_timestamp}"
                        + (
                            f" and operation {evidence.winner_operation}"
                            if evidence.winner_operation
                            else ""
                        )
                    ),
                )
        if len(by_plan) == 1:
            table = by_plan[0]
            how = (
                "the message names the table"
                if named
                else "the statement's plan names the table's location"
            )
            if commits == []:  # the winner's commitInfo is in none of the analysed commits
                how += "; the winner's commit is not among the table's analysed commits"
            return replace(
                base, table=table.name, winner_version=evidence.winner_version, matched_by=how
            )
        if by_plan:
            return replace(
                base,
                unmatched_reason="the plan names several analysed tables: "
                + ", ".join(sorted(t.name for t in by_plan)),
                candidates=tuple(sorted(t.name for t in by_plan)),
            )
        return replace(
            base,
            unmatched_reason="the message carries no commitInfo of the winner and the source"
            " names no analysed table's location",
        )

    def _named(self, table_name: str | None) -> list[TableCommits]:
        """The analysed table a message names: ``delta.`<location>``` by its location, any
        other name by a table of exactly that name (case-insensitive)."""
        if not table_name:
            return []
        quoted = _DELTA_PATH.fullmatch(table_name.strip())
        if quoted:
            table = self.by_location.get(normalize_location(quoted.group(1)))
            return [table] if table is not None else []
        wanted = table_name.strip().replace("`", "").lower()
        return [t for t in self.tables if t.name.replace("`", "").lower() == wanted]

    def _by_location(self, failure: FailedStatement) -> list[TableCommits]:
        out: dict[str, TableCommits] = {}
        for location in failure.locations:
            table = self.by_location.get(normalize_location(location))
            if table is not None:
                out[table.name] = table
        return list(out.values())

    def _by_commit_info(
        self, evidence: ConflictEvidence
    ) -> list[tuple[TableCommits, CommitFacts]] | None:
        """The commits the winner's commitInfo matches; None when it gives no timestamp."""
        ts = evidence.winner_timestamp
        if ts is None:
            return None
        info = evidence.conflicting_commit or {}
        user_metadata = info.get("userMetadata")
        out = []
        for table, commit in self.by_time.get(ts, []):
            if not _agree(commit.operation, evidence.winner_operation):
                continue
            if not _agree(commit.read_version, evidence.winner_read_version):
                continue
            if not _agree(commit.txn_id, evidence.txn_id):
                continue
            if not _agree(commit.user_metadata, user_metadata):
                continue
            if not _agree(commit.version, evidence.winner_version):
                continue
            out.append((table, commit))
        return out


def _agree(ours: object, theirs: object) -> bool:
    return ours is None or theirs is None or ours == theirs


def _clues(evidence: ConflictEvidence) -> str:
    clues = ["timestamp"]
    if evidence.winner_operation:
        clues.append("operation")
    if evidence.winner_read_version is not None:
        clues.append("readVersion")
    if (evidence.conflicting_commit or {}).get("userMetadata") is not None:
        clues.append("userMetadata")
    if evidence.txn_id:
        clues.append("txnId")
    return ", ".join(clues)


def deduplicate(conflicts: Iterable[HarvestedConflict]) -> list[HarvestedConflict]:
    """One value per failure: key = table, winner version, exception, and the loser's start
    time within a second (failure times when either source lacks the start). The richer
    record is kept (an event log's, which has the statement), with every source named."""
    kept: list[HarvestedConflict] = []
    for conflict in conflicts:
        for i, other in enumerate(kept):
            if _same_failure(other, conflict):
                kept[i] = _combine(other, conflict)
                break
        else:
            kept.append(conflict)
    return kept


def _same_failure(a: HarvestedConflict, b: HarvestedConflict) -> bool:
    if (a.table, a.winner_version, a.exception) != (b.table, b.winner_version, b.exception):
        return False
    if a.table is None and a.evidence.winner_timestamp != b.evidence.winner_timestamp:
        return False
    fa, fb = a.failure, b.failure
    if fa.started_at is not None and fb.started_at is not None:
        return abs(fa.started_at - fb.started_at) <= SAME_MOMENT_MS
    ta = fa.failed_at if fa.failed_at is not None else a.evidence.observed_at
    tb = fb.failed_at if fb.failed_at is not None else b.evidence.observed_at
    return ta is not None and tb is not None and abs(ta - tb) <= SAME_MOMENT_MS


def _combine(a: HarvestedConflict, b: HarvestedConflict) -> HarvestedConflict:
    richer, other = (a, b) if _richness(a) >= _richness(b) else (b, a)
    sources = tuple(dict.fromkeys((*a.sources, *b.sources)))
    return replace(richer, sources=sources, matched_by=richer.matched_by or other.matched_by)


def _richness(c: HarvestedConflict) -> tuple[int, int]:
    f = c.failure
    return (
        int(f.source_kind == "eventlog"),
        sum(x is not None for x in (f.statement, f.started_at, c.evidence.conflicting_commit)),
    )
