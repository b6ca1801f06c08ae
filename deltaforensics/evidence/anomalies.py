"""Anomalies visible in the log alone: each a value with a registered code.

The codes, with their kind, severity and documentation, are in
:mod:`deltaforensics.model.anomaly_codes`; each detector here finds the instances of one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from deltaforensics.model.anomaly_codes import (
    COMMIT_GAP,
    DUPLICATE_APP_ID,
    DUPLICATE_REMOVE,
    FORGEABLE_PROVENANCE,
    ISOLATION_LEVEL_IGNORED,
    LOST_OVERWRITE,
    METADATA_CHANGE_DURING_RACE,
    READ_VERSION_NOT_BEFORE_VERSION,
    UNMARKED_APPEND_VS_SPARK_READER,
)
from deltaforensics.model.codes import Code
from deltaforensics.model.gaps import count, describe, missing_ranges
from deltaforensics.model.words import plural
from deltaforensics.profiles import Check, parse_isolation
from deltaforensics.replay import Replay
from deltaforensics.transactions import CommittedTransactions, Transaction
from deltaforensics.transactions.decode import json_or_none, parameters_of
from deltaforensics.transactions.facts import by_distinct

FORGEABLE = (
    "readVersion",
    "isolationLevel",
    "isBlindAppend",
    "userName",
    "userId",
    "job",
    "notebook",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Anomaly:
    code: str
    kind: str
    severity: str
    versions: tuple[int, ...]
    files: tuple[str, ...]
    reason: str

    @classmethod
    def of(
        cls, code: Code, *, versions: tuple[int, ...], files: tuple[str, ...], reason: str
    ) -> Anomaly:
        """An instance of a registered anomaly, with the kind and severity of its entry."""
        return cls(
            code=code.code,
            kind=code.name,
            severity=str(code.severity),
            versions=versions,
            files=files,
            reason=reason,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "kind": self.kind,
            "severity": self.severity,
            "versions": list(self.versions),
            "files": list(self.files),
            "reason": self.reason,
        }


def find_anomalies(
    txns: CommittedTransactions, rep: Replay, listed_versions: Sequence[int] | None = None
) -> list[Anomaly]:
    """Every anomaly of the history. Each detector asks the history's columns
    (:attr:`CommittedTransactions.facts`) which commits to look at, and reads the transactions
    of those only."""
    out: list[Anomaly] = []
    out += duplicate_removes(rep, txns)
    out += lost_overwrites(txns, rep)
    out += impossible_read_versions(txns)
    out += metadata_changes_during_races(txns)
    out += unmarked_appends_vs_spark(txns)
    out += ignored_isolation_levels(txns, rep)
    out += duplicate_app_ids(txns)
    out += commit_gaps(
        listed_versions if listed_versions is not None else list(rep.frames.commit_versions)
    )
    out += forgeable_provenance(txns)
    return sorted(out, key=lambda a: (a.versions[:1] or (-1,), a.code))


def duplicate_removes(rep: Replay, txns: CommittedTransactions) -> list[Anomaly]:
    removes = (
        rep.frames.files.lazy()  # only the columns read below are gathered
        .filter((pl.col("action") == "remove") & (pl.col("source") == "commit"))
        .select("version", "path", "dv_id", "data_change")
        .collect()
    )
    if removes.is_empty():
        return []
    keyed = removes.group_by("path", "dv_id").agg(
        pl.col("version").unique().sort().alias("versions")
    )
    dup = keyed.filter(pl.col("versions").list.len() > 1)
    out: list[Anomaly] = []
    by_versions: dict[tuple[int, ...], list[str]] = {}
    for path, versions in dup.select("path", "versions").iter_rows():
        by_versions.setdefault(tuple(versions), []).append(path)
    for versions, paths in sorted(by_versions.items()):
        later = txns.at(versions[-1]) if txns.has(versions[-1]) else None
        again = removes.filter((pl.col("version") == versions[-1]) & pl.col("path").is_in(paths))
        out.append(
            Anomaly.of(
                DUPLICATE_REMOVE,
                versions=versions,
                files=tuple(sorted(paths)[:20]),
                reason=f"{plural(len(paths), 'file')} removed again in v{versions[-1]} after v{versions[0]} already "
                "removed them: both commits' replacement files are live, so their rows are duplicated; "
                + _why_removed_twice(
                    later, compaction=not again["data_change"].fill_null(True).any()
                ),
            )
        )
    return out


def _why_removed_twice(later: Transaction | None, *, compaction: bool) -> str:
    """What the later remover's own release does with a second remove of the same file: the
    profile of the version it recorded, so the sentence follows the writer's release."""
    if later is None:
        return "the commit that removed them again is not in the retained log"
    profile = later.provenance.profile
    if Check.CONCURRENT_DELETE_DELETE not in profile.rule_order:
        return f"{profile.name} runs no delete-delete check, so nothing stopped it"
    if compaction and profile.delete_delete_skips_compaction_removes:
        return (
            f"{profile.name} lets two compactions of the same file both commit (its "
            "delete-delete check skips dataChange=false removes)"
        )
    return (
        f"{profile.name} refuses a second remove of the same file "
        "(ConcurrentDeleteDeleteException), so this commit did not pass that check: it was "
        "forced or hand-written, or was written by another engine than the one it names"
    )


