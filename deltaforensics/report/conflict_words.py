"""A conflict in words: a failure pasted from an error text, harvested from where an engine
recorded it (docs/failures.md), or predicted for an attempted statement (:mod:`.prose` words
the races; the formats escape and style the phrases)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deltaforensics.model.words import plural
from deltaforensics.report.commit_words import commit_words, when, winners_words
from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.explain import Attempt, Commit
from deltaforensics.report.prose import Code, Explanation, Phrase, failure_words, reads_words
from deltaforensics.statements import parse_statement


def statement_condition(statement: str) -> str | None:
    """The MERGE ON condition of an attempted statement as written, aliases and all."""
    try:
        return parse_statement(statement).merge_on
    except ValueError:
        return None


_SEEN_IN = {
    "eventlog": "the event log",
    "driverlog": "the driver log",
    "openlineage": "the OpenLineage events",
    "databricks-jobs": "the Databricks job run",
    "databricks-queries": "the Databricks query history",
}


def _seen_in(c: Conflict) -> str:
    """Where a conflict was seen, briefly: a harvested one names its application and time."""
    if c.source not in _SEEN_IN:
        return "the error text" if c.source == "error" else "the simulated statement"
    app = f" of {c.app_id}" if c.app_id else ""
    moment = c.failed_at if c.failed_at is not None else c.started_at
    at = f" at {when(moment)}" if moment is not None else ""
    more = len(c.records or ()) - 1
    also = f" (and {plural(more, 'other record')})" if more > 0 else ""
    return f"{_SEEN_IN[c.source]}{app}{at}{also}"


def explain_conflict(
    conflict: Conflict,
    commits: Mapping[int | None, Commit],
    attempts: Sequence[Attempt] = (),
) -> Explanation:
    """A failure from an error text or predicted for an attempted statement, in words;
    ``attempts`` give an attempted statement's read."""
    c = conflict
    loser = c.loser
    attempt = next(
        (a for a in attempts if loser.statement and a.statement == loser.statement), None
    )
    if attempt is not None:
        subject: Phrase = (f"Your {attempt.operation}",)
    elif loser.statement:
        subject = ("Your statement",)
    elif loser.version is not None:
        subject = (f"v{loser.version}",)
    else:
        subject = ("The failed job",)
    read = f" (read v{loser.read_version})" if loser.read_version is not None else ""
    verb = "fails" if c.source == "attempt" else "failed"
    headline: Phrase = (
        *subject,
        f"{read} {verb} with {failure_words(c.exception, c.code, c.partitions)}.",
    )
    details: list[tuple[str, Phrase]] = []
    if loser.statement:
        details.append(("statement", (Code(loser.statement),)))
    if c.winner_version is not None:
        details.append(("winner", (commit_words(commits.get(c.winner_version), c.winner_version),)))
    elif c.candidates:
        details.append(("winner", (f"one of {winners_words(c.candidates, commits)}",)))
    if attempt is not None:
        condition = statement_condition(attempt.statement)
        details.append(
            (
                "read",
                reads_words(
                    attempt.operation, attempt.read_predicate, attempt.read_reason, condition
                ),
            )
        )
    details.append(("why", (c.reason,)))
    details.append(("evidence", (f"from {_seen_in(c)}, confidence {c.confidence}",)))
    return Explanation(
        version=c.winner_version, level="conflict", headline=headline, details=tuple(details)
    )
