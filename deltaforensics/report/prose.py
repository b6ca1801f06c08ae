"""A finding in words: the one place the explain report becomes sentences.

Rich, Markdown and (through :func:`explain_race` / :func:`explain_conflict`) HTML format the
phrases built here; none of them words a finding itself. A phrase is a sequence of plain text
and :class:`Code` pieces (a predicate, a file, a statement), so that each format escapes and
styles the pieces the log wrote without this module knowing any format's escaping.
Commits are named by :mod:`.commit_words` and what-if changes worded by :mod:`.change_words`.

The words are Delta's and Databricks': the exception with its error class beside our rule code
(``ConcurrentAppendException (DELTA_CONCURRENT_APPEND · DC010)``), the winner named by writer,
operation, time and partitions, and the checker's perturbations as what-ifs ("had the table been
Serializable"). The JSON keeps the machine names (``fragile_under[].change``); every one of them
has its words here (:data:`PERTURBATION_WORDS`, checked against the checker's catalogue).

Error classes: Delta's ``delta-error-classes.json`` (3.2 and on; sub-classes from 4.1) and
Databricks' "Isolation levels and write conflicts" page; the rules reference is docs/rules.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from deltaforensics.conflicts.checker import (
    NO_ROW_LEVEL_CONCURRENCY,
    TO_SERIALIZABLE,
    TO_WRITE_SERIALIZABLE,
    WIDER_PREDICATE,
    WINNER_NOT_BLIND,
)
from deltaforensics.conflicts.registry import RULES
from deltaforensics.model.gaps import runs, version_spans
from deltaforensics.model.words import plural
from deltaforensics.predicates.partition import NOT_TARGET_ONLY, UNPARTITIONED
from deltaforensics.report.commit_words import group_key, when, who, winners_words
from deltaforensics.report.document.conflict import Partition
from deltaforensics.report.document.explain import Attempt, Commit, Race
from deltaforensics.report.plain import missing_text

RULES_DOC = "docs/rules.md"
CONCURRENCY_DOC = "https://docs.databricks.com/en/optimizations/isolation-level.html"
DELTA_DOC = "https://docs.delta.io/latest/concurrency-control.html"
_RULES_BY_CODE = {r.code: r for r in RULES}


@dataclass(frozen=True, slots=True)
class Code:
    """Text the log or the user wrote (a predicate, a statement): shown as code."""

    text: str


Piece = str | Code
Phrase = tuple[Piece, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Explanation:
    """One finding: a headline sentence and labelled detail sentences under it.

    ``level`` is ``"conflict"`` (it failed, or the model says it fails), ``"fragile"`` (it
    committed, one change away from failing) or ``"ok"``."""

    version: int | None
    level: str
    headline: Phrase
    details: tuple[tuple[str, Phrase], ...]


def plain(phrase: Phrase) -> str:
    """A phrase as plain text, code in backticks (tests, logs, a notebook's repr)."""
    return "".join(p if isinstance(p, str) else f"`{p.text}`" for p in phrase)


def error_class(code: str | None, partitions: Sequence[Partition] | None = None) -> str | None:
    """The Databricks error class of a rule; with ``partitions`` known (an error's or an
    attempt's), the sub-class the message carries on Databricks and Delta >= 4.1."""
    rule = _RULES_BY_CODE.get(code or "")
    if rule is None:
        return None
    if not rule.partition_hint or partitions is None:
        return rule.error_class
    return rule.error_class + (".WITH_PARTITION_HINT" if partitions else ".WITHOUT_HINT")


def failure_words(
    exception: str, code: str | None, partitions: Sequence[Partition] | None = None
) -> str:
    """``ConcurrentAppendException (DELTA_CONCURRENT_APPEND · DC010)``: the exception, its error
    class and our rule code side by side (docs/rules.md documents the code)."""
    cls = error_class(code, partitions) or next(
        (r.error_class for r in RULES if r.exception == exception), None
    )
    tags = " · ".join(t for t in (cls, code) if t)
    return f"{exception} ({tags})" if tags else exception


def attempt_line(number: int, a: Attempt) -> str:
    """One line per ``--attempt``, whatever its outcome: ``✓ attempt 2 commits: reads date =
    '2024-03-04', no rule fires against v7–v9`` or ``✗ attempt 1 fails with
    ConcurrentAppendException (DELTA_CONCURRENT_APPEND · DC010) against v7: reads the whole
    table``."""
    if a.read_whole_table:
        reads = "reads the whole table"
    elif a.read_predicate is None:
        reads = "reads nothing"
    else:
        reads = f"reads {a.read_predicate}"
    if a.outcome == "commits":
        against = (
            f"no rule fires against {version_spans(runs(a.winners))}"
            if a.winners
            else "no commit after the version it read"
        )
        return f"✓ attempt {number} commits: {reads}, {against}"
    winner = f" against v{a.winner_version}" if a.winner_version is not None else ""
    return f"✗ attempt {number} fails with {failure_words(a.outcome, a.code)}{winner}: {reads}"


def reads_words(
    operation: str, read_predicate: str | None, read_reason: str, condition: str | None = None
) -> Phrase:
    """What the transaction read, and why that much, as Delta's checker counts it.

    ``condition``: the statement's own condition as the user wrote it (an attempt), shown
    instead of the conjuncts as the commit records them (Spark's resolved form drops aliases)."""
    if read_predicate is None:
        blind = read_reason.startswith("blind append")
        return ("it read nothing (a blind append)" if blind else "it read nothing",)
    reasons = [r for r in read_reason.split("; ") if r]
    if read_predicate != "TRUE":
        return ("it read only ", Code(read_predicate))
    joins = [
        r.removesuffix(f" {NOT_TARGET_ONLY}").strip("`")
        for r in reasons
        if r.endswith(NOT_TARGET_ONLY)
    ]
    others = [
        "the table is unpartitioned, so every file counts as read" if r == UNPARTITIONED else r
        for r in reasons
        if not r.endswith(NOT_TARGET_ONLY)
    ]
    out: list[Piece] = ["it read the whole table"]
    if joins:
        out += [f": its {operation} condition ", Code(condition or " AND ".join(joins))]
        out.append(" only joins target to source, with no literal on a partition column")
    if others:
        out += ["; " if joins else ": ", "; ".join(others)]
    return tuple(out)


def _perturbation(change: str, race: Race) -> str:
    words = PERTURBATION_WORDS.get(change)
    return words(race) if words is not None else change


def _winner_not_blind(race: Race) -> str:
    return "had its winners not been recorded as blind appends (isBlindAppend=false)"


def _wider(race: Race) -> str:
    return f"had its {race.operation} condition lacked its partition literal (a whole-table read)"


PERTURBATION_WORDS: Mapping[str, Callable[[Race], str]] = {
    TO_SERIALIZABLE: lambda race: "had the table been Serializable",
    TO_WRITE_SERIALIZABLE: lambda race: "had the table been WriteSerializable",
    WINNER_NOT_BLIND: _winner_not_blind,
    WIDER_PREDICATE: _wider,
    NO_ROW_LEVEL_CONCURRENCY: lambda race: (
        "without row-level concurrency (deletion vectors off, or a runtime before DBR 14.2)"
    ),
}


def fragility_words(race: Race, *, name_winner: bool = True) -> str:
    """``Had the table been Serializable, it would have failed with … against v2.``: one
    sentence per outcome, the changes that lead to it joined with "or"; without
    ``name_winner`` (a group of races) "against the winner" stands for the version."""
    by_outcome: dict[tuple[str, int | None], list[str]] = {}
    for f in race.fragile_under:
        by_outcome.setdefault((f.outcome, f.winner_version), []).append(
            _perturbation(f.change, race)
        )
    sentences = []
    for (outcome, winner), whats in by_outcome.items():
        against = (
            (f" against v{winner}" if name_winner else " against its first winner")
            if winner is not None
            else ""
        )
        what = ", or ".join(whats)
        sentences.append(
            f"{what[:1].upper()}{what[1:]}, it would have failed with "
            f"{failure_words(outcome, rule_code(outcome))}{against}."
        )
    return " ".join(sentences)


def rule_code(exception: str) -> str | None:
    """The rule code of an exception a perturbation raised, when only one rule raises it."""
    codes = [r.code for r in RULES if r.exception == exception]
    return codes[0] if len(codes) == 1 else None


def _why_committed(race: Race) -> str:
    changes = {f.change for f in race.fragile_under}
    iso = race.isolation_level.value
    if race.read_predicate is None:
        return "a transaction that read nothing cannot conflict with what others wrote."
    reasons = []
    if changes & {TO_SERIALIZABLE, WINNER_NOT_BLIND}:
        reasons.append(
            f"under {iso} blind appends among the winners do not count against what it read "
            "(Delta's WriteSerializable rule)"
        )
    if WIDER_PREDICATE in changes:
        reasons.append(
            ("the other winners" if reasons else "none of the winners")
            + (" changed no file" if reasons else " changed files")
            + " in the partitions it read"
        )
    if NO_ROW_LEVEL_CONCURRENCY in changes:
        reasons.append("row-level concurrency found no row both wrote")
    if not reasons:
        return "none of the winners changed what it read."
    return ", and ".join(reasons) + "."


def references() -> str:
    """Where to read more: our page per rule code, Delta's and Databricks' public pages."""
    return (
        f"More: {RULES_DOC} (or deltaforensics rules CODE); Delta: {DELTA_DOC}; "
        f"Databricks: {CONCURRENCY_DOC}"
    )


def explain_race(race: Race, commits: Mapping[int | None, Commit]) -> Explanation:
    """A race in words: who raced whom, what it read, why it committed (or would fail), and
    which single change would have made it fail."""
    own = commits.get(race.version)
    who_ = f" by {who(own)}" if own is not None else ""
    at = f" at {when(own.timestamp)}" if own is not None else ""
    failed = race.outcome != "commits"
    verdict = (
        f"yet Delta's checker would raise {failure_words(race.outcome, race.code)}"
        if failed
        else "and committed"
    )
    count = len(race.winners) + sum(hi - lo + 1 for lo, hi in race.missing_winners)
    headline: Phrase = (
        f"v{race.version} {race.operation}{who_}{at} read v{race.read_version}, was overtaken "
        f"by {plural(count, 'commit')} {verdict}.",
    )
    details: list[tuple[str, Phrase]] = []
    if race.winners:
        details.append(("winners", (winners_words(race.winners, commits),)))
    if race.missing_winners:
        gone = missing_text(race.missing_winners)
        details.append(("missing", (f"{gone} from the retained log: not judged",)))
    details.append(("read", reads_words(race.operation, race.read_predicate, race.read_reason)))
    if failed:
        details.append(("why", (race.reason,)))
    else:
        details.append(("why", (f"it committed because {_why_committed(race)}",)))
    if race.fragile_under:
        details.append(("at risk", (fragility_words(race),)))
    level = "conflict" if failed else ("fragile" if race.fragile_under else "ok")
    return Explanation(version=race.version, level=level, headline=headline, details=tuple(details))


def explain_races(races: Sequence[Race], commits: Mapping[int | None, Commit]) -> list[Explanation]:
    """Each race in words, races that tell the same story (same writer and operation, same
    read, same reason, same risk, same kind of winners) folded into one finding that lists
    each race on its own line: a job that raced the same way five times is one finding."""
    groups: dict[tuple[object, ...], list[Race]] = {}
    for r in races:
        groups.setdefault(_story(r, commits), []).append(r)
    out = []
    for members in groups.values():
        out.append(
            explain_race(members[0], commits)
            if len(members) == 1
            else _explain_group(members, commits)
        )
    return out


_EXPRESSION_ID = re.compile(r"(?<=\w)#\d+")


def _story(race: Race, commits: Mapping[int | None, Commit]) -> tuple[object, ...]:
    own = commits.get(race.version)
    winners = frozenset(group_key(commits.get(w)) for w in race.winners)
    risk = tuple(sorted({(f.change, f.outcome) for f in race.fragile_under}))
    # a recorded condition's expression ids differ from run to run: one story all the same
    reads = _EXPRESSION_ID.sub(
        "", plain(reads_words(race.operation, race.read_predicate, race.read_reason))
    )
    reason = race.reason if race.outcome != "commits" else _why_committed(race)
    own_key = group_key(own) if own is not None else race.version
    return (race.outcome, own_key, reads, reason, risk, winners, bool(race.missing_winners))


def _explain_group(races: Sequence[Race], commits: Mapping[int | None, Commit]) -> Explanation:
    first = races[0]
    own = commits.get(first.version)
    by = f" by {who(own)}" if own is not None else ""
    versions = ", ".join(f"v{r.version}" for r in races)
    failed = first.outcome != "commits"
    verdict = (
        f"and Delta's checker would raise {failure_words(first.outcome, first.code)} for each"
        if failed
        else "and each committed"
    )
    headline: Phrase = (
        f"{len(races)} {first.operation}s{by} ({versions}) were each overtaken by commits they "
        f"had not read, {verdict}.",
    )
    details: list[tuple[str, Phrase]] = []
    for r in races:
        mine = commits.get(r.version)
        at = f" at {when(mine.timestamp)}" if mine is not None else ""
        over = winners_words(r.winners, commits) if r.winners else "commits no longer in the log"
        details.append((f"v{r.version}", (f"read v{r.read_version}{at}, overtaken by {over}",)))
    read = reads_words(first.operation, first.read_predicate, first.read_reason)
    if _EXPRESSION_ID.search(first.read_reason):
        read = (*read, f" (as v{first.version} recorded it)")
    details.append(("read", read))
    why = first.reason if failed else f"each committed because {_why_committed(first)}"
    details.append(("why", (why,)))
    if first.fragile_under:
        details.append(("at risk", (fragility_words(first, name_winner=False),)))
    level = "conflict" if failed else ("fragile" if first.fragile_under else "ok")
    return Explanation(
        version=first.version, level=level, headline=headline, details=tuple(details)
    )


def safe_race_words(race: Race, commits: Mapping[int | None, Commit]) -> Phrase:
    """A race that committed with nothing at risk, in one line that still names its winners:
    ``v26 WRITE by job orders_ingest read v24, overtaken by v25, a MERGE by …; it read nothing
    (a blind append)``."""
    own = commits.get(race.version)
    by = f" by {who(own)}" if own is not None else ""
    over = winners_words(race.winners, commits) if race.winners else "commits no longer in the log"
    reads = reads_words(race.operation, race.read_predicate, race.read_reason)
    return (
        f"v{race.version} {race.operation}{by} read v{race.read_version}, overtaken by {over}; ",
        *reads,
    )