def lost_overwrites(txns: CommittedTransactions, rep: Replay) -> list[Anomaly]:
    out: list[Anomaly] = []
    writes = txns.facts.frame.filter(pl.col("operation") == "WRITE")
    overwrites = writes.with_columns(
        by_distinct(writes, ("operation_parameters",), _full_overwrite, pl.Boolean(), "overwrite")
    ).filter("overwrite")
    for t in (txns.at(v) for v in overwrites.get_column("version").to_list()):
        if t.version is None:
            continue
        survivors = rep.live_files(t.version).filter(pl.col("added_version") < t.version)
        if survivors.is_empty():
            continue
        out.append(
            Anomaly.of(
                LOST_OVERWRITE,
                versions=tuple(sorted({t.version, *survivors["added_version"].to_list()})),
                files=tuple(survivors["path"].head(20).to_list()),
                reason=f"full overwrite v{t.version} left {plural(survivors.height, 'older file')} alive: they were "
                "added after the snapshot it overwrote, so the overwrite did not replace them",
            )
        )
    return out


def _full_overwrite(params_text: str | None) -> bool:
    """Whether a WRITE's ``operationParameters`` say it overwrote the whole table: mode
    overwrite and no predicate (as its transaction's ``parameters`` have them)."""
    params = parameters_of(json_or_none(params_text))
    return str(params.get("mode", "")).lower() == "overwrite" and params.get("predicate") in (
        None,
        "",
        "[]",
    )


def impossible_read_versions(txns: CommittedTransactions) -> list[Anomaly]:
    rv, v = pl.col("read_version"), pl.col("version")
    found = txns.facts.frame.filter(rv.is_not_null() & (rv >= v))
    return [
        Anomaly.of(
            READ_VERSION_NOT_BEFORE_VERSION,
            versions=(version,),
            files=(),
            reason=f"v{version} records readVersion {read_version}: a transaction cannot read its own "
            "or a later version; the field was set by a caller or is corrupt",
        )
        for version, read_version in found.select("version", "read_version").iter_rows()
    ]


def metadata_changes_during_races(txns: CommittedTransactions) -> list[Anomaly]:
    out: list[Anomaly] = []
    facts = txns.facts.frame
    # metadata changes are few; scanning every commit per race was O(races x commits)
    changes = facts.filter("changes_metadata").select("version", "operation").rows()
    if not changes:
        return out
    for version, read_version in txns.facts.raced().select("version", "read_version").iter_rows():
        raced = range(read_version + 1, version)
        changed = [(w, op) for w, op in changes if w in raced]
        if changed:
            out.append(
                Anomaly.of(
                    METADATA_CHANGE_DURING_RACE,
                    versions=(version, *(w for w, _ in changed)),
                    files=(),
                    reason=f"v{version} was rebased over metadata change(s) "
                    f"{', '.join(f'v{w} ({op})' for w, op in changed)}; concurrent writers fail "
                    "with MetadataChangedException unless the change is allow-listed",
                )
            )
    return out


def unmarked_appends_vs_spark(txns: CommittedTransactions) -> list[Anomaly]:
    out: list[Anomaly] = []
    facts = txns.facts
    present = txns.versions  # the raced versions the log holds: never count up a gap
    spark = [i for i, p in enumerate(facts.profiles) if p.counts_unmarked_appends_as_changed_data]
    unmarked_by = [i for i, p in enumerate(facts.profiles) if not p.marks_blind_appends]
    if not spark or not unmarked_by:
        return out
    readers = facts.raced().filter(pl.col("profile").is_in(spark))
    # appends without isBlindAppend=true by a writer that does not mark them
    appends = set(
        facts.frame.filter(
            pl.col("profile").is_in(unmarked_by)
            & (pl.col("num_added_files") > 0)
            & (pl.col("num_removed_files") == 0)
            & pl.col("is_blind_append").ne_missing(True)
        )
        .get_column("version")
        .to_list()
    )
    for version, read_version in readers.select("version", "read_version").iter_rows():
        held = present[bisect_left(present, read_version + 1) : bisect_left(present, version)]
        candidates = [v for v in held if v in appends]
        if not candidates:
            continue
        t = txns.at(version)
        if t.read.reads.blind:
            continue
        raced = range(read_version + 1, version)
        unmarked = [txns.at(v) for v in candidates]
        if unmarked:
            out.append(
                _rebased_over(
                    UNMARKED_APPEND_VS_SPARK_READER,
                    raced.stop,
                    unmarked,
                    reason=f"{', '.join(f'v{w.version} ({w.provenance.profile.engine})' for w in unmarked)} appended "
                    f"without isBlindAppend=true while Spark v{t.version} ({t.provenance.operation}) was running: Spark "
                    "counts such adds as changed data, so they conflict even under WriteSerializable",
                )
            )
    return out


