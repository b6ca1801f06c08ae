"""The racing pairs run on the real engines: every operation as winner and as loser.

An operation is a real statement (SQL, or a DataFrame write where Spark has no SQL for the
option: ``txnAppId``, ``replaceWhere``, dynamic partition overwrite) plus the same statement as
a user would give it to ``explain --attempt`` with its flags. A pair is (winner, loser, layout):
partitioned by ``date`` or not, deletion vectors on or off, and the loser touching the winner's
region (partition 2024-01-01, ids 0-19) or a disjoint one (2024-01-03, ids 200-209). Cells a
release cannot run are not applicable (``applicable``): deletion vectors need Delta 2.4 for
DELETE and 3.0 for UPDATE/MERGE, identity columns 3.3, liquid clustering 3.1. Two more layouts
follow the rotation: a table liquid-clustered by ``date`` (the operations a clustered table
takes), and a WriteSerializable table (every loser against a blind append, where the two
isolation levels part, plus DML pairs as controls); OSS Delta's own default is Serializable.

``matrix()`` is the full set the fidelity script runs; ``sample()`` the stratified subset CI
runs: every operation as winner and as loser at least once on every release.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

D1, D3 = "2024-01-01", "2024-01-03"
REGION_IDS = {D1: (1, 2, 3), D3: (201, 202, 203)}
COUNTRY = {D1: "US", D3: "FR"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    """What the harness runs and what a user would pass to ``explain --attempt``."""

    run: dict[str, Any]
    attempt: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout:
    partitioned: bool
    deletion_vectors: bool
    overlap: bool  # the loser touches the winner's region
    clustered: bool = False  # liquid clustering by date (CLUSTER BY), never partitioned
    # OSS Delta only lets a user SET Serializable (its default), but honours WriteSerializable
    # when the table's metadata already says so, as on a table a Databricks cluster created
    write_serializable: bool = False

    @property
    def tag(self) -> str:
        return (
            ("clus" if self.clustered else "part" if self.partitioned else "flat")
            + ("-ws" if self.write_serializable else "")
            + ("-dv" if self.deletion_vectors else "")
            + ("-touch" if self.overlap else "-apart")
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Op:
    name: str
    build: Callable[[str, Layout, str], Statement]  # (region, layout, role) -> statement
    since: tuple[int, int] = (2, 4)
    partitioned_only: bool = False
    dv_since: tuple[int, int] = (2, 4)  # first release writing deletion vectors for it
    identity: bool = False  # needs an identity column


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    id: str
    winner: Op
    loser: Op
    layout: Layout
    setup: dict[str, Any] = field(default_factory=dict)
    before: tuple[dict[str, Any], ...] = ()  # statements committed before the race, seen by all

    def statements(self) -> tuple[Statement, Statement]:
        region = D1 if self.layout.overlap else D3
        return (
            self.winner.build(D1, self.layout, "winner"),
            self.loser.build(region, self.layout, "loser"),
        )

    def spec(self) -> dict[str, Any]:
        winner, loser = self.statements()
        spec = {"id": self.id, "setup": self.setup, "winners": [winner.run], "loser": loser.run}
        return {**spec, "before": list(self.before)} if self.before else spec


def _rows(region: str) -> list[list[Any]]:
    return [[i, region, COUNTRY[region], float(i)] for i in REGION_IDS[region]]


def _values(rows: list[list[Any]]) -> str:
    def lit(v: Any) -> str:
        return f"'{v}'" if isinstance(v, str) else repr(v)

    return ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in rows)


def _where(region: str, layout: Layout, *, narrow: bool = True) -> str:
    """The rows of a region the DML touches: a partition literal, or an id range."""
    low, high = (0, 20) if region == D1 else (200, 210)
    ids = f"id < {low + 3}" if narrow else f"id >= {low} AND id < {high}"
    if layout.partitioned:
        return f"date = '{region}' AND {ids}" if narrow else f"date = '{region}'"
    return ids


def _sql(text: str, *flags: str) -> Statement:
    return Statement(run={"kind": "sql", "sql": text}, attempt=text, flags=flags)


def _write(
    mode: str, rows: list[list[Any]], options: dict[str, str], attempt: str, *flags: str
) -> Statement:
    return Statement(
        run={"kind": "write", "mode": mode, "rows": rows, "options": options},
        attempt=attempt,
        flags=flags,
    )


def insert(region: str, layout: Layout, role: str) -> Statement:
    return _sql(f"INSERT INTO {{table}} (id, date, country, value) VALUES {_values(_rows(region))}")


def insert_overwrite(region: str, layout: Layout, role: str) -> Statement:
    if not layout.partitioned:
        return _sql(f"INSERT OVERWRITE {{table}} VALUES {_values(_rows(region))}")
    rows = [[r[0], r[2], r[3]] for r in _rows(region)]
    return _sql(
        f"INSERT OVERWRITE {{table}} PARTITION (date = '{region}') "
        f"SELECT * FROM VALUES {_values(rows)} AS v(id, country, value)"
    )


def dynamic_overwrite(region: str, layout: Layout, role: str) -> Statement:
    rows = _rows(region)
    return _write(
        "overwrite",
        rows,
        {"partitionOverwriteMode": "dynamic"},
        f"INSERT OVERWRITE {{table}} VALUES {_values(rows)}",
        "--partition-overwrite-mode",
        "dynamic",
    )


def replace_where(region: str, layout: Layout, role: str) -> Statement:
    rows = _rows(region)
    predicate = _where(region, layout, narrow=False)
    return _write(
        "overwrite",
        rows,
        {"replaceWhere": predicate},
        f"INSERT OVERWRITE {{table}} VALUES {_values(rows)}",
        "--replace-where",
        predicate,
    )


def delete(region: str, layout: Layout, role: str) -> Statement:
    return _sql(f"DELETE FROM {{table}} WHERE {_where(region, layout)}")


def update(region: str, layout: Layout, role: str) -> Statement:
    return _sql(f"UPDATE {{table}} SET value = value * 2 WHERE {_where(region, layout)}")


def _merge(region: str, layout: Layout, literal: bool) -> Statement:
    rows = _rows(region)
    on = "t.id = s.id AND t.date = s.date" if layout.partitioned else "t.id = s.id"
    if literal:
        on += (
            f" AND t.date = '{region}'"
            if layout.partitioned
            else (" AND t.id < 20" if region == D1 else " AND t.id >= 200")
        )
    return _sql(
        f"MERGE INTO {{table}} AS t USING (SELECT * FROM VALUES {_values(rows)} "
        "AS v(id, date, country, value)) AS s "
        f"ON {on} WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


def merge_literal(region: str, layout: Layout, role: str) -> Statement:
    return _merge(region, layout, literal=True)


def merge_plain(region: str, layout: Layout, role: str) -> Statement:
    return _merge(region, layout, literal=False)


def optimize(region: str, layout: Layout, role: str) -> Statement:
    where = f" WHERE date = '{region}'" if layout.partitioned else ""
    return _sql(f"OPTIMIZE {{table}}{where}")


def zorder(region: str, layout: Layout, role: str) -> Statement:
    where = f" WHERE date = '{region}'" if layout.partitioned else ""
    return _sql(f"OPTIMIZE {{table}}{where} ZORDER BY (id)")


def add_columns(region: str, layout: Layout, role: str) -> Statement:
    return _sql(f"ALTER TABLE {{table}} ADD COLUMNS (note_{role} STRING)")


def set_properties(region: str, layout: Layout, role: str) -> Statement:
    days = 31 if role == "winner" else 32
    return _sql(
        f"ALTER TABLE {{table}} SET TBLPROPERTIES ('delta.logRetentionDuration' = 'interval {days} days')"
    )


def protocol_upgrade(region: str, layout: Layout, role: str) -> Statement:
    if layout.deletion_vectors or layout.clustered:  # already on table features: add one
        feature = "changeDataFeed" if role == "winner" else "checkConstraints"
        return _sql(
            f"ALTER TABLE {{table}} SET TBLPROPERTIES ('delta.feature.{feature}' = 'supported')"
        )
    version = "4" if role == "winner" else "3"
    return _sql(f"ALTER TABLE {{table}} SET TBLPROPERTIES ('delta.minWriterVersion' = '{version}')")


def restore(region: str, layout: Layout, role: str) -> Statement:
    return _sql("RESTORE TABLE {table} TO VERSION AS OF 2")


def txn_append(region: str, layout: Layout, role: str) -> Statement:
    app = "app" if role == "winner" or region == D1 else "other-app"
    version = "1" if role == "winner" else "2"
    rows = _rows(region)
    return _write(
        "append",
        rows,
        {"txnAppId": app, "txnVersion": version},
        f"INSERT INTO {{table}} VALUES {_values(rows)}",
        "--txn",
        f"{app}:{version}",
    )


def empty_batch(region: str, layout: Layout, role: str) -> Statement:
    """What a streaming sink commits for an empty micro-batch: its ``txn`` and no files."""
    app = "app" if role == "winner" or region == D1 else "other-app"
    version = "1" if role == "winner" else "2"
    return _write(
        "append",
        [],
        {"txnAppId": app, "txnVersion": version},
        "INSERT INTO {table} (id, date, country, value) SELECT 0, 'none', 'none', 0.0 WHERE false",
        "--txn",
        f"{app}:{version}",
    )


def delete_nothing(region: str, layout: Layout, role: str) -> Statement:
    return _sql(f"DELETE FROM {{table}} WHERE {_where(region, layout)} AND value < 0")


def restore_current(region: str, layout: Layout, role: str) -> Statement:
    return _sql("RESTORE TABLE {table} TO VERSION AS OF 5")  # the seeded table's own version


def sync_identity(region: str, layout: Layout, role: str) -> Statement:
    return _sql("ALTER TABLE {table} ALTER COLUMN seq SYNC IDENTITY")


IDENTITY_SAFE = frozenset(
    {"INSERT", "DELETE", "UPDATE", "OPTIMIZE", "ADD COLUMNS", "SET TBLPROPERTIES", "SYNC IDENTITY"}
)

OPS = (
    Op(name="INSERT", build=insert),
    Op(name="INSERT OVERWRITE", build=insert_overwrite),
    Op(name="dynamic partition overwrite", build=dynamic_overwrite, partitioned_only=True),
    Op(name="replaceWhere", build=replace_where),
    Op(name="DELETE", build=delete),
    Op(name="UPDATE", build=update, dv_since=(3, 0)),
    Op(name="MERGE with literal", build=merge_literal, dv_since=(3, 0)),
    Op(name="MERGE", build=merge_plain, dv_since=(3, 0)),
    Op(name="OPTIMIZE", build=optimize),
    Op(name="OPTIMIZE ZORDER BY", build=zorder),
    Op(name="ADD COLUMNS", build=add_columns),
    Op(name="SET TBLPROPERTIES", build=set_properties),
    Op(name="protocol upgrade", build=protocol_upgrade),
    Op(name="RESTORE", build=restore),
    Op(name="txnAppId append", build=txn_append),
    Op(name="DELETE matching nothing", build=delete_nothing),
    Op(name="RESTORE to the current version", build=restore_current),
    Op(name="SYNC IDENTITY", build=sync_identity, since=(3, 3), identity=True),
)
# operations added after the first fidelity runs: their pairs come after the others in the
# matrix, so the layouts (and ids) of the earlier pairs never move
LATER_OPS = (Op(name="txnAppId empty batch", build=empty_batch),)
FIRST_OPS = OPS
OPS = FIRST_OPS + LATER_OPS


CLUSTERING_SINCE = (3, 1)
# ZORDER BY and partition overwrites are refused on a clustered table; identity tables are
# created apart
CLUSTERING_OPS = frozenset(
    {
        "INSERT",
        "INSERT OVERWRITE",
        "replaceWhere",
        "DELETE",
        "UPDATE",
        "MERGE with literal",
        "MERGE",
        "OPTIMIZE",
        "ADD COLUMNS",
        "txnAppId append",
    }
)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def applicable(case: Case, release: tuple[int, int]) -> bool:
    if case.layout.clustered and (
        release < CLUSTERING_SINCE or not {case.winner.name, case.loser.name} <= CLUSTERING_OPS
    ):
        return False
    for op in (case.winner, case.loser):
        if release < op.since or (op.partitioned_only and not case.layout.partitioned):
            return False
        if case.layout.deletion_vectors and release < op.dv_since:
            return False
    if case.winner.identity or case.loser.identity:
        return {case.winner.name, case.loser.name} <= IDENTITY_SAFE
    return True


def _case(winner: Op, loser: Op, layout: Layout) -> Case:
    setup: dict[str, Any] = {"partitioned": layout.partitioned}
    if layout.deletion_vectors:
        setup["deletion_vectors"] = True
    if layout.clustered:
        setup["clustered"] = True
    if layout.write_serializable:
        setup["isolation"] = "WriteSerializable"
    if winner.identity or loser.identity:
        setup["identity"] = True
    return Case(
        id=f"{slug(winner.name)}--{slug(loser.name)}--{layout.tag}",
        winner=winner,
        loser=loser,
        layout=layout,
        setup=setup,
    )


LAYOUTS = tuple(
    Layout(partitioned=p, deletion_vectors=dv, overlap=o)
    for p, dv, o in itertools.product((True, False), (False, True), (True, False))
)


# touching layouts first and more often: a race needs an overlap to fail
ROTATION = (
    LAYOUTS[0],  # partitioned, touching
    LAYOUTS[4],  # unpartitioned, touching
    LAYOUTS[2],  # partitioned, deletion vectors, touching
    LAYOUTS[1],  # partitioned, apart
    LAYOUTS[6],  # unpartitioned, deletion vectors, touching
    LAYOUTS[0],
    LAYOUTS[5],  # unpartitioned, apart
    LAYOUTS[3],  # partitioned, deletion vectors, apart
)


def matrix(release: tuple[int, int]) -> list[Case]:
    """Every ordered pair of operations on a rotating layout, every third pair on a second
    one too (a layout the pair cannot run falls back to the plain partitioned one); then the
    pairs of a liquid-clustered table and of a WriteSerializable one (appended, so the ids of
    the cases before them never move)."""
    cases: dict[str, Case] = {}
    first = list(itertools.product(FIRST_OPS, FIRST_OPS))
    pairs = first + [p for p in itertools.product(OPS, OPS) if p not in first]
    for index, (winner, loser) in enumerate(pairs):
        wanted = [ROTATION[index % len(ROTATION)]]
        if index % 3 == 0:
            wanted.append(ROTATION[(index + 3) % len(ROTATION)])
        for layout in wanted:
            for candidate in (layout, LAYOUTS[0]):
                case = _case(winner, loser, candidate)
                if applicable(case, release):
                    cases.setdefault(case.id, case)
                    break
    for index, (winner, loser) in enumerate(pairs):
        extra = _clustered(index) + _write_serializable(winner, loser, index)
        for layout in extra:
            case = _case(winner, loser, layout)
            if applicable(case, release):
                cases.setdefault(case.id, case)
    return list(cases.values())


def _clustered(index: int) -> list[Layout]:
    """Each pair of the clustering operations on a clustered table, touching or apart in turn."""
    return [
        Layout(partitioned=False, deletion_vectors=False, overlap=index % 2 == 0, clustered=True)
    ]


BLIND_APPENDS = frozenset({"INSERT", "txnAppId append"})
DML = frozenset({"INSERT", "DELETE", "UPDATE", "MERGE"})


def _write_serializable(winner: Op, loser: Op, index: int) -> list[Layout]:
    """WriteSerializable differs from Serializable where a blind append wins: every loser
    against a blind append, partitioned and not; and the DML pairs as controls."""
    if winner.name in BLIND_APPENDS:
        return [
            Layout(partitioned=p, deletion_vectors=False, overlap=True, write_serializable=True)
            for p in (True, False)
        ]
    if winner.name in DML | {"OPTIMIZE"} and loser.name in DML:
        return [
            Layout(
                partitioned=True,
                deletion_vectors=index % 2 == 1,
                overlap=True,
                write_serializable=True,
            )
        ]
    return []


EXTRA_PER_KIND = 3


def _sample_rank(case: Case, role: str) -> tuple[bool, bool]:
    """A plain partner on the plain partitioned layout first, any pair the matrix holds after."""
    partner = case.loser if role == "winner" else case.winner
    return (partner.name not in ("DELETE", "INSERT", "UPDATE"), case.layout != LAYOUTS[0])


def sample(release: tuple[int, int], size: int = 40) -> list[Case]:
    """Every operation as winner and as loser, then the rest of the matrix at even steps."""
    every = matrix(release)
    full = [
        c
        for c in every
        if not (c.layout.clustered or c.layout.write_serializable)
        and {c.winner, c.loser} <= set(FIRST_OPS)
    ]
    chosen: dict[str, Case] = {}
    for op in OPS:
        for role in ("winner", "loser"):
            for case in full:
                plain = _sample_rank(case, role) == (False, False)
                if getattr(case, role) is op and plain and case.id not in chosen:
                    chosen[case.id] = case
                    break
    step = max(1, len(full) // max(1, size - len(chosen)))
    for case in full[::step]:
        if len(chosen) >= size:
            break
        chosen.setdefault(case.id, case)
    # an operation the matrix never pairs that way on that layout still plays both roles
    for op in OPS:
        for role in ("winner", "loser"):
            playing = sorted(
                (case for case in every if getattr(case, role) is op),
                key=lambda case: _sample_rank(case, role),
            )
            if playing and not any(getattr(case, role).name == op.name for case in chosen.values()):
                chosen[playing[0].id] = playing[0]
    # and a few of the clustered and WriteSerializable cells, where the release has them
    for kind in ("clustered", "write_serializable"):
        extra = [c for c in every if getattr(c.layout, kind) and c.layout.overlap]
        for case in extra[:: max(1, len(extra) // EXTRA_PER_KIND)][:EXTRA_PER_KIND]:
            chosen.setdefault(case.id, case)
    return list(chosen.values())


# -- the classes of miss an independent check found (issue #34) --------------------------------
# Pairs the rotation never makes: each is one class of miss, on the seeded table (2024-01-02
# holds ids 100-104, 2024-01-03 ids 200-209, each INSERT two files). Each run's log is kept
# under tests/realspark/logs/ and must fail without the model's fix.
D2 = "2024-01-02"


def _fixed(text: str, *flags: str) -> Callable[[str, Layout, str], Statement]:
    return lambda region, layout, role: _sql(text, *flags)


def _merge_on_date(region: str, layout: Layout, role: str) -> Statement:
    rows = _rows(D3)
    return _sql(
        f"MERGE INTO {{table}} AS t USING (SELECT * FROM VALUES {_values(rows)} "
        f"AS v(id, date, country, value)) AS s ON t.id = s.id AND t.date = '{D3}' "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


def _merge_after_analysis(region: str, layout: Layout, role: str) -> Statement:
    """A MERGE whose plan is analysed before the winner commits and whose transaction starts
    after (DeltaTable API: the target is resolved at ``forPath``); the SQL MERGE of a user's
    session lands there when the winner commits between its analysis and its execution."""
    statement = _merge(D1, layout, literal=False)
    rows = _rows(D1)
    on = "t.id = s.id AND t.date = s.date" if layout.partitioned else "t.id = s.id"
    return Statement(
        run={"kind": "merge-api", "rows": rows, "on": on, "hold": "after-analysis"},
        attempt=statement.attempt,
    )


PARTITION_DELETE = Op(
    name="DELETE one partition",
    build=_fixed(f"DELETE FROM {{table}} WHERE date = '{D2}'"),
)
MISS_LOSERS = {
    "skipping": (
        Op(name="DELETE by id", build=_fixed("DELETE FROM {table} WHERE id = 205")),
        Op(
            name="UPDATE by id", build=_fixed("UPDATE {table} SET value = value * 2 WHERE id = 205")
        ),
        Op(name="MERGE on a date literal", build=_merge_on_date),
        Op(
            name="DELETE by id in that partition",
            build=_fixed("DELETE FROM {table} WHERE id = 102"),
        ),
    ),
    "optimize": (Op(name="OPTIMIZE whole table", build=_fixed("OPTIMIZE {table}")),),
    "reorg": (Op(name="REORG PURGE", build=_fixed("REORG TABLE {table} APPLY (PURGE)")),),
}
ADD_COLUMNS = Op(name="ADD COLUMNS", build=add_columns)
MERGE_AFTER_ANALYSIS = Op(name="MERGE analysed before", build=_merge_after_analysis)
# each INSERT of the seed writes two files (local[2]): compacted, 2024-01-02 holds one file, which
# a whole-table OPTIMIZE leaves alone
LONE = {"kind": "sql", "sql": f"OPTIMIZE {{table}} WHERE date = '{D2}'"}
# a deletion vector on a file of 2024-01-01 at the read version: what REORG … APPLY (PURGE) rewrites
DV_BEFORE = {"kind": "sql", "sql": f"DELETE FROM {{table}} WHERE date = '{D1}' AND id = 1"}


def misses(release: tuple[int, int]) -> list[Case]:
    """The cases of each class of miss (data skipping, OPTIMIZE's read set, REORG PURGE, an
    engine error outside the checker's exceptions)."""
    part = Layout(partitioned=True, deletion_vectors=False, overlap=False)
    flat = Layout(partitioned=False, deletion_vectors=False, overlap=False)
    part_dv = Layout(partitioned=True, deletion_vectors=True, overlap=False)
    skipping = MISS_LOSERS["skipping"]
    cases = [
        _case(PARTITION_DELETE, skipping[0], part),
        _case(PARTITION_DELETE, skipping[1], flat),
        _case(PARTITION_DELETE, skipping[2], flat),
        _case(PARTITION_DELETE, skipping[3], flat),
        replace(_case(PARTITION_DELETE, MISS_LOSERS["optimize"][0], part), before=(LONE,)),
        _case(ADD_COLUMNS, MERGE_AFTER_ANALYSIS, part),
    ]
    if release >= (3, 0):  # REORG ... APPLY (PURGE) came with Delta 2.3, DVs on DML in 3.0
        reorg = _case(PARTITION_DELETE, MISS_LOSERS["reorg"][0], part_dv)
        cases.append(replace(reorg, before=(DV_BEFORE,)))
    return cases


# -- DataFrame writes given to --attempt as the DataFrame call itself (issue #34, item 4) -------
# The harness runs each as ``df.write.format("delta").mode(…).option(…).save(path)``; the
# attempt is that same call, as a user copies it from the job, with ``--writes`` where the
# DataFrame's rows decide the partitions (a dynamic partition overwrite).


def _df_write(
    mode: str, options: dict[str, str], *flags: str
) -> Callable[[str, Layout, str], Statement]:
    def build(region: str, layout: Layout, role: str) -> Statement:
        chain = "".join(f'.option("{k}", "{v}")' for k, v in options.items())
        call = f'df.write.format("delta").mode("{mode}"){chain}.save("/data/{{table}}")'
        written = tuple(f.replace("{region}", region) for f in flags)
        return _write(mode, _rows(region), options, call, *written)

    return build


def _df_replace_where(region: str, layout: Layout, role: str) -> Statement:
    return _df_write("overwrite", {"replaceWhere": f"date = '{region}'"})(region, layout, role)


DF_WRITES = (
    Op(name="df append", build=_df_write("append", {})),
    Op(name="df replaceWhere", build=_df_replace_where),
    Op(
        name="df dynamic overwrite",
        build=_df_write(
            "overwrite", {"partitionOverwriteMode": "dynamic"}, "--writes", "date={region}"
        ),
    ),
    Op(name="df overwrite", build=_df_write("overwrite", {})),
    Op(
        name="df txnAppId append", build=_df_write("append", {"txnAppId": "app", "txnVersion": "2"})
    ),
    Op(name="df mergeSchema append", build=_df_write("append", {"mergeSchema": "true"})),
)
TXN_WINNER = Op(name="txnAppId append", build=txn_append)


def dataframe_writes(release: tuple[int, int]) -> list[Case]:
    """Each DataFrame write mode as the loser, given to ``--attempt`` as the DataFrame call:
    against an INSERT into its partition (touching) and, for the partition-scoped modes, into
    another (apart); the txnAppId append against a winner of the same application id."""
    touch = Layout(partitioned=True, deletion_vectors=False, overlap=True)
    apart = Layout(partitioned=True, deletion_vectors=False, overlap=False)
    ops = {op.name: op for op in DF_WRITES}
    insert_op = OPS[0]
    return [
        _case(insert_op, ops["df append"], touch),
        _case(insert_op, ops["df replaceWhere"], touch),
        _case(insert_op, ops["df replaceWhere"], apart),
        _case(insert_op, ops["df dynamic overwrite"], touch),
        _case(insert_op, ops["df dynamic overwrite"], apart),
        _case(insert_op, ops["df overwrite"], apart),
        _case(TXN_WINNER, ops["df txnAppId append"], touch),
        _case(insert_op, ops["df mergeSchema append"], touch),
    ]
