"""Section E of the semantics doc as real ``_delta_log`` folders, one builder per scenario.

Every builder gets a :class:`Table` factory (``t(partitioned=False, configuration=...)`` returns
a fresh :class:`~tests.support.LogBuilder` carrying the case's isolation level) and a
:class:`Variant` saying which engine the loser ran on, and writes: v0 create, some setup commits,
then the winner(s) from read version ``r`` and the loser L with ``read_version=r`` as the next
version. A loser that would really fail is written anyway, so the checker can be run on it.

    b = t()
    r = seed(b, {A: 2, B: 1})
    b.write(add=[b.file(f"date={A}")])                          # W at r+1, a blind append
    b.update(f"date = '{A}' AND id = 5", read_version=r, ...)   # L at r+2, read at r
    return r

:func:`build` loads the folder, reconstructs the transactions with the variant's profile and
checks L against every commit after ``r``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from deltaforensics.analysis import load, open_store
from deltaforensics.conflicts.checker import Verdict, check
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, databricks, delta_rs, delta_spark
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction, reconstruct_transactions
from tests.support import LogBuilder

A, B, C, D, E = "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"
COLUMNS = {"id": "long", "date": "string", "amount": "double"}
U_COLUMNS = {"id": "long", "amount": "double"}
RS = "delta-rs-1.6.6"
DV_PROTOCOL = {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["deletionVectors"],
               "writerFeatures": ["appendOnly", "invariants", "deletionVectors"]}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Variant:
    """One engine the scenario is checked for: its profile and how its commits look."""

    key: str  # id suffix: oss41, oss32, oss31, dbr, rs ...
    profile: Profile
    writer: str  # the table's default LogBuilder writer
    loser_writer: str | None = None  # e.g. delta-rs loser on a Spark-written table
    overrides: Mapping[str, Any] = field(default_factory=dict)

    @property
    def engine(self) -> str:
        return self.profile.engine


OSS41 = Variant("oss41", delta_spark((4, 1)), "spark-4.1.0")
OSS32 = Variant("oss32", delta_spark((3, 2)), "spark-3.2.0")
OSS31 = Variant("oss31", delta_spark((3, 1)), "spark-3.1.0")
DBR = Variant("dbr", databricks((14, 3)), "databricks-14.3")
DBR_NO_RLC = Variant("dbr-no-rlc", databricks((14, 3)), "databricks-14.3",
                     overrides={"row_level_concurrency": False})  # fmt: skip
DELTA_RS = Variant("rs", delta_rs((1, 6, 6)), "spark-4.1.0", loser_writer=RS)  # newest measured
DELTA_RS_12 = Variant("rs12", delta_rs((1, 2)), "spark-4.1.0", loser_writer="delta-rs-1.2.0")

# table-level isolation: S, WS, or the engine's default (OSS: Serializable, DBR: WriteSerializable)
S, WS, DEFAULT = "S", "WS", "default"


def table(
    path: Path,
    variant: Variant,
    *,
    isolation: str = DEFAULT,
    partitioned: bool = True,
    columns: Mapping[str, str] | None = None,
    configuration: Mapping[str, str] | None = None,
    protocol: Mapping[str, Any] | None = None,
) -> LogBuilder:
    conf = dict(configuration or {})
    if isolation != DEFAULT:
        conf["delta.isolationLevel"] = (
            IsolationLevel.SERIALIZABLE if isolation == S else IsolationLevel.WRITE_SERIALIZABLE
        ).value
    return LogBuilder(
        path,
        columns=columns or (COLUMNS if partitioned else U_COLUMNS),
        partition_by=["date"] if partitioned else [],
        writer=variant.writer,
        configuration=conf,
        protocol=protocol,
    )


def seed(b: LogBuilder, files: Mapping[str, int] | int, **create: Any) -> int:
    """v0 create + v1 appending ``{date: n_files}`` (or n unpartitioned files); returns v1."""
    b.create(**create)
    if isinstance(files, int):
        adds = [b.file(rows=100) for _ in range(files)]
    else:
        adds = [b.file(f"date={d}", rows=100) for d, n in files.items() for _ in range(n)]
    return b.write(add=adds)


def live(b: LogBuilder, date: str | None = None) -> list[dict[str, Any]]:
    return b.live_files(None if date is None else f"date={date}")


def rewrite(b: LogBuilder, f: dict[str, Any]) -> dict[str, Any]:
    """A fresh file in the same partition as ``f`` (a copy-on-write rewrite of it)."""
    pv = {c: f["partitionValues"].get(b.physical_name(c)) for c in b.partition_by}
    return b.file(pv or None, rows=100)


def loser_opts(variant: Variant, r: int, **more: Any) -> dict[str, Any]:
    """Keyword options for L: read at ``r``, on the variant's loser writer."""
    opts: dict[str, Any] = {"read_version": r, **more}
    if variant.loser_writer:
        opts.setdefault("writer", variant.loser_writer)
    return opts


