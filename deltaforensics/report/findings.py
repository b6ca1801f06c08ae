"""The findings of an explain report that a gate can fail on, each with a fingerprint.

``--fail-on`` selects kinds of finding (:data:`GATES`); ``--baseline`` accepts single findings by
fingerprint, so that a table that already has findings can adopt the gate and fail only on new
ones. A fingerprint names *what* happened and *where*, never *when*: the kind and rule or code,
the operations and writers involved, the statement attempted and the partitions touched. It
leaves out

- version numbers and times: a table copied, restored or read from another checkpoint keeps
  its findings; findings are matched as a set, so their order in the report does not matter;
- file paths and table locations: the same table read through another mount or URL;
- cluster ids (a job cluster is new on every run) and engine versions (a runtime upgrade does
  not make an old race new);
- everything ``--redact`` pseudonymises: a notebook or a user is fingerprinted by its kind
  (``notebook``, ``user``), a job by its name, and any other text as a fresh redaction shows it
  with the pseudonym counters taken out; so a report and its redacted copy give the same
  fingerprints, and a baseline file names no person;
- the prose reasons, which may be reworded by any release.

Everything is read from the typed report document, which is all the audit keeps of a table:
``explain`` and ``audit`` fingerprint alike.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from deltaforensics.evidence.anomalies import Anomaly
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.report.document.conflict import Conflict
from deltaforensics.report.document.explain import Commit, ExplainDocument, Race
from deltaforensics.report.redact import Redactor

Commits = Mapping[int, Commit]  # the report's commits by version
Places = list[list[list[str | None]]]  # partitions as sorted (column, value) pairs, canonical

GATES = ("conflict", "anomaly", "disagreement")
DISAGREEMENT_CODE = "W401"
FINGERPRINT_LENGTH = 16  # hex digits: 64 bits, plenty for the findings of one table

_COUNTER = re.compile(r"(user|email|notebook|path)#\d+")
_CLUSTER = re.compile(r",\s*cluster\s.*$")
_HIVE_DIR = re.compile(r"([^/=]+)=([^/]*)/")


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One finding a gate can fail on.

    ``gate`` is the ``--fail-on`` choice that selects it; ``title`` names it without versions
    (what a baseline file lists); ``detail`` is the report's own account of this occurrence,
    with its versions (what a JUnit failure shows); ``versions`` are the commits it names."""

    fingerprint: str
    gate: str
    code: str
    title: str
    detail: str
    versions: tuple[int, ...]


def findings_of(doc: ExplainDocument) -> tuple[Finding, ...]:
    """Every finding of the explain report ``doc`` that a gate selects, in report order:
    predicted conflicts of committed races and observed or attempted conflicts (``conflict``),
    anomalies above info (``anomaly``), model disagreements (``disagreement``)."""
    commits = {c.version: c for c in doc.commits if c.version is not None}
    canon = _Canon()
    found = [_race(r, commits, canon) for r in doc.races if r.outcome != "commits"]
    found += [_conflict(c, commits, canon) for c in doc.conflicts]
    found += [_anomaly(a, commits, canon) for a in doc.anomalies if a.severity != "info"]
    found += [
        _disagreement(d, commits, canon) for d in doc.diagnostics if d.code == DISAGREEMENT_CODE
    ]
    return tuple(found)


