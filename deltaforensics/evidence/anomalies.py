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
from deltaforensics.transactions import Transaction

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
    txns: Sequence[Transaction], rep: Replay, listed_versions: Sequence[int] | None = None
) -> list[Anomaly]:
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


def duplicate_removes(rep: Replay, txns: Sequence[Transaction] = ()) -> list[Anomaly]:
    removes = rep.frames.files.filter(
        (pl.col("action") == "remove") & (pl.col("source") == "commit")
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
    by_version = {t.version: t for t in txns if t.version is not None}
    for versions, paths in sorted(by_versions.items()):
        later = by_version.get(versions[-1])
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
    profile = later.profile
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


def lost_overwrites(txns: Sequence[Transaction], rep: Replay) -> list[Anomaly]:
    out: list[Anomaly] = []
    for t in txns:
        if (
            t.version is None
            or t.operation != "WRITE"
            or str(t.parameters.get("mode", "")).lower() != "overwrite"
        ):
            continue
        if t.parameters.get("predicate") not in (None, "", "[]"):
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


def impossible_read_versions(txns: Sequence[Transaction]) -> list[Anomaly]:
    return [
        Anomaly.of(
            READ_VERSION_NOT_BEFORE_VERSION,
            versions=(t.version,),
            files=(),
            reason=f"v{t.version} records readVersion {t.read_version}: a transaction cannot read its own "
            "or a later version; the field was set by a caller or is corrupt",
        )
        for t in txns
        if t.version is not None and t.read_version is not None and t.read_version >= t.version
    ]


def metadata_changes_during_races(txns: Sequence[Transaction]) -> list[Anomaly]:
    out: list[Anomaly] = []
    # metadata changes are few; scanning every commit per race was O(races x commits)
    changes = [w for w in txns if w.version is not None and w.changes_metadata]
    for t in txns:
        raced = _versions_raced(t)
        if raced is None:
            continue
        changed = [w for w in changes if w.version is not None and w.version in raced]
        if changed:
            out.append(
                _rebased_over(
                    METADATA_CHANGE_DURING_RACE,
                    raced.stop,
                    changed,
                    reason=f"v{t.version} was rebased over metadata change(s) "
                    f"{', '.join(f'v{w.version} ({w.operation})' for w in changed)}; concurrent writers fail "
                    "with MetadataChangedException unless the change is allow-listed",
                )
            )
    return out


def unmarked_appends_vs_spark(txns: Sequence[Transaction]) -> list[Anomaly]:
    out: list[Anomaly] = []
    by_version = {t.version: t for t in txns if t.version is not None}
    present = sorted(by_version)  # the raced versions the log holds: never count up a gap
    for t in txns:
        if not t.profile.counts_unmarked_appends_as_changed_data or t.blind:
            continue
        raced = _versions_raced(t)
        if raced is None:
            continue
        held = present[bisect_left(present, raced.start) : bisect_left(present, raced.stop)]
        unmarked = [
            w
            for w in (by_version[v] for v in held)
            if not w.profile.marks_blind_appends
            and w.added.height
            and not w.removed.height
            and w.is_blind_append is not True
        ]
        if unmarked:
            out.append(
                _rebased_over(
                    UNMARKED_APPEND_VS_SPARK_READER,
                    raced.stop,
                    unmarked,
                    reason=f"{', '.join(f'v{w.version} ({w.profile.engine})' for w in unmarked)} appended "
                    f"without isBlindAppend=true while Spark v{t.version} ({t.operation}) was running: Spark "
                    "counts such adds as changed data, so they conflict even under WriteSerializable",
                )
            )
    return out


def _versions_raced(t: Transaction) -> range | None:
    """The versions committed between ``t``'s read and its own commit; ``None`` when there are
    none (or either is unknown). ``stop`` is ``t``'s version."""
    if t.version is None or t.read_version is None or t.read_version >= t.version - 1:
        return None
    return range(t.read_version + 1, t.version)


def _rebased_over(code: Code, version: int, over: Sequence[Transaction], *, reason: str) -> Anomaly:
    """An anomaly of the commit at ``version`` and the commits it was rebased over."""
    return Anomaly.of(
        code,
        versions=(version, *(w.version for w in over if w.version is not None)),
        files=(),
        reason=reason,
    )


def ignored_isolation_levels(txns: Sequence[Transaction], rep: Replay) -> list[Anomaly]:
    out: list[Anomaly] = []
    if not any(
        rep.metadata_at(v).configuration.get("delta.isolationLevel") is not None
        for v in rep.metadata_versions()
    ):
        return out  # no metaData action of the history sets one
    seen: set[tuple[str, str]] = set()
    for t in txns:
        if t.version is None:
            continue
        value = rep.metadata_at(t.version).configuration.get("delta.isolationLevel")
        if value is None or (t.profile.engine, value) in seen:
            continue
        if parse_isolation(value, t.profile) is None:
            seen.add((t.profile.engine, value))
            out.append(
                Anomaly.of(
                    ISOLATION_LEVEL_IGNORED,
                    versions=(t.version,),
                    files=(),
                    reason=f"delta.isolationLevel={value!r} is not a value {t.profile.engine} parses "
                    f"(first writer affected: v{t.version}); it runs with its default "
                    f"{t.profile.default_isolation.value} instead",
                )
            )
    return out


def duplicate_app_ids(txns: Sequence[Transaction]) -> list[Anomaly]:
    out: list[Anomaly] = []
    writers: dict[str, dict[str, list[int]]] = {}
    for t in txns:
        if t.version is None or not t.app_ids:
            continue
        who = t.writer
        for app in t.app_ids:
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


def forgeable_provenance(txns: Sequence[Transaction]) -> list[Anomaly]:
    flagged = [
        t
        for t in txns
        if t.version is not None
        and t.profile.commit_info_from_user
        and not _PROVENANCE_KEYS.isdisjoint(t.commit_info)
    ]
    if not flagged:
        return []
    return [
        Anomaly.of(
            FORGEABLE_PROVENANCE,
            versions=tuple(t.version for t in flagged if t.version is not None)[:50],
            files=(),
            reason="delta-rs writes caller-supplied custom metadata at the top level of commitInfo, so "
            f"{', '.join(FORGEABLE)} in these commits are whatever the caller said: low confidence",
        )
    ]