def add_field(
    b: LogBuilder, name: str, type_name: str, metadata: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """b.metadata with one more column (a schema-evolving MERGE, identity high-water marks)."""
    schema = json.loads(b.metadata["schemaString"])
    fields = [f for f in schema["fields"] if f["name"] != name]
    fields.append(
        {"name": name, "type": type_name, "nullable": True, "metadata": dict(metadata or {})}
    )
    return {**b.metadata, "schemaString": json.dumps({"type": "struct", "fields": fields})}


class Table(Protocol):
    """Makes the scenario's table, with the case's isolation already applied."""

    def __call__(self, **kw: Any) -> LogBuilder: ...


Builder = Callable[[Table, Variant], int]


@dataclass(frozen=True, slots=True)
class Race:
    replay: Replay
    txns: list[Transaction]
    loser: Transaction
    winners: list[Transaction]
    variant: Variant

    def check(self, **overrides: Any) -> Verdict:
        merged = {**self.variant.overrides, **overrides}
        return check(self.loser, self.winners, profile=self.variant.profile,
                     history=self.replay, overrides=merged or None)  # fmt: skip


def load_race(path: Path, variant: Variant, read_version: int) -> Race:
    """Load ``path``; L is the last commit, its winners every commit after ``read_version``."""
    rep = load(open_store(str(path)), mode="history").replay
    txns = reconstruct_transactions(rep, profile=variant.profile)
    loser = txns[-1]
    if loser.read.version is None:  # delta-rs records no readVersion for appends
        loser = loser.reading_version(read_version, "scenario")
    assert loser.read.version == read_version, (loser.read.version, read_version)
    assert loser.version is not None
    winners = [
        t for t in txns if t.version is not None and read_version < t.version < loser.version
    ]
    return Race(rep, txns, loser, winners, variant)


def build(path: Path, variant: Variant, builder: Builder, isolation: str = DEFAULT) -> Race:
    """Run a scenario builder in ``path`` and load the race it wrote."""

    def make(**kw: Any) -> LogBuilder:
        return table(path, variant, isolation=isolation, **kw)

    return load_race(path, variant, builder(make, variant))


# ---------------------------------------------------------------------------------------------
# Section E, one builder per row. Each returns r; the last commit is L (read at r).


def e01(t: Table, v: Variant) -> int:
    """P: blind INSERT A vs blind INSERT A."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.write(add=[b.file(f"date={A}")])
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def _u_insert_vs_update(t: Table, v: Variant, winner_writer: str | None = None) -> int:
    b = t(partitioned=False)
    r = seed(b, 2)
    b.write(add=[b.file(rows=10)], **({"writer": winner_writer} if winner_writer else {}))
    f = live(b)[0]
    b.update("id = 5", remove=[f], add=[rewrite(b, f)], **loser_opts(v, r))
    return r


def e02(t: Table, v: Variant) -> int:
    """U, S: blind INSERT vs UPDATE id=5 (also 3 under WS)."""
    return _u_insert_vs_update(t, v)


e03 = e02


def _p_insert_vs_update(t: Table, v: Variant, insert_into: str, where: str) -> int:
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.write(add=[b.file(f"date={insert_into}")])
    f = live(b, A)[0]
    b.update(where, remove=[f], add=[rewrite(b, f)], **loser_opts(v, r))
    return r


def e04(t: Table, v: Variant) -> int:
    """P, S: INSERT B vs UPDATE WHERE date=A."""
    return _p_insert_vs_update(t, v, B, f"date = '{A}'")


def e05(t: Table, v: Variant) -> int:
    """P: INSERT A vs UPDATE WHERE date=A AND id=5 (6 under WS)."""
    return _p_insert_vs_update(t, v, A, f"date = '{A}' AND id = 5")


e06 = e05


def e07(t: Table, v: Variant) -> int:
    """P: UPDATE in B vs metadata-only DELETE of partition A."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    f = live(b, B)[0]
    b.update(f"date = '{B}' AND id = 1", remove=[f], add=[rewrite(b, f)])
    b.delete(f"date = '{A}'", **loser_opts(v, r))
    return r


def e08(t: Table, v: Variant) -> int:
    """P: non-blind MERGE into A vs UPDATE WHERE date=A (rule 8 before rule 9)."""
    b = t()
    r = seed(b, {A: 2, B: 1})
    f0, f1 = live(b, A)
    b.merge(
        f"t.id = s.id AND t.date = '{A}'", remove=[f0], add=[rewrite(b, f0), b.file(f"date={A}")]
    )
    b.update(f"date = '{A}'", remove=[f0, f1],
             add=[rewrite(b, f0), rewrite(b, f1)], **loser_opts(v, r))  # fmt: skip
    return r


def _update_b_vs_merge(t: Table, v: Variant, on: str) -> int:
    b = t()
    r = seed(b, {A: 1, B: 1})
    fb = live(b, B)[0]
    b.update(f"date = '{B}' AND id = 1", remove=[fb], add=[rewrite(b, fb)])
    fa = b.live_files(f"date={A}", version=r)[0]
    b.merge(on, remove=[fa], add=[rewrite(b, fa)], **loser_opts(v, r))
    return r


def e09(t: Table, v: Variant) -> int:
    """P: UPDATE in B vs MERGE ON t.id=s.id AND t.date=s.date (no literal)."""
    return _update_b_vs_merge(t, v, "t.id = s.id AND t.date = s.date")


def e10(t: Table, v: Variant) -> int:
    """P: as 9, but the MERGE ON has the literal t.date = A."""
    return _update_b_vs_merge(t, v, f"t.id = s.id AND t.date = s.date AND t.date = '{A}'")


def e11(t: Table, v: Variant) -> int:
    """P: DELETE WHERE date=B (removes only) vs MERGE without a literal."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.delete(f"date = '{B}'")
    fa = b.live_files(f"date={A}", version=r)[0]
    b.merge(
        "t.id = s.id AND t.date = s.date", remove=[fa], add=[rewrite(b, fa)], **loser_opts(v, r)
    )
    return r


def e12(t: Table, v: Variant, *, dv: bool = False) -> int:
    """P: OPTIMIZE WHERE date=A vs DELETE WHERE date=A AND id=5."""
    b = t(configuration={"delta.enableDeletionVectors": "true"} if dv else None)
    r = seed(b, {A: 2, B: 1})
    b.optimize(f"date = '{A}'")
    f = b.live_files(f"date={A}", version=r)[0]
    new = b.with_dv(f, cardinality=1) if dv else rewrite(b, f)
    b.delete(f"date = '{A}' AND id = 5", remove=[f], add=[new], **loser_opts(v, r))
    return r


def e12_dv(t: Table, v: Variant) -> int:
    return e12(t, v, dv=True)


def e13(t: Table, v: Variant) -> int:
    """P: blind INSERT A vs OPTIMIZE WHERE date=A (L runs under SnapshotIsolation)."""
    b = t()
    r = seed(b, {A: 2, B: 1})
    b.write(add=[b.file(f"date={A}")])
    b.optimize(f"date = '{A}'", **loser_opts(v, r))
    return r


def e14(t: Table, v: Variant, *, overlap: bool = True) -> int:
    """P: DELETE rewriting f in A vs OPTIMIZE of A compacting f (or not)."""
    b = t()
    r = seed(b, {A: 3, B: 1})
    f, g, h = live(b, A)
    b.delete(f"date = '{A}' AND id = 5", remove=[f], add=[rewrite(b, f)])
    inputs = [f, g] if overlap else [g, h]
    b.optimize(f"date = '{A}'", remove=inputs, **loser_opts(v, r))
    return r


def e14_disjoint(t: Table, v: Variant) -> int:
    return e14(t, v, overlap=False)


def e15(t: Table, v: Variant, *, dv: bool = False) -> int:
    """U: OPTIMIZE {f,g} vs OPTIMIZE {f,h}."""
    b = t(partitioned=False, configuration={"delta.enableDeletionVectors": "true"} if dv else None)
    r = seed(b, 3)
    f, g, h = live(b)
    b.optimize(remove=[f, g], **({"writer": v.loser_writer} if v.loser_writer else {}))
    b.optimize(remove=[f, h], **loser_opts(v, r))
    return r


def e15_dv(t: Table, v: Variant) -> int:
    return e15(t, v, dv=True)


def e16(t: Table, v: Variant) -> int:
    """ADD COLUMNS vs blind INSERT."""
    b = t()
    r = seed(b, {A: 1})
    b.add_columns({"note": "string"})
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def e17(t: Table, v: Variant) -> int:
    """blind INSERT vs ADD COLUMNS."""
    b = t()
    r = seed(b, {A: 1})
    b.write(add=[b.file(f"date={A}")])
    b.add_columns({"note": "string"}, **loser_opts(v, r))
    return r


def e18(t: Table, v: Variant) -> int:
    """U, WS: blind INSERT vs ADD CONSTRAINT (reads the whole table, changes metadata)."""
    b = t(partitioned=False, protocol={"minReaderVersion": 1, "minWriterVersion": 3})
    r = seed(b, 2)
    b.write(add=[b.file()])
    b.add_constraint("c", "amount > 0", **loser_opts(v, r))
    return r


def e19(t: Table, v: Variant, *, evolve: bool = True) -> int:
    """U, WS: blind INSERT vs MERGE with (or without) schema evolution."""
    b = t(partitioned=False)
    r = seed(b, 2)
    b.write(add=[b.file()])
    f = b.live_files(version=r)[0]
    params = {"predicate": json.dumps(["(id#301L = id#415L)"]),
              "matchedPredicates": json.dumps([{"actionType": "update"}]),
              "notMatchedPredicates": json.dumps([{"actionType": "insert"}]),
              "notMatchedBySourcePredicates": "[]"}  # fmt: skip
    md = add_field(b, "note", "string") if evolve else None
    b.commit(
        "MERGE", parameters=params, remove=[f], add=[rewrite(b, f)], metadata=md, **loser_opts(v, r)
    )
    return r


def e19_no_evolution(t: Table, v: Variant) -> int:
    return e19(t, v, evolve=False)


def e20(t: Table, v: Variant, *, loser_changes_metadata: bool = False) -> int:
    """U, protocol lists deletionVectors: SET enableDeletionVectors=true vs blind INSERT."""
    b = t(partitioned=False, protocol=DV_PROTOCOL)
    r = seed(b, 1)
    b.set_properties({"delta.enableDeletionVectors": "true"})
    if loser_changes_metadata:
        b.add_columns({"note": "string"}, **loser_opts(v, r))
    else:
        b.write(add=[b.file()], **loser_opts(v, r))
    return r


def e20_both_change(t: Table, v: Variant) -> int:
    return e20(t, v, loser_changes_metadata=True)


def e20_disable(t: Table, v: Variant) -> int:
    """Not in the doc: turning the allow-listed key *off* is not allow-listed (only to true)."""
    b = t(
        partitioned=False,
        protocol=DV_PROTOCOL,
        configuration={"delta.enableDeletionVectors": "true"},
    )
    r = seed(b, 1)
    b.set_properties({"delta.enableDeletionVectors": "false"})
    b.write(add=[b.file()], **loser_opts(v, r))
    return r


def e20_column_mapping(t: Table, v: Variant) -> int:
    """Enabling column mapping none→name (schema gains mapping metadata) vs blind INSERT."""
    b = t(partitioned=False)
    r = seed(b, 1)
    schema = json.loads(b.metadata["schemaString"])
    for i, f in enumerate(schema["fields"], start=1):
        f["metadata"] = {"delta.columnMapping.id": i, "delta.columnMapping.physicalName": f["name"]}
    conf = {
        **b.configuration,
        "delta.columnMapping.mode": "name",
        "delta.columnMapping.maxColumnId": str(len(schema["fields"])),
    }
    md = {**b.metadata, "schemaString": json.dumps(schema), "configuration": conf}
    b.commit("SET TBLPROPERTIES", parameters={"properties": json.dumps({"delta.columnMapping.mode": "name"})},
             metadata=md, protocol={"minReaderVersion": 2, "minWriterVersion": 5})  # fmt: skip
    b.write(add=[b.file()], **loser_opts(v, r))
    return r


def e21(t: Table, v: Variant, *, key: str = "delta.appendOnly", value: str = "true") -> int:
    """SET TBLPROPERTIES (not allow-listed) vs blind INSERT."""
    b = t()
    r = seed(b, {A: 1})
    b.set_properties({key: value})
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def e21_isolation(t: Table, v: Variant) -> int:
    return e21(t, v, key="delta.isolationLevel", value="Serializable")


def _identity_table(t: Table) -> LogBuilder:
    b = t(partitioned=False, protocol={"minReaderVersion": 1, "minWriterVersion": 6})
    b.metadata = add_field(b, "id", "long", _identity(None))
    return b


def _identity(high_water_mark: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"delta.identity.start": 1, "delta.identity.step": 1,
                           "delta.identity.allowExplicitInsert": False}  # fmt: skip
    if high_water_mark is not None:
        out["delta.identity.highWaterMark"] = high_water_mark
    return out


def _identity_insert(b: LogBuilder, high_water_mark: int, **opts: Any) -> int:
    """An INSERT generating identity values: blind adds + a metadata high-water-mark update."""
    tags = {"delta.identity.schemaUpdate": "true"}
    if b.writer.family == "databricks":
        tags |= {"restoresDeletedRows": "false", "noRowsCopied": "true"}
    return b.commit("WRITE", parameters={"mode": "Append", "partitionBy": "[]"}, add=[b.file(rows=100)],
                    metadata=add_field(b, "id", "long", _identity(high_water_mark)),
                    commit_info_extra={"tags": tags}, **opts)  # fmt: skip


def e22(t: Table, v: Variant) -> int:
    """ID: identity INSERT vs identity INSERT (both update the high-water mark)."""
    b = _identity_table(t)
    b.create()
    r = _identity_insert(b, 100)
    _identity_insert(b, 200)
    _identity_insert(b, 200, **loser_opts(v, r))
    return r


def e23(t: Table, v: Variant) -> int:
    """ID: identity INSERT vs DELETE WHERE id=5 (L changes no metadata)."""
    b = _identity_table(t)
    b.create()
    r = _identity_insert(b, 100)
    _identity_insert(b, 200)
    f = b.live_files(version=r)[0]
    b.delete("id = 5", remove=[f], add=[rewrite(b, f)], **loser_opts(v, r))
    return r


def e24(t: Table, v: Variant) -> int:
    """Two instances of streaming query Q commit the same batch."""
    b = t()
    r = seed(b, {A: 1})
    b.streaming_update("query-Q", 5, add=[b.file(f"date={A}")])
    b.streaming_update("query-Q", 5, add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def e25(t: Table, v: Variant) -> int:
    """P: streaming Q1 append vs streaming Q2 append, same partition."""
    b = t()
    r = seed(b, {A: 1})
    b.streaming_update("query-Q1", 1, add=[b.file(f"date={A}")])
    b.streaming_update("query-Q2", 1, add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def e26(t: Table, v: Variant, *, writes: str = A) -> int:
    """P: blind INSERT A vs dynamic partition overwrite of ``writes``."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.write(add=[b.file(f"date={A}")])
    b.write(
        mode="Overwrite",
        dynamic_partition_overwrite=True,
        add=[b.file(f"date={writes}")],
        **loser_opts(v, r),
    )
    return r


def e26_other_partition(t: Table, v: Variant) -> int:
    return e26(t, v, writes=B)


def e27(t: Table, v: Variant) -> int:
    """P: DELETE WHERE date=A vs dynamic partition overwrite of A."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.delete(f"date = '{A}'")
    b.write(
        mode="Overwrite",
        dynamic_partition_overwrite=True,
        add=[b.file(f"date={A}")],
        **loser_opts(v, r),
    )
    return r


def e28(
    t: Table, v: Variant, *, w_where: str = f"date >= '{B}'", l_where: str = f"date >= '{B}'"
) -> int:
    """P, only A exists: replaceWhere writing C vs replaceWhere writing D."""
    b = t()
    r = seed(b, {A: 1})
    b.write(mode="Overwrite", predicate=w_where, add=[b.file(f"date={C}")])
    b.write(mode="Overwrite", predicate=l_where, add=[b.file(f"date={D}")], **loser_opts(v, r))
    return r


def e28_disjoint(t: Table, v: Variant) -> int:
    return e28(t, v, w_where=f"date > '{B}' AND date <= '{C}'", l_where=f"date > '{C}'")


def e29(t: Table, v: Variant, *, where: str = f"date = '{A}' OR amount > 100") -> int:
    """P: UPDATE in E vs DELETE with an OR over a data column."""
    b = t()
    r = seed(b, {A: 1, B: 1, E: 1})
    fe = live(b, E)[0]
    b.update(f"date = '{E}' AND id = 1", remove=[fe], add=[rewrite(b, fe)])
    fa = b.live_files(f"date={A}", version=r)[0]
    b.delete(where, remove=[fa], add=[rewrite(b, fa)], **loser_opts(v, r))
    return r


def e29_extractable(t: Table, v: Variant) -> int:
    return e29(t, v, where=f"(date = '{A}' AND amount > 1) OR (date = '{B}' AND id < 2)")


def e30(t: Table, v: Variant, *, same_row: bool = False) -> int:
    """UDV: DELETE id=1 (DV on f) vs DELETE id=2 (DV on f)."""
    b = t(partitioned=False, configuration={"delta.enableDeletionVectors": "true"})
    r = seed(b, 2)
    f = live(b)[0]
    b.delete("id = 1", remove=[f], add=[b.with_dv(f, cardinality=1)])
    b.delete(
        "id = 1" if same_row else "id = 2",
        remove=[f],
        add=[b.with_dv(f, cardinality=1)],
        **loser_opts(v, r),
    )
    return r


def e30_same_row(t: Table, v: Variant) -> int:
    return e30(t, v, same_row=True)


def e31(t: Table, v: Variant, *, zorder: bool = False, liquid: bool = False) -> int:
    """UDV (or LC): OPTIMIZE vs UPDATE WHERE id=7."""
    conf = {"delta.enableDeletionVectors": "true"}
    if liquid:
        protocol = {
            **DV_PROTOCOL,
            "writerFeatures": [*DV_PROTOCOL["writerFeatures"], "domainMetadata", "clustering"],
        }
        b = t(partitioned=False, configuration=conf, protocol=protocol)
        r = seed(b, 2, actions=[b.domain("delta.clustering", {"clusteringColumns": [["id"]]})])
    else:
        b = t(partitioned=False, configuration=conf)
        r = seed(b, 2)
    b.optimize(zorder=["id"] if zorder else ())
    f = b.live_files(version=r)[0]
    b.update(
        "id = 7", remove=[f], add=[b.with_dv(f, cardinality=1), b.file(rows=1)], **loser_opts(v, r)
    )
    return r


def e31_zorder(t: Table, v: Variant) -> int:
    return e31(t, v, zorder=True)


def e31_liquid(t: Table, v: Variant) -> int:
    return e31(t, v, liquid=True)


def e32(t: Table, v: Variant) -> int:
    """U, WS: delta-rs append (no isBlindAppend) vs Spark UPDATE."""
    return _u_insert_vs_update(t, v, winner_writer=RS)


def e32_kernel(t: Table, v: Variant) -> int:
    """Same with a Kernel-Java append (isBlindAppend=false)."""
    return _u_insert_vs_update(t, v, winner_writer="kernel-java")


def e33(t: Table, v: Variant, *, optimize: bool = False) -> int:
    """U: Spark DELETE id=5 (or OPTIMIZE) vs a plain append (delta-rs loser reads every file)."""
    b = t(partitioned=False)
    r = seed(b, 2)
    if optimize:
        b.optimize()
    else:
        f = live(b)[0]
        b.delete("id = 5", remove=[f], add=[rewrite(b, f)])
    b.write(add=[b.file()], **loser_opts(v, r))
    return r


def e33_optimize(t: Table, v: Variant) -> int:
    return e33(t, v, optimize=True)


def e34(t: Table, v: Variant) -> int:
    """New path: two writers create version 0; L's create is written as the next version."""
    b = t()
    b.create()
    w = v.loser_writer or v.writer
    if w.startswith("delta-rs"):
        params = {
            "mode": "ErrorIfExists",
            "protocol": json.dumps(b.protocol),
            "metadata": json.dumps(b.metadata),
        }
    else:
        params = {"partitionBy": json.dumps(["date"]), "clusterBy": "[]", "description": None,
                  "isManaged": "false", "properties": "{}"}  # fmt: skip
    b.commit("CREATE TABLE", parameters=params, metadata=b.metadata, protocol=b.protocol,
             **loser_opts(v, -1, read_version=None))  # fmt: skip
    return -1


def e35(t: Table, v: Variant) -> int:
    """DROP FEATURE (protocol downgrade) vs blind INSERT."""
    b = t(protocol=DV_PROTOCOL)
    r = seed(b, {A: 1})
    dropped = {
        "minReaderVersion": 1,
        "minWriterVersion": 7,
        "writerFeatures": ["appendOnly", "invariants"],
    }
    b.commit("DROP FEATURE", parameters={"featureName": "deletionVectors", "truncateHistory": False},
             protocol=dropped, blind=False)  # fmt: skip
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r


def e36(t: Table, v: Variant, *, operation: str = "RESTORE") -> int:
    """Any commit vs RESTORE (commitLarge: no conflict resolution)."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.write(add=[b.file(f"date={B}")])
    params: dict[str, Any] = (
        {"version": 0, "timestamp": None}
        if operation == "RESTORE"
        else {"source": "main.src", "sourceVersion": 3}
    )
    b.commit(operation, parameters=params, remove=b.live_files(version=r),
             **loser_opts(v, r, isolation="Serializable", blind=False))  # fmt: skip
    return r


def e36_clone(t: Table, v: Variant) -> int:
    return e36(t, v, operation="CLONE")


def e36_restore_winner(t: Table, v: Variant) -> int:
    """RESTORE as a winner is a non-blind commit (adds and removes)."""
    b = t()
    r = seed(b, {A: 1})
    f = live(b, A)[0]
    b.commit("RESTORE", parameters={"version": 0, "timestamp": None}, remove=[f],
             add=[rewrite(b, f)], isolation="Serializable", blind=False)  # fmt: skip
    b.update(f"date = '{A}'", remove=[f], add=[rewrite(b, f)], **loser_opts(v, r))
    return r


def e37(t: Table, v: Variant) -> int:
    """RT: blind INSERT vs blind INSERT; L's row ids are rebased above W's high-water mark."""
    b = t(configuration={"delta.enableRowTracking": "true"})
    b.create()
    first = {**b.file(f"date={A}", rows=100), "baseRowId": 0, "defaultRowCommitVersion": 1}
    r = b.write(add=[first], actions=[b.domain("delta.rowTracking", {"rowIdHighWaterMark": 99})])
    w = {**b.file(f"date={A}", rows=50), "baseRowId": 100, "defaultRowCommitVersion": r + 1}
    b.write(add=[w], actions=[b.domain("delta.rowTracking", {"rowIdHighWaterMark": 149})])
    lo = {**b.file(f"date={A}", rows=10), "baseRowId": 150, "defaultRowCommitVersion": r + 2}
    b.write(
        add=[lo],
        actions=[b.domain("delta.rowTracking", {"rowIdHighWaterMark": 159})],
        **loser_opts(v, r),
    )
    return r


def e38(t: Table, v: Variant) -> int:
    """ICT on: blind INSERT vs blind INSERT started earlier (L's clock is behind)."""
    protocol = {
        "minReaderVersion": 1,
        "minWriterVersion": 7,
        "writerFeatures": ["appendOnly", "invariants", "inCommitTimestamp"],
    }
    b = t(configuration={"delta.enableInCommitTimestamps": "true"}, protocol=protocol)
    r = seed(b, {A: 1})
    started = b.time_of(r) + 1000
    b.write(add=[b.file(f"date={A}")])
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r, timestamp=started))
    return r


