"""Properties of the conflict model on generated races, each a real ``_delta_log``.

A race is: v0 create, v1 with files in partitions A, B, C (or unpartitioned files), one or two
winners drawn from :data:`WINNERS` and a loser from :data:`LOSERS` read at v1. The properties:

- Serializable finds everything WriteSerializable finds (per winner, only the isolation override
  differs) — except that Delta-Spark does not record, and so never checks, an empty transaction
  under Serializable (scenario 39), where WriteSerializable can still fail.
- A winner holding only ``commitInfo`` conflicts with nothing — except a RESTORE/CLONE loser,
  which fails on any newer version whatever it holds (``commitLarge``).
- A loser whose predicate gains a partition conjunct never conflicts where the wider one
  committed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from deltaforensics.conflicts.checker import COMMITS, check
from deltaforensics.conflicts.rule import Finding
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, databricks, delta_rs, delta_spark
from deltaforensics.transactions import CHANGES_DATA, Transaction
from tests.conflicts.scenarios import COLUMNS, RS, U_COLUMNS, A, B, C, Variant, load_race, rewrite
from tests.support import LogBuilder

PARTS = (A, B, C)
PROFILES = {
    "oss41": Variant("oss41", delta_spark((4, 1)), "spark-4.1.0"),
    "oss31": Variant("oss31", delta_spark((3, 1)), "spark-3.1.0"),
    "dbr": Variant("dbr", databricks((14, 3)), "databricks-14.3"),
    "rs": Variant("rs", delta_rs((1, 6)), "spark-4.1.0", loser_writer=RS),
}
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Op = Callable[[LogBuilder, int, str, dict[str, Any]], Any]  # (builder, r, partition, options)


def _where(b: LogBuilder, p: str, data: str = "") -> str:
    """``date = 'p' [AND data]`` on a partitioned table, else just ``data`` (or ``id = 5``)."""
    parts = [f"date = '{p}'"] if b.partition_by else []
    if data or not parts:
        parts.append(data or "id = 5")
    return " AND ".join(parts)


def _file(b: LogBuilder, p: str) -> dict[str, Any]:
    return b.file(f"date={p}" if b.partition_by else None, rows=10)


def _victim(b: LogBuilder, r: int, p: str) -> dict[str, Any]:
    files = b.live_files(f"date={p}" if b.partition_by else None, version=r)
    return files[0]


def _rewrite(b: LogBuilder, r: int, p: str, op: str, where: str, o: dict[str, Any]) -> int:
    f = _victim(b, r, p)
    fn = b.update if op == "update" else b.delete
    return fn(where, remove=[f], add=[rewrite(b, f)], **o)


# fmt: off
WINNERS: dict[str, Op] = {
    "append": lambda b, r, p, o: b.write(add=[_file(b, p)], **o),
    "append-not-blind": lambda b, r, p, o: b.write(add=[_file(b, p)], blind=False, **o),
    "append-delta-rs": lambda b, r, p, o: b.write(add=[_file(b, p)], writer=RS, **o),
    "update": lambda b, r, p, o: _rewrite(b, r, p, "update", _where(b, p, "id = 1"), o),
    "delete-rows": lambda b, r, p, o: _rewrite(b, r, p, "delete", _where(b, p, "id = 2"), o),
    "delete-files": lambda b, r, p, o: b.delete(_where(b, p, "id = 3"), remove=[_victim(b, r, p)], **o),
    "merge": lambda b, r, p, o: b.merge("t.id = s.id", remove=[_victim(b, r, p)], add=[_file(b, p)], **o),
    "optimize": lambda b, r, p, o: b.optimize(remove=b.live_files(version=r)[:2], **o),
    "add-columns": lambda b, r, p, o: b.add_columns({"note": "string"}, **o),
    "set-properties": lambda b, r, p, o: b.set_properties({"delta.appendOnly": "false"}, **o),
    "enable-dvs": lambda b, r, p, o: b.set_properties({"delta.enableDeletionVectors": "true"}, **o),
    "streaming": lambda b, r, p, o: b.streaming_update("q", 1, add=[_file(b, p)], **o),
    "txn-write": lambda b, r, p, o: b.write(add=[_file(b, p)], actions=[b.txn("app", 1)], **o),
    "domain": lambda b, r, p, o: b.commit("CLUSTER BY", actions=[b.domain("delta.clustering", {"c": [["id"]]})], **o),
}

LOSERS: dict[str, Op] = {
    "append": lambda b, r, p, o: b.write(add=[_file(b, p)], **o),
    "update": lambda b, r, p, o: _rewrite(b, r, p, "update", _where(b, p, "id = 7"), o),
    "update-data-only": lambda b, r, p, o: _rewrite(b, r, p, "update", "id = 8", o),
    "delete-partition": lambda b, r, p, o: b.delete(_where(b, p, "id > 0"), remove=[_victim(b, r, p)], **o),
    "delete-empty": lambda b, r, p, o: b.delete(_where(b, p, "id = -1"), remove=[], **o),
    "merge-no-literal": lambda b, r, p, o: b.merge("t.id = s.id AND t.amount = s.amount", remove=[_victim(b, r, p)],
                                                   add=[_file(b, p)], **o),
    "merge-literal": lambda b, r, p, o: b.merge(
        f"t.id = s.id AND t.date = '{p}'" if b.partition_by else "t.id = s.id", remove=[_victim(b, r, p)],
        add=[_file(b, p)], **o),
    "optimize": lambda b, r, p, o: b.optimize(remove=[_victim(b, r, p)], **o),
    "dpo": lambda b, r, p, o: b.write(mode="Overwrite", dynamic_partition_overwrite=True, add=[_file(b, p)], **o),
    "overwrite": lambda b, r, p, o: b.write(mode="Overwrite", add=[_file(b, p)], **o),
    "add-columns": lambda b, r, p, o: b.add_columns({"extra": "string"}, **o),
    "add-constraint": lambda b, r, p, o: b.add_constraint("c", "amount > 0", **o),
    "streaming": lambda b, r, p, o: b.streaming_update("q", 1, add=[_file(b, p)], **o),
    "txn-write": lambda b, r, p, o: b.write(add=[_file(b, p)], actions=[b.txn("app", 1)], **o),
    "restore": lambda b, r, p, o: b.commit("RESTORE", parameters={"version": 0, "timestamp": None},
                                           remove=b.live_files(version=r), isolation="Serializable", blind=False, **o),
}
# fmt: on


def _new_table(
    path: Path, variant: Variant, partitioned: bool, isolation: str | None
) -> tuple[LogBuilder, int]:
    conf = {"delta.isolationLevel": isolation} if isolation else {}
    b = LogBuilder(path, columns=COLUMNS if partitioned else U_COLUMNS, partition_by=["date"] if partitioned else [],
                   writer=variant.writer, configuration=conf)  # fmt: skip
    b.create()
    adds = (
        [b.file(f"date={p}", rows=10) for p in PARTS for _ in range(2)]
        if partitioned
        else [b.file(rows=10) for _ in range(3)]
    )
    return b, b.write(add=adds)


def _loser_opts(variant: Variant, r: int) -> dict[str, Any]:
    return {"read_version": r, **({"writer": variant.loser_writer} if variant.loser_writer else {})}


def _key(f: Finding) -> tuple[Any, ...]:
    return f.code, f.exception, f.files, tuple(tuple(sorted(p.items())) for p in f.partitions)


races = st.fixed_dictionaries({
    "profile": st.sampled_from(sorted(PROFILES)),
    "partitioned": st.booleans(),
    "isolation": st.sampled_from([None, "Serializable", "WriteSerializable"]),
    "winners": st.lists(st.tuples(st.sampled_from(sorted(WINNERS)), st.sampled_from(PARTS)), min_size=1, max_size=2),
    "loser": st.tuples(st.sampled_from(sorted(LOSERS)), st.sampled_from(PARTS)),
})  # fmt: skip


def _build(tmp: Path, spec: dict[str, Any], loser: Op | None = None) -> Any:
    variant = PROFILES[spec["profile"]]
    b, r = _new_table(tmp, variant, spec["partitioned"], spec["isolation"])
    for name, part in spec["winners"]:
        WINNERS[name](b, r, part, {})
    name, part = spec["loser"]
    (loser or LOSERS[name])(b, r, part, _loser_opts(variant, r))
    return load_race(tmp, variant, r)


def _is_empty(t: Transaction) -> bool:
    w = t.written
    return (
        w.added.is_empty()
        and w.removed.is_empty()
        and not (w.changes_metadata or w.changes_protocol or w.app_ids or w.domains)
    )


@SETTINGS
@given(spec=races)
def test_serializable_finds_everything_write_serializable_finds(spec: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        race = _build(Path(tmp), spec)
    prof = race.variant.profile
    for winner in race.winners:
        by_level = {
            level: check(
                race.loser,
                [winner],
                profile=prof,
                history=race.replay,
                overrides={"isolation": level},
            )
            for level in (IsolationLevel.SERIALIZABLE, IsolationLevel.WRITE_SERIALIZABLE)
        }
        s, ws = by_level[IsolationLevel.SERIALIZABLE], by_level[IsolationLevel.WRITE_SERIALIZABLE]
        if (
            prof.engine != "delta-rs"
            and _is_empty(race.loser)
            and race.loser.provenance.operation in CHANGES_DATA
        ):
            assert s.outcome == COMMITS and s.notes, (
                "an empty Serializable transaction is not recorded"
            )
            continue
        event(f"S {s.code or 'commits'} / WS {ws.code or 'commits'}")
        missing = {_key(f) for f in ws.findings} - {_key(f) for f in s.findings}
        assert not missing, f"{spec}: WriteSerializable-only findings {missing}"
        if ws.outcome != COMMITS:
            assert s.outcome != COMMITS


commit_info_only = st.fixed_dictionaries({
    "operation": st.sampled_from(["WRITE", "DELETE", "UPDATE", "MERGE", "OPTIMIZE", "VACUUM START", "SET TBLPROPERTIES",
                                  "STREAMING UPDATE", "CREATE TABLE", "RESTORE", "Empty Commit"]),
    "blind": st.one_of(st.none(), st.booleans()),
    "isolation": st.sampled_from([None, "Serializable", "WriteSerializable", "SnapshotIsolation"]),
    "writer": st.sampled_from(["spark-4.1.0", "databricks-14.3", RS, "kernel-java"]),
    "predicate": st.sampled_from([None, "[]", '["(id#1L = 5)"]', "date = '2024-01-01'"]),
})  # fmt: skip


@SETTINGS
@given(spec=races, winner=commit_info_only)
def test_a_winner_holding_only_commit_info_never_conflicts(
    spec: dict[str, Any], winner: dict[str, Any]
) -> None:
    spec = {**spec, "winners": []}
    with tempfile.TemporaryDirectory() as tmp:
        variant = PROFILES[spec["profile"]]
        b, r = _new_table(Path(tmp), variant, spec["partitioned"], spec["isolation"])
        params = {} if winner["predicate"] is None else {"predicate": winner["predicate"]}
        b.commit(winner["operation"], parameters=params, blind=winner["blind"], isolation=winner["isolation"],
                 writer=winner["writer"])  # fmt: skip
        name, part = spec["loser"]
        LOSERS[name](b, r, part, _loser_opts(variant, r))
        race = load_race(Path(tmp), variant, r)
    verdict = race.check()
    event(f"loser {race.loser.provenance.operation}")
    if race.loser.provenance.is_commit_large and race.variant.engine != "delta-rs":
        assert verdict.code == "DC005", "commitLarge fails on any newer version"
        assert [f.code for f in verdict.findings] == ["DC005"]
        return
    assert verdict.outcome == COMMITS, verdict.reason
    assert verdict.findings == ()


narrowing = st.fixed_dictionaries({
    "profile": st.sampled_from(["oss41", "dbr", "rs"]),
    "isolation": st.sampled_from([None, "Serializable", "WriteSerializable"]),
    "winners": st.lists(st.tuples(st.sampled_from(sorted(WINNERS)), st.sampled_from(PARTS)), min_size=1, max_size=2),
    "wide": st.sampled_from(["id = 5", f"date = '{A}'", f"date IN ('{A}', '{B}')", f"date = '{A}' OR amount > 100",
                             f"date >= '{B}'", f"(date = '{A}' AND id > 1) OR (date = '{C}' AND id < 2)"]),
    "narrow_to": st.sampled_from(PARTS),
    "op": st.sampled_from(["delete", "update", "merge", "replace-where"]),
    "target": st.sampled_from(PARTS),
})  # fmt: skip


def _narrowable_loser(op: str, where: str, target: str) -> Op:
    """L with condition ``where``; the same rewrite in both logs, so only the condition differs."""

    def loser(b: LogBuilder, r: int, _p: str, o: dict[str, Any]) -> int:
        f = _victim(b, r, target)
        if op == "merge":
            return b.merge(f"t.id = s.id AND {where}", remove=[f], add=[rewrite(b, f)], **o)
        if op == "replace-where":
            return b.write(mode="Overwrite", predicate=where, remove=[f], add=[rewrite(b, f)], **o)
        fn = b.update if op == "update" else b.delete
        return fn(where, remove=[f], add=[rewrite(b, f)], **o)

    return loser


@SETTINGS
@given(spec=narrowing)
def test_a_partition_conjunct_never_adds_a_conflict(spec: dict[str, Any]) -> None:
    column = (
        "t.date" if spec["op"] == "merge" else "date"
    )  # delta-rs derives MERGE filters from t.<col>
    narrow = f"({spec['wide']}) AND {column} = '{spec['narrow_to']}'"
    outcomes = {}
    for label, where in (("wide", spec["wide"]), ("narrow", narrow)):
        loser = _narrowable_loser(spec["op"], where, spec["target"])
        with tempfile.TemporaryDirectory() as tmp:
            race = _build(Path(tmp), {**spec, "partitioned": True, "loser": ("-", A)}, loser)
        outcomes[label] = race.check()
    wide, narrow = outcomes["wide"], outcomes["narrow"]
    event(f"wide {wide.code or 'commits'} / narrow {narrow.code or 'commits'}")
    if wide.outcome == COMMITS:
        assert narrow.outcome == COMMITS, f"{spec}: narrowing added {narrow.code}: {narrow.reason}"


def test_profiles_cover_each_engine() -> None:
    engines: set[str] = {v.profile.engine for v in PROFILES.values()}
    assert engines == {"delta-spark", "databricks", "delta-rs"}
    assert all(isinstance(v.profile, Profile) for v in PROFILES.values())
