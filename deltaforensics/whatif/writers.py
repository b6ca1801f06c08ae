"""Who wrote a commit: commits grouped into writers for the writer matrix and schedule changes.

A writer is the thing a user can reschedule or fix, named as a person names it: a streaming
query (its ``queryId`` or ``txn`` appId — two running instances share it, which is the
hazard), a job, a notebook, a user; without any of those, the engine plus the operation and
its predicate's shape, literals masked and paths left out (``delta-rs DELETE date = ? AND
user_id < ?``), so each recurring statement of a service is one writer. A name is at most
:data:`MAX_NAME` characters: it is read in a table cell and an alert line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from deltaforensics.predicates.ir import Predicate, TrueExpr
from deltaforensics.transactions import Transaction

_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
# a URI or an absolute path (a temporary source table, a staging folder): never part of a name
_PATH = re.compile(r"(?:\b[a-zA-Z][a-zA-Z0-9+.-]*://|(?<![\w.])/)[^\s,()'\"`]+")
MAX_NAME = 60


def predicate_template(t: Transaction) -> str:
    """The transaction's condition with literals replaced by ``?`` ("" when it has none)."""
    pred = t.read.reads.full_predicate
    if pred is None or isinstance(pred, TrueExpr):
        return ""
    return _masked(pred)


@lru_cache(maxsize=1 << 14)  # a history repeats a few conditions; writer names are asked often
def _masked(pred: Predicate) -> str:
    return _NUMBER.sub("?", _STRING.sub("?", _PATH.sub("<path>", pred.to_sql())))


def writer_of(t: Transaction) -> str:
    """A stable, human-readable writer name for one commit (or attempt), at most
    :data:`MAX_NAME` characters."""
    return _shortened(_full_name(t))


def _shortened(name: str) -> str:
    name = " ".join(name.split())
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1].rstrip() + "…"


def _full_name(t: Transaction) -> str:
    query = t.provenance.parameters.get("queryId")
    if isinstance(query, str) and query:
        return f"streaming query {query}"
    if t.written.app_ids:
        return f"app {sorted(t.written.app_ids)[0]}"
    if t.provenance.who:
        return t.provenance.who
    mode = t.provenance.parameters.get("mode")
    parts = [t.provenance.profile.engine, t.provenance.operation]
    if isinstance(mode, str) and mode:
        parts.append(mode)
    template = predicate_template(t)
    if template:
        parts.append(template)
    return " ".join(parts)


_CONTEXT_KEYS = frozenset(("clusterId", "notebook", "job"))


def contexts_of(t: Transaction) -> str:
    """Where the commit ran (cluster, job run context, notebook); "" when not recorded."""
    ci = t.provenance.commit_info
    if _CONTEXT_KEYS.isdisjoint(ci):  # most commits: none recorded
        return ""
    bits = [str(ci.get("clusterId") or "")]
    nb = ci.get("notebook")
    if isinstance(nb, dict):
        bits.append(str(nb.get("notebookId") or ""))
    job = ci.get("job")
    if isinstance(job, dict):
        bits.append(str(job.get("jobId") or ""))
    return "/".join(bits).strip("/")


def transactions_by_writer(
    transactions: Iterable[Transaction],
    into: Mapping[str, Sequence[Transaction]] | None = None,
) -> dict[str, list[Transaction]]:
    """Every transaction (attempts and version 0 included) under its writer name, in order,
    after those already grouped in ``into`` (which is not changed)."""
    out: dict[str, list[Transaction]] = {k: list(v) for k, v in (into or {}).items()}
    for t in transactions:
        out.setdefault(writer_of(t), []).append(t)
    return out


def group_writers(by_writer: Mapping[str, Sequence[Transaction]]) -> dict[str, list[Transaction]]:
    """Commits per writer (from :func:`transactions_by_writer`), in version order; attempts,
    version 0 and creates that lost the version-0 race are left out."""
    groups: dict[str, list[Transaction]] = {}
    for name, transactions in by_writer.items():
        commits = [
            t
            for t in transactions
            if t.version is not None
            and t.version != 0
            and (t.read.version is None or t.read.version >= 0)
        ]
        if commits:
            groups[name] = sorted(commits, key=lambda t: t.version or 0)
    return groups


def runs_in_parallel(commits: Sequence[Transaction]) -> bool:
    """Whether one writer's commits came from more than one place at once (two instances of a
    streaming query, a job and a notebook sharing a checkpoint)."""
    places = {contexts_of(t) for t in commits} - {""}
    return len(places) > 1