def e39(t: Table, v: Variant, *, elided_level: str | None = None) -> int:
    """U: MERGE (non-blind adds) vs a DELETE that matches nothing (an empty commit)."""
    b = t(partitioned=False)
    r = seed(b, 2)
    f = live(b)[0]
    b.merge("t.id = s.id", remove=[f], add=[rewrite(b, f), b.file(rows=5)])
    opts = loser_opts(v, r, **({"isolation": elided_level} if elided_level else {}))
    b.delete("id = -1", remove=[], **opts)
    return r


def e39_serializable(t: Table, v: Variant) -> int:
    """Under S Delta downgrades the empty DELETE to SnapshotIsolation (and elides it)."""
    return e39(t, v, elided_level="SnapshotIsolation")


def e40(t: Table, v: Variant) -> int:
    """foreachBatch writes with the same txnAppId/txnVersion."""
    b = t()
    r = seed(b, {A: 1})
    b.write(add=[b.file(f"date={A}")], actions=[b.txn("writer-X", 7)])
    b.write(add=[b.file(f"date={B}")], **loser_opts(v, r, actions=[b.txn("writer-X", 7)]))
    return r


def e41(t: Table, v: Variant) -> int:
    """P with column mapping (name): non-blind write in B vs UPDATE WHERE date=B."""
    b = t(configuration={"delta.columnMapping.mode": "name"})
    r = seed(b, {A: 1, B: 2})
    f0, f1 = live(b, B)
    b.update(f"date = '{B}' AND id = 1", remove=[f0], add=[rewrite(b, f0)])
    b.update(f"date = '{B}'", remove=[f0, f1], add=[rewrite(b, f0)], **loser_opts(v, r))
    return r