def fingerprint(parts: Mapping[str, object]) -> str:
    """The fingerprint of a finding's identifying parts (any JSON data, key order ignored)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:FINGERPRINT_LENGTH]


class _Canon:
    """Text as every redaction of it reads: identities become their kind."""

    def __init__(self) -> None:
        self.redactor = Redactor()  # patterns only: it learns nothing from the document

    def text(self, value: str | None) -> str | None:
        if value is None:
            return None
        return _COUNTER.sub(r"\1", self.redactor.redact_text(" ".join(value.split())))

    def writer(self, label: str | None) -> str:
        """A writer label (``job x, cluster y`` / ``notebook n`` / ``user u`` / engine)."""
        who = _CLUSTER.sub("", label or "").strip()
        for kind in ("notebook", "user"):
            if who == kind or who.startswith((f"{kind} ", f"{kind}#")):
                return kind
        return self.text(who) or ""

    def partitions(self, partitions: Iterable[Mapping[str, str | None]]) -> Places:
        rows = {json.dumps(sorted((k, self.text(v)) for k, v in p.items())) for p in partitions}
        return [json.loads(r) for r in sorted(rows)]

    def commit(self, commit: Commit | None) -> list[str] | None:
        """What identifies a commit: its operation and its writer."""
        if commit is None:
            return None
        return [commit.operation, self.writer(commit.writer)]

    def commits(self, versions: Iterable[int], commits: Commits) -> list[list[str]]:
        known = (self.commit(commits.get(v)) for v in versions)
        return sorted({json.dumps(c): c for c in known if c is not None}.values())


def _described(commit: list[str] | None) -> str:
    return f"{commit[0]} by {commit[1]}" if commit else "an unknown commit"


def _where(partitions: Places) -> str:
    if not partitions:
        return ""
    shown = ", ".join("/".join(f"{k}={v}" for k, v in p) for p in partitions[:3])
    more = f" and {len(partitions) - 3} more" if len(partitions) > 3 else ""
    return f" in {shown}{more}"


def _race(race: Race, commits: Commits, canon: _Canon) -> Finding:
    loser = commits.get(race.version)
    # canonical texts in this order: a redactor learns from each, and the fingerprints stay
    loser_seen = canon.commit(loser)
    winners_seen = canon.commits(race.winners, commits)
    where = canon.partitions(loser.partitions if loser else ())
    parts = {
        "kind": "race",
        "code": race.code,
        "outcome": race.outcome,
        "loser": loser_seen,
        "winners": winners_seen,
        "partitions": where,
    }
    winners = "; ".join(_described(w) for w in winners_seen) or "no recorded winner"
    title = f"{race.outcome} predicted for {_described(loser_seen)} against {winners}"
    detail = f"v{race.version} (read v{race.read_version}): {race.reason}"
    versions = (race.version, *race.winners)
    return _found(parts, where, "conflict", race.code or race.outcome, title, detail, versions)


_HARVESTED = {"eventlog": "Spark event log", "driverlog": "Spark driver log"}


def _conflict(conflict: Conflict, commits: Commits, canon: _Canon) -> Finding:
    loser = conflict.loser
    winner = conflict.winner_version
    against = (winner,) if winner is not None else tuple(conflict.candidates)
    statement = canon.text(loser.statement)
    loser_seen = canon.commit(commits.get(loser.version)) if loser.version else None
    winners_seen = canon.commits(against, commits)
    where = canon.partitions(conflict.partitions)
    parts = {
        "kind": "conflict",
        "source": conflict.source,
        "code": conflict.code,
        "exception": conflict.exception,
        "statement": statement,
        "loser": loser_seen,
        "winners": winners_seen,
        "partitions": where,
    }
    failed = f"attempted `{statement}`" if statement else "seen in an error text"
    if conflict.source in _HARVESTED:  # issue #33
        seen = f"seen in the {_HARVESTED[conflict.source]}"
        failed = f"of `{statement}` {seen}" if statement else seen
    winners = "; ".join(_described(w) for w in winners_seen) or "an unknown winner"
    return Finding(
        fingerprint=fingerprint(parts),
        gate="conflict",
        code=conflict.code or conflict.exception,
        title=f"{conflict.exception} {failed}, against {winners}{_where(where)}",
        detail=conflict.reason,
        versions=tuple(against),
    )


def _anomaly(anomaly: Anomaly, commits: Commits, canon: _Canon) -> Finding:
    involved_commits = canon.commits(anomaly.versions, commits)
    where = canon.partitions(_hive_partitions(anomaly.files))
    parts = {
        "kind": "anomaly",
        "code": anomaly.code,
        "commits": involved_commits,
        "partitions": where,
    }
    involved = "; ".join(_described(c) for c in involved_commits)
    title = f"{anomaly.kind}{': ' + involved if involved else ''}"
    return _found(parts, where, "anomaly", anomaly.code, title, anomaly.reason, anomaly.versions)


def _disagreement(diagnostic: Diagnostic, commits: Commits, canon: _Canon) -> Finding:
    version = diagnostic.version
    commit = commits.get(version) if version is not None else None
    commit_seen = canon.commit(commit)
    where = canon.partitions(commit.partitions if commit else ())
    parts = {
        "kind": "disagreement",
        "code": diagnostic.code,
        "commit": commit_seen,
        "partitions": where,
    }
    title = f"model disagreement: {_described(commit_seen)} committed"
    versions = (version,) if version is not None else ()
    return _found(
        parts, where, "disagreement", diagnostic.code, title, diagnostic.message, versions
    )


def _found(
    parts: Mapping[str, object],
    where: Places,
    gate: str,
    code: str,
    title: str,
    detail: str,
    versions: Iterable[int],
) -> Finding:
    """The finding of ``parts`` (its fingerprint), titled with where it happened."""
    return Finding(
        fingerprint=fingerprint(parts),
        gate=gate,
        code=code,
        title=title + _where(where),
        detail=detail,
        versions=tuple(versions),
    )


def _hive_partitions(files: Iterable[str]) -> list[dict[str, str]]:
    """The partition folders (``col=value/``) a file path starts with: where an anomaly's
    files live, without the file names (new on every rewrite)."""
    found = []
    for path in files:
        pairs = _HIVE_DIR.findall(path)
        if pairs:
            found.append(dict(pairs))
    return found
