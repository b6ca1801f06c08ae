"""The ``explain`` report: a JSON document (the contract) built from a ConflictAnalysis."""

from __future__ import annotations

from collections import Counter
from typing import Any

from deltaforensics import __version__
from deltaforensics.analysis import ConflictAnalysis
from deltaforensics.whatif.transform import touched_partitions

FORMAT_VERSION = 1


def _isolation(analysis: ConflictAnalysis) -> dict[str, Any]:
    rep = analysis.loaded.replay
    config = rep.metadata_at(rep.end_version).configuration
    prop = config.get("delta.isolationLevel")
    if prop:
        return {"value": prop, "source": "table property delta.isolationLevel"}
    recorded = Counter(
        t.isolation.value
        for t in analysis.transactions
        if t.isolation_source == "commitInfo.isolationLevel"
    )
    if recorded:
        value, _ = recorded.most_common(1)[0]
        return {"value": value, "source": "most frequent commitInfo.isolationLevel"}
    engines = {t.profile.engine for t in analysis.transactions}
    default = "WriteSerializable" if engines == {"databricks"} else "Serializable"
    return {"value": default, "source": "engine default (no property, nothing recorded)"}


def table_section(analysis: ConflictAnalysis) -> dict[str, Any]:
    rep = analysis.loaded.replay
    snap = rep.snapshot_at(rep.end_version)
    engines = sorted({t.profile.engine for t in analysis.transactions})
    return {
        "uri": rep.uri,
        "first_version": rep.first_version,
        "latest_version": rep.end_version,
        "partition_columns": list(snap.metadata.partition_columns),
        "clustering_columns": list(snap.clustering_columns),
        "isolation_level": _isolation(analysis),
        "features": list(snap.protocol.features),
        "engines_seen": engines,
        "num_commits": len(analysis.transactions),
        "num_files": snap.num_files,
    }


def race_entry(race: Any) -> dict[str, Any]:
    v = race.verdict
    t = v.loser
    return {
        "version": race.version,
        "read_version": t.read_version,
        "winners": list(v.winners),
        "profile": v.profile.name,
        "outcome": v.outcome,
        "code": v.code,
        "reason": v.reason if v.raised else _quiet_reason(race),
        "operation": t.operation,
        "isolation_level": {"value": t.isolation.value, "source": t.isolation_source},
        "read_predicate": t.read_predicate.to_sql() if t.read_predicate is not None else None,
        "read_reason": t.read_reason,
        "confidence": t.confidence,
        "missing_winners": list(race.missing_winners),
        "fragile_under": [
            {"change": f.change, "outcome": f.outcome, "winner_version": f.winner_version}
            for f in race.fragile_under
        ],
    }


def _quiet_reason(race: Any) -> str:
    t = race.verdict.loser
    if t.blind:
        return f"{t.read_reason}, so no winner's files can conflict with it"
    return f"no rule fires against v{', v'.join(map(str, race.verdict.winners)) or '-'}: {t.read_reason}"


MAX_LISTED_PARTITIONS = 10


def involved_versions(
    races: list[dict[str, Any]], conflicts: list[dict[str, Any]], attempts: list[dict[str, Any]]
) -> set[int]:
    """Every commit a finding names: racing commits, their winners, conflict winners."""
    found: set[int] = set()
    for r in races:
        found.add(r["version"])
        found.update(r["winners"])
    for c in conflicts:
        found.update(
            v for v in [c.get("winner_version"), *c.get("candidates", [])] if v is not None
        )
        loser = c.get("loser") or {}
        if isinstance(loser.get("version"), int):
            found.add(loser["version"])
    for a in attempts:
        found.update(v for v in a.get("winners", []) if isinstance(v, int))
    return found


def commit_entry(t: Any) -> dict[str, Any]:
    """The details of one commit that a reader needs to recognise it."""
    touched = touched_partitions(t)
    ci = t.commit_info
    return {
        "version": t.version,
        "timestamp": t.timestamp,
        "operation": t.operation,
        "writer": t.writer,
        "user_name": ci.get("userName") if isinstance(ci.get("userName"), str) else None,
        "engine": t.profile.engine,
        "read_version": t.read_version,
        "isolation_level": t.isolation.value,
        "predicate": t.read_predicate.to_sql() if t.read_predicate is not None else None,
        "num_added_files": t.added.height,
        "num_removed_files": t.removed.height,
        "partitions": touched[:MAX_LISTED_PARTITIONS],
        "more_partitions": max(0, len(touched) - MAX_LISTED_PARTITIONS),
    }


def explain_document(analysis: ConflictAnalysis) -> dict[str, Any]:
    races = [race_entry(r) for r in analysis.races]
    conflicts = list(analysis.conflicts)
    attempts = list(analysis.attempts)
    wanted = involved_versions(races, conflicts, attempts)
    commits = [commit_entry(t) for t in analysis.transactions if t.version in wanted]
    return {
        "format_version": FORMAT_VERSION,
        "generator": {"name": "deltaforensics", "version": __version__},
        "table": table_section(analysis),
        "races": races,
        "conflicts": conflicts,
        "attempts": attempts,
        "anomalies": [a.to_dict() for a in analysis.anomalies],
        "recommendations": list(analysis.recommendations),
        "diagnostics": [d.to_dict() for d in analysis.diagnostics],
        "commits": commits,
    }