def e42(t: Table, v: Variant) -> int:
    """P: a third-party commit with adds in A and no commitInfo vs UPDATE WHERE date=A."""
    b = t()
    r = seed(b, {A: 1, B: 1})
    b.write(add=[b.file(f"date={A}")], omit_commit_info=True)
    f = live(b, A)[0]
    b.update(f"date = '{A}'", remove=[f], add=[rewrite(b, f)], **loser_opts(v, r))
    return r


def e43(t: Table, v: Variant) -> int:
    """P: W1 blind INSERT B, W2 UPDATE in A vs UPDATE WHERE date=A (first failing winner)."""
    b = t()
    r = seed(b, {A: 2, B: 1})
    f0, f1 = live(b, A)
    b.write(add=[b.file(f"date={B}")])
    b.update(f"date = '{A}' AND id = 1", remove=[f0], add=[rewrite(b, f0)])
    b.update(f"date = '{A}'", remove=[f0, f1], add=[rewrite(b, f0)], **loser_opts(v, r))
    return r


def e44(t: Table, v: Variant) -> int:
    """txn(appId=Q) + non-blind adds in A vs L that read appId Q and partition A."""
    b = t()
    r = seed(b, {A: 2, B: 1})
    f0, f1 = live(b, A)
    b.merge(f"t.id = s.id AND t.date = '{A}'", remove=[f0], add=[rewrite(b, f0)],
            actions=[b.txn("batch-Q", 7)])  # fmt: skip
    b.update(f"date = '{A}'", remove=[f1], add=[rewrite(b, f1)],
             **loser_opts(v, r, actions=[b.txn("batch-Q", 7)]))  # fmt: skip
    return r


