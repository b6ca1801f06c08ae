"""The failed statement of an error text, when the text does not carry it: inferred from the
commits of the job the text names (issue #31 item 2).

A failed transaction writes nothing to ``_delta_log``, and Delta's message names only the
winner. But a driver log's lines usually name the job or application that failed
(``ERROR orders_status_merge: batch failed``), and a job that runs the same statement on a
schedule has committed it before and after: its other commits carry the statement's recorded
condition and the partitions one run touches. The failed run is taken to be the job's commit
nearest the winner (the latest at or before it, else the first after), re-read at the version
the text names (``read version 6``) or else just before the winner, and checked against the
commits from its read version to the winner — a stand-in for the statement, so the inference
says so and its confidence is at most ``medium``.

Only names the commits themselves record are looked for (``commitInfo.job.jobName``, a
notebook path, a streaming ``queryId``), as whole words, in the text before the exception;
the nearest one before it wins. The exception's own message (which may quote the winner's
commitInfo) is never searched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deltaforensics.transactions import Transaction

MIN_NAME = 4  # shorter names ("etl", "job") match too much prose
_READ_VERSION = re.compile(r"\bread(?:ing)?[ _-]?version[ =:]*(\d+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class InferredLoser:
    """The stand-in for an error's failed statement, the commits it is checked against, and
    how it was found (said in every reason that uses it)."""

    loser: Transaction
    winners: tuple[Transaction, ...]
    how: str
    label: str
    confidence: str = "medium"


def recorded_names(commit_info: Mapping[str, Any]) -> list[str]:
    """The names a commitInfo records for its writer that a log line may name."""
    names: list[str] = []
    job = commit_info.get("job")
    if isinstance(job, Mapping) and isinstance(job.get("jobName"), str):
        names.append(job["jobName"])
    notebook = commit_info.get("notebook")
    if isinstance(notebook, Mapping) and isinstance(notebook.get("notebookPath"), str):
        path = notebook["notebookPath"]
        names += [path, path.rstrip("/").rsplit("/", 1)[-1]]
    params = commit_info.get("operationParameters")
    if isinstance(params, Mapping) and isinstance(params.get("queryId"), str):
        names.append(params["queryId"])
    return [n for n in names if len(n) >= MIN_NAME]


def text_before(text: str, line: int | None, exception: str) -> str:
    """The text before the exception: the lines above it and its own line up to the
    exception's class name."""
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return ""
    own = lines[line - 1]
    cut = own.find(exception)
    bracket = own.find("[")
    ends = [p for p in (cut, bracket) if p >= 0]
    return "\n".join([*lines[: line - 1], own[: min(ends)] if ends else ""])


def named_writer(before: str, names: Iterable[str]) -> str | None:
    """The recorded writer name whose last whole-word mention is nearest the exception."""
    best: tuple[int, str] | None = None
    for name in set(names):
        pattern = re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w-])")
        found = [m.start() for m in pattern.finditer(before)]
        if found and (best is None or found[-1] > best[0]):
            best = (found[-1], name)
    return best[1] if best else None


def infer_loser(
    text: str,
    evidence: Any,
    winner: Transaction,
    transactions: Any,
) -> InferredLoser | None:
    """The failed statement of ``evidence`` (one exception in ``text``) inferred from the
    named job's other commits; None when the text names no writer the log records, or the
    writer has no data-changing commit to stand in for it. ``transactions``: the committed
    transactions (``versions``, ``at(v)``, ``commit_infos()``)."""
    before = text_before(text, evidence.line, evidence.exception)
    if not before or winner.version is None:
        return None
    versions: Sequence[int] = transactions.versions
    by_name: dict[str, list[int]] = {}
    for version, info in zip(versions, transactions.commit_infos(), strict=False):
        for recorded in recorded_names(info):
            by_name.setdefault(recorded, []).append(version)
    name = named_writer(before, by_name)
    if name is None:
        return None
    own = [v for v in by_name[name] if v != 0 and _stands_in(transactions.at(v))]
    if not own:
        return None
    at_or_before = [v for v in own if v <= winner.version]
    template = transactions.at(at_or_before[-1] if at_or_before else own[0])
    read = _read_version(before, winner.version)
    loser = replace(template.reading_version(read, "error text"), version=None)
    winners = tuple(transactions.at(v) for v in versions if read < v <= winner.version and v != 0)
    how = (
        f"the failed statement is not in the text: inferred from v{template.version}, "
        f"a {template.provenance.operation} of {name} (the job the error text names), "
        f"reading v{read}"
    )
    label = f"{name} (as v{template.version}, read v{read})"
    return InferredLoser(loser=loser, winners=winners, how=how, label=label)


def _stands_in(t: Transaction) -> bool:
    """A commit that can stand in for a failed statement: it read the table (a blind append
    reads nothing and fails against no data change)."""
    return not t.read.reads.blind and t.provenance.operation.upper() not in ("CREATE TABLE",)


def _read_version(before: str, winner: int) -> int:
    found = [int(m.group(1)) for m in _READ_VERSION.finditer(before)]
    usable = [v for v in found if v < winner]
    return usable[-1] if usable else winner - 1