def _rebased_over(code: Code, version: int, over: Sequence[Transaction], *, reason: str) -> Anomaly:
    """An anomaly of the commit at ``version`` and the commits it was rebased over."""
    return Anomaly.of(
        code,
        versions=(version, *(w.version for w in over if w.version is not None)),
        files=(),
        reason=reason,
    )


def ignored_isolation_levels(txns: CommittedTransactions, rep: Replay) -> list[Anomaly]:
    out: list[Anomaly] = []
    if not any(
        rep.metadata_at(v).configuration.get("delta.isolationLevel") is not None
        for v in rep.metadata_versions()
    ):
        return out  # no metaData action of the history sets one
    seen: set[tuple[str, str]] = set()
    facts = txns.facts
    for version, index in facts.frame.select("version", "profile").iter_rows():
        profile = facts.profile_of(index)
        value = rep.metadata_at(version).configuration.get("delta.isolationLevel")
        if value is None or (profile.engine, value) in seen:
            continue
        if parse_isolation(value, profile) is None:
            seen.add((profile.engine, value))
            out.append(
                Anomaly.of(
                    ISOLATION_LEVEL_IGNORED,
                    versions=(version,),
                    files=(),
                    reason=f"delta.isolationLevel={value!r} is not a value {profile.engine} parses "
                    f"(first writer affected: v{version}); it runs with its default "
                    f"{profile.default_isolation.value} instead",
                )
            )
    return out


def duplicate_app_ids(txns: CommittedTransactions) -> list[Anomaly]:
    out: list[Anomaly] = []
    writers: dict[str, dict[str, list[int]]] = {}
    with_app_ids = txns.facts.frame.filter("has_app_ids").get_column("version").to_list()
    for t in (txns.at(v) for v in with_app_ids):
        if t.version is None or not t.written.app_ids:
            continue
        who = t.provenance.writer
        for app in t.written.app_ids:
            writers.setdefault(app, {}).setdefault(who, []).append(t.version)
    for app, by_writer in sorted(writers.items()):
        if len(by_writer) > 1:
            versions = tuple(sorted(v for vs in by_writer.values() for v in vs))
            out.append(
                Anomaly.of(
                    DUPLICATE_APP_ID,
                    versions=versions,
                    files=(),
                    reason=f"app id {app!r} was committed by {len(by_writer)} different writers "
                    f"({', '.join(sorted(by_writer))}): two instances of one streaming query or a shared txnAppId",
                )
            )
    return out


def commit_gaps(versions: Sequence[int]) -> list[Anomaly]:
    """One anomaly for the commits missing inside the retained log, as ranges: ``versions``
    holds each range's first and last version (a 10,000-commit gap is two numbers)."""
    if not versions:
        return []
    missing = missing_ranges(versions, min(versions), max(versions))
    if not missing:
        return []
    ends = tuple(sorted({v for lo, hi in missing for v in (lo, hi)}))
    reason = f"{count(missing)} commit file(s) missing inside the retained log"
    if count(missing) > len(ends):  # the versions are range ends: say which ranges
        reason += f": {describe(missing)}"
    return [Anomaly.of(COMMIT_GAP, versions=ends, files=(), reason=reason)]


_PROVENANCE_KEYS = frozenset(
    ("isolationLevel", "isBlindAppend", "userName", "userId", "job", "notebook")
)


def forgeable_provenance(txns: CommittedTransactions) -> list[Anomaly]:
    facts = txns.facts
    from_user = [i for i, p in enumerate(facts.profiles) if p.commit_info_from_user]
    if not from_user:
        return []
    # a commitInfo naming none of the keys cannot hold one: only the others are decoded, as
    # their transactions' ``commit_info`` is (a key's letters can be escaped only as \uXXXX)
    text = pl.col("commit_info").fill_null("")
    maybe = facts.frame.filter(
        pl.col("profile").is_in(from_user)
        & (text.str.contains_any(sorted(_PROVENANCE_KEYS)) | text.str.contains("\\u", literal=True))
    )
    flagged = [
        v
        for v, info in maybe.select("version", "commit_info").iter_rows()
        if not _PROVENANCE_KEYS.isdisjoint(json_or_none(info) or {})
    ]
    if not flagged:
        return []
    return [
        Anomaly.of(
            FORGEABLE_PROVENANCE,
            versions=tuple(flagged)[:50],
            files=(),
            reason="delta-rs writes caller-supplied custom metadata at the top level of commitInfo, so "
            f"{', '.join(FORGEABLE)} in these commits are whatever the caller said: low confidence",
        )
    ]