# ---------------------------------------------------------------------------------------------
# Not rows of section E: races the rule catalogue needs besides them.


def domain_clash(t: Table, v: Variant) -> int:
    """Two ALTER TABLE CLUSTER BY commits both write the delta.clustering domain."""
    protocol = {
        **DV_PROTOCOL,
        "writerFeatures": [*DV_PROTOCOL["writerFeatures"], "domainMetadata", "clustering"],
    }
    b = t(partitioned=False, protocol=protocol)
    r = seed(b, 1, actions=[b.domain("delta.clustering", {"clusteringColumns": [["id"]]})])
    for cols, opts in (("amount", {}), ("id", loser_opts(v, r))):
        b.commit("CLUSTER BY", parameters={"oldClusteringColumns": "id", "newClusteringColumns": cols},
                 actions=[b.domain("delta.clustering", {"clusteringColumns": [[cols]]})], **opts)  # fmt: skip
    return r


def protocol_upgrade(t: Table, v: Variant) -> int:
    """SET TBLPROPERTIES enabling deletion vectors upgrades the protocol (1/2 -> 3/7) vs INSERT."""
    b = t()
    r = seed(b, {A: 1})
    b.set_properties({"delta.enableDeletionVectors": "true"})
    b.write(add=[b.file(f"date={A}")], **loser_opts(v, r))
    return r
