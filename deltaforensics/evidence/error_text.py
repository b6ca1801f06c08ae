"""Delta write-conflict exceptions found in free text: the only trace a losing transaction leaves.

``extract_conflicts(text)`` reads any text a failed job left behind (driver log, job output,
notebook error, Java stack trace with ``Caused by:`` chains, PySpark or delta-rs traceback, JSON
log records, ``.ipynb`` outputs) and returns one ``ConflictEvidence`` per distinct exception, in
order of first appearance. It never raises: text with no Delta conflict gives ``[]``.

How it reads (formats: ``message_formats``; the JSON: ``conflicting_commit``; times: ``log_timestamps``):

1. ANSI colour codes are dropped (line numbers are kept); every anchor sentence is located.
2. Around each anchor: the exception class and ``[ERROR_CLASS.SUB_CLASS]`` before it on the same
   line; the rest of the line (sub-message, retry hint, partition); a ``Conflicting commit:`` JSON
   within the next four lines; a ``Refer to <link>`` after it; ``Help:`` (delta-rs).
3. Repeats of one exception (the streaming wrapper's copy, ``Caused by:``, PySpark's ``JVM
   stacktrace:``, a notebook's summary line) fold into one value; the rules are in
   ``conflict_evidence``.

``era`` is the *message format*:

- ``A``: the plain sentence (OSS ≤ 3.1, and DBR renderings without a class prefix);
- ``B``: ``[DELTA_…] Name: sentence`` (OSS 3.2–4.0; ``[DELTA_MAX_COMMIT_RETRIES_EXCEEDED]`` is
  bracketed since 2.0);
- ``C``: the "Transaction conflict detected" sub-class texts, METADATA_CHANGED with a table name
  (4.4), and the bracketed texts 4.1 left unchanged (METADATA/PROTOCOL/TRANSACTION/WRITE) when
  their JSON is in on-disk form, which only ≥ 4.1 re-emits (decoded or no JSON: ``B``);
- ``databricks``: a Databricks-only sub-class (row-level concurrency reasons);
- ``delta-rs``.

``engine`` is who printed it: a ``com.databricks``/``tahoe`` class or a Databricks/Azure doc
link mean ``databricks``, a docs.delta.io link ``delta-spark``; without a link a Databricks-only
sub-class or Databricks' capital ``A concurrent`` decide, and only then Databricks fields in the
winner's commitInfo (``engineInfo`` ``Databricks-Runtime/…``, ``clusterId``, ``job`` …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deltaforensics.evidence import message_formats as fmt
from deltaforensics.evidence.conflict_evidence import (
    ConflictEvidence,
    Engine,
    Era,
    merge_repeats,
)
from deltaforensics.evidence.conflicting_commit import ParsedCommit, find_conflicting_commit
from deltaforensics.evidence.log_timestamps import LineTimes
from deltaforensics.profiles import written_on_databricks

MAX_RAW = 2000
PREFIX_CHARS = 400
JSON_LINES = 4

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\\u001b\[[0-9;]*m|\\x1b\[[0-9;]*m")
_INT_TEXT = re.compile(r"-?[0-9]{1,19}")


def extract_conflicts(text: str, *, source: str = "<stdin>") -> list[ConflictEvidence]:
    """Every distinct Delta concurrency exception in ``text``, in order of first appearance."""
    if not text:
        return []
    clean = _ANSI.sub("", text) if "\x1b" in text or "1b[" in text else text
    times = LineTimes(clean)
    matches = _anchor_matches(clean)
    found: list[tuple[ConflictEvidence, int, int]] = []
    consumed = -1
    for i, (anchor, m) in enumerate(matches):
        if m.start() < consumed:
            continue  # the sentence sits inside the previous message (its JSON, say)
        next_start = matches[i + 1][1].start() if i + 1 < len(matches) else len(clean)
        evidence, end = _read_message(clean, anchor, m, next_start, times, source)
        consumed = end
        found.append((evidence, m.start(), end))
    return merge_repeats(clean, found)


def _anchor_matches(text: str) -> list[tuple[fmt.Anchor, re.Match[str]]]:
    found: list[tuple[int, int, int, fmt.Anchor, re.Match[str]]] = []
    for n, anchor in enumerate(fmt.ANCHORS):
        literal = anchor.literal
        at = text.find(literal)
        while at >= 0:  # str.find skips the text between candidates far faster than re
            m = anchor.pattern.match(text, at)
            if m:
                found.append((m.start(), -m.end(), n, anchor, m))
            at = text.find(literal, at + 1)
    hits = sorted(found, key=lambda h: (h[0], h[1], h[2]))
    out: list[tuple[fmt.Anchor, re.Match[str]]] = []
    for start, _, _, anchor, m in hits:
        if not out or start >= out[-1][1].end():
            out.append((anchor, m))
    return out


def _nth_newline(text: str, pos: int, n: int) -> int:
    for _ in range(n):
        found = text.find("\n", pos)
        if found < 0:
            return len(text)
        pos = found + 1
    return pos - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class _Message:
    """Where one message lies around its anchor sentence, and what its surroundings carry."""

    line: int
    prefix_start: int  # where the text before the anchor that was searched starts
    raw_start: int  # where the message starts, relative to prefix_start
    class_name: str | None
    error_class: str | None
    rest: str  # the rest of the anchor's line
    commit: ParsedCommit | None
    doc_link: str | None
    details: dict[str, object]
    end: int


def _locate_message(
    text: str, anchor: fmt.Anchor, m: re.Match[str], next_start: int, times: LineTimes
) -> _Message:
    line = times.line_of(m.start())
    prefix_start = max(times.line_start(line), m.start() - PREFIX_CHARS)
    class_name, error_class, raw_start = _header(text[prefix_start : m.start()], anchor)
    rest_end = min(_nth_newline(text, m.end(), 1), m.end() + 4000, max(next_start, m.end()))
    escaped_newline = text.find("\\n", m.end(), rest_end)  # a message inside a JSON/repr string
    rest = text[m.end() : rest_end if escaped_newline < 0 else escaped_newline]
    end = m.end() + len(rest) if anchor.family == "scala" else m.end()
    commit = None
    if anchor.family == "scala":
        json_limit = max(min(_nth_newline(text, m.end(), JSON_LINES), next_start), m.end())
        commit = find_conflicting_commit(text, m.end(), json_limit)
        end = max(end, commit.end if commit else end)
    tail = text[m.end() : min(_nth_newline(text, end, 2), max(next_start, end))]
    link = fmt.DOC_LINK.search(tail)
    if link:
        end = max(
            end, m.end() + link.end() + (1 if tail[link.end() : link.end() + 1] == "." else 0)
        )
    details: dict[str, object] = {}
    end = max(end, _details(text, anchor, m, rest, next_start, details))
    return _Message(
        line=line,
        prefix_start=prefix_start,
        raw_start=raw_start,
        class_name=class_name,
        error_class=error_class,
        rest=rest,
        commit=commit,
        doc_link=link.group("link") if link else None,
        details=details,
        end=end,
    )


def _read_message(
    text: str, anchor: fmt.Anchor, m: re.Match[str], next_start: int, times: LineTimes, source: str
) -> tuple[ConflictEvidence, int]:
    groups = m.groupdict()
    found = _locate_message(text, anchor, m, next_start, times)
    line, class_name, error_class, rest = (
        found.line,
        found.class_name,
        found.error_class,
        found.rest,
    )
    commit, doc_link, details, end = found.commit, found.doc_link, found.details, found.end
    exception = (
        fmt.debug_variant_exception(groups["variant"])
        if groups.get("variant")
        else anchor.exception
    )
    subclass = _subclass(error_class, anchor, rest)
    partition, whole_table, file_path = _where(anchor.name, groups, rest, subclass)
    winner = commit.commit if commit else {}
    table = groups.get("table")
    version = int(groups["version"]) if groups.get("version") else _int(winner.get("version"))
    if version is None and details.get("empty_directory"):
        version = 0  # Delta adds that hint only when the winner is version 0
    evidence = ConflictEvidence(
        exception=exception,
        kind="retries-exhausted" if exception == fmt.MAX_RETRIES else "conflict",
        error_class=error_class,
        subclass=subclass,
        era=_era(anchor, subclass, error_class, table, commit),
        engine="delta-rs"
        if anchor.family == "rust"
        else _spark_engine(class_name, doc_link, winner, subclass, groups.get("article")),
        class_name=class_name,
        winner_version=version,
        winner_operation=groups.get("operation") or _str(winner.get("operation")),
        winner_timestamp=_int(winner.get("timestamp")) or _int(winner.get("inCommitTimestamp")),
        txn_id=_str(winner.get("txnId")),
        winner_read_version=_int(winner.get("readVersion")),
        winner_isolation_level=_str(winner.get("isolationLevel")),
        winner_is_blind_append=_bool(winner.get("isBlindAppend")),
        winner_engine_info=_str(winner.get("engineInfo")),
        winner_user_id=_str(winner.get("userId")),
        winner_user_name=_str(winner.get("userName")),
        winner_cluster_id=_str(winner.get("clusterId")),
        winner_job=_dict(winner.get("job")),
        winner_notebook=_dict(winner.get("notebook")),
        table_name=table,
        partition=partition,
        whole_table=whole_table,
        file_path=file_path,
        conflicting_commit=commit.commit if commit else None,
        retry_hint=bool(fmt.RETRY_HINT.search(rest)),
        doc_link=doc_link,
        details=details | _commit_details(commit),
        observed_at=times.observed_at(line),
        raw=text[found.prefix_start + found.raw_start : end].rstrip()[:MAX_RAW],
        line=line,
        source=source,
    )
    return evidence, end


def _header(prefix: str, anchor: fmt.Anchor) -> tuple[str | None, str | None, int]:
    """Class name, error class and where the message starts, from the text before the anchor."""
    starts = [len(prefix)]
    ec = fmt.ERROR_CLASS.search(prefix)
    if ec:
        starts.append(ec.start())
    class_name, class_start = None, len(prefix)
    for cm in fmt.CLASS_NAME.finditer(prefix):
        package = fmt.PACKAGE.search(prefix, max(0, cm.start() - 300), cm.start())
        name = (package.group(0) if package and package.end() == cm.start() else "") + cm.group(0)
        if class_name is None or "." in name or "." not in class_name:
            class_name, class_start = name, cm.end() - len(name)
    starts.append(class_start)
    if anchor.family == "rust":
        rs = fmt.RS_PREFIX.search(prefix)
        if rs:
            starts.append(rs.start())
    return class_name, ec.group("ec") if ec else None, min(starts)


def _details(
    text: str,
    anchor: fmt.Anchor,
    m: re.Match[str],
    rest: str,
    next_start: int,
    out: dict[str, object],
) -> int:
    """Message-specific facts (protocol versions, retry counts); returns where they end."""
    end = m.end()
    if m.groupdict().get("attempts"):
        out["attempts"] = int(m.group("attempts"))
    if anchor.name == "max-retries":
        window = text[m.end() : max(min(_nth_newline(text, m.end(), 8), next_start), m.end())]
        for key, pattern in fmt.MAX_RETRY_LINES.items():
            found = pattern.search(window)
            if found:
                out[key] = int(found.group(1))
                end = max(end, m.end() + found.end())
    if anchor.name == "protocol" and fmt.EMPTY_DIRECTORY in rest:
        out["empty_directory"] = True
    if anchor.name in fmt.ENGINE_ERRORS:
        out["engine_error"] = fmt.ENGINE_ERRORS[anchor.name]
        window = text[m.end() : max(min(_nth_newline(text, m.end(), 6), next_start), m.end())]
        changed = [
            f for found in fmt.CHANGED_FIELDS.finditer(window) for f in found["fields"].split(",")
        ]
        if changed:
            out["changed_fields"] = [f.strip() for f in changed if f.strip()]
    if anchor.name in ("rs-protocol", "rs-debug"):
        detail = (m.group("detail") or "").strip()
        if detail:
            out["reason"] = detail
        versions = fmt.RS_PROTOCOL.search(detail)
        if versions:
            out.update(
                {
                    "required_reader_version": int(versions["rr"]),
                    "required_writer_version": int(versions["rw"]),
                    "current_reader_version": int(versions["cr"]),
                    "current_writer_version": int(versions["cw"]),
                }
            )
    if anchor.family == "rust":
        help_line = fmt.RS_HELP.match(text, m.end())
        if help_line and help_line.end() <= max(next_start, m.end()):
            end = max(end, help_line.end())
    return end


def _subclass(error_class: str | None, anchor: fmt.Anchor, rest: str) -> str | None:
    if error_class and "." in error_class:
        return error_class.split(".", 1)[1]
    if not anchor.name.startswith("c-"):
        return None
    return next((sub for sentence, sub in fmt.SUBCLASS_SENTENCES if sentence in rest), None)


def _where(
    anchor_name: str, groups: dict[str, str | None], rest: str, subclass: str | None
) -> tuple[dict[str, str | None] | None, bool, str | None]:
    """Partition, whole-table flag and example file named by the message."""
    if groups.get("root"):
        return {}, True, None
    if groups.get("partition"):
        return fmt.parse_partition(groups["partition"] or ""), False, None
    if groups.get("file"):
        path, partition, whole_table = fmt.split_example_file(
            groups["file"] or "", bare_means_whole_table=anchor_name == "delete-read"
        )
        return partition, whole_table, path
    hinted = fmt.C_PARTITION.search(rest)
    if hinted:
        return fmt.parse_partition(hinted.group("partition")), False, None
    return None, subclass in fmt.WHOLE_TABLE_SUBCLASSES, None


def _era(
    anchor: fmt.Anchor,
    subclass: str | None,
    error_class: str | None,
    table: str | None,
    commit: ParsedCommit | None,
) -> Era:
    if anchor.family == "rust":
        return "delta-rs"
    if subclass in fmt.DATABRICKS_SUBCLASSES:
        return "databricks"
    if anchor.name.startswith("c-") or (anchor.name == "metadata" and table):
        return "C"
    if not error_class:
        return "A"
    # The bracketed texts 4.1 kept unchanged are dated by their JSON: >= 4.1 re-emits on-disk form.
    return "C" if commit is not None and commit.params_form == "on-disk" else "B"


def _spark_engine(
    class_name: str | None,
    doc_link: str | None,
    winner: dict[str, object],
    subclass: str | None,
    article: str | None,
) -> Engine:
    """Who printed the message. The loser's own marks (class, doc link, sub-class, wording) come
    first; Databricks fields in the *winner's* commitInfo only decide when the loser left none,
    since an OSS job can lose to a Databricks winner on a shared table."""
    cls = class_name or ""
    if cls.startswith(fmt.DATABRICKS_CLASS_PREFIX) or ".tahoe." in cls:
        return "databricks"
    if doc_link:
        return "databricks" if _host(doc_link).endswith(fmt.DATABRICKS_HOSTS) else "delta-spark"
    if subclass in fmt.DATABRICKS_SUBCLASSES or article == "A":
        return "databricks"
    return "databricks" if written_on_databricks(winner) else "delta-spark"


def _host(link: str | None) -> str:
    """``learn.microsoft.com`` from ``https://learn.microsoft.com/azure/...``."""
    return (link or "").partition("://")[2].partition("/")[0].lower()


def _commit_details(commit: ParsedCommit | None) -> dict[str, object]:
    if commit is None:
        return {}
    out: dict[str, object] = {}
    if not commit.complete:
        out["conflicting_commit_truncated"] = True
    if commit.params_form:
        out["operation_parameters_form"] = commit.params_form
    return out


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        return int(value)
    return None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: object) -> dict[str, object] | None:
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else None
