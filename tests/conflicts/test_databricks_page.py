"""The conflict matrices of the Databricks page, cell by cell, as real ``_delta_log`` folders.

The page is "Isolation levels and write conflicts on Azure Databricks"
(``/work/shared/docs/databricks-isolation-levels-and-write-conflicts.txt``). It has two
matrices, "Write conflicts with row-level concurrency" and "Write conflicts without row-level
concurrency", each with the rows and columns INSERT (1) / UPDATE, DELETE, MERGE INTO /
OPTIMIZE; a cell says whether the pair can conflict, per isolation level. Every case id names
its matrix, row and column (``with-rlc[DML×INSERT]``), then the isolation level, the table
layout, the loser and its winner, and the variant.

How the page's words become cases:

- A cell is a pair of operations; each is checked in both orders (the loser is the first
  named, read before its winner committed). UPDATE, DELETE and MERGE INTO are each a case, and
  OPTIMIZE is checked without and with ZORDER BY ("can conflict when ZORDER BY is used", by
  either side).
- An INSERT loser never conflicts: footnote (1) says every INSERT in the matrices is an append
  that reads nothing ("When does Delta Lake commit without reading the table?").
- "Can conflict" is checked twice: *touching* (the two modify the same row with row-level
  concurrency, the same files without it) must conflict; *disjoint* (different rows of the same
  file with row-level concurrency, different partitions without it: "Avoid conflicts using
  partitioning and disjoint command conditions") must commit. "Cannot conflict" must commit in
  every variant. An unpartitioned table without row-level concurrency has no disjoint variant:
  the page says files are made disjoint by partitioning.
- Which tables have row-level concurrency is the page's list: deletion vectors without
  partitions, or liquid clustering unless deletion vectors are disabled (a liquid table with
  ``delta.enableDeletionVectors=false`` is a "without" layout here). A partitioned table with
  deletion vectors is the "without" matrix's "tables with deletion vectors enabled" case.
- Same rows are what the log can show: a DELETE/UPDATE condition or a MERGE's explicit
  predicate on the target ("MERGE commands must use an explicit predicate on the target table",
  Limitations) naming the same key, and the statistics of the files a winner wrote.

The profile is Databricks 14.3 (row-level concurrency without Photon for MERGE, per the page).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.conflicts.checker import COMMITS
from deltaforensics.profiles import databricks
from tests.conflicts.scenarios import COLUMNS, DV_PROTOCOL, U_COLUMNS, Variant, load_race
from tests.support import LogBuilder

DBR = Variant("dbr", databricks((14, 3)), "databricks-14.3")
S, WS = "Serializable", "WriteSerializable"
INSERT, UPDATE, DELETE, MERGE, OPTIMIZE, ZORDER = (
    "INSERT", "UPDATE", "DELETE", "MERGE", "OPTIMIZE", "OPTIMIZE ZORDER BY",
)  # fmt: skip
OPS = (INSERT, UPDATE, DELETE, MERGE, OPTIMIZE, ZORDER)
DML = frozenset({UPDATE, DELETE, MERGE})
TOUCHING, DISJOINT = "touching", "disjoint"
HERE, THERE = "2024-01-01", "2024-01-02"  # the loser's partition, the disjoint winner's
SAME_ROW, OTHER_ROW, NO_ROW = 5, 7, 500  # ids: f holds 1..100, g 101..200, h 201..300


@dataclass(frozen=True, slots=True)
class Layout:
    name: str
    partitioned: bool
    deletion_vectors: bool
    liquid: bool = False

    @property
    def row_level_concurrency(self) -> bool:
        """The page's list: "Tables with deletion vectors enabled and without partitioning" and
        "Tables with liquid clustering, unless you have disabled deletion vectors"."""
        return self.deletion_vectors and not self.partitioned


LAYOUTS = (
    Layout("unpartitioned-dv", partitioned=False, deletion_vectors=True),
    Layout("liquid-dv", partitioned=False, deletion_vectors=True, liquid=True),
    Layout("partitioned-dv", partitioned=True, deletion_vectors=True),
    Layout("partitioned", partitioned=True, deletion_vectors=False),
    Layout("unpartitioned", partitioned=False, deletion_vectors=False),
    Layout("liquid-dv-disabled", partitioned=False, deletion_vectors=False, liquid=True),
)


def _label(op: str) -> str:
    """The page's row/column label of an operation."""
    return "DML" if op in DML else "OPTIMIZE" if op in (OPTIMIZE, ZORDER) else "INSERT"


def page_says(layout: Layout, loser: str, winner: str, iso: str, variant: str) -> bool:
    """Whether the page says the loser fails (True) or commits, for one variant of its cell."""
    if loser == INSERT:
        return False  # footnote (1): an INSERT reads nothing, so it cannot conflict
    can = _can_conflict(layout, {loser, winner}, iso)
    return can and variant == TOUCHING


def _can_conflict(layout: Layout, pair: set[str], iso: str) -> bool:
    labels = {_label(op) for op in pair}
    if labels == {"INSERT"} or labels == {"INSERT", "OPTIMIZE"}:
        return False  # INSERT × INSERT, OPTIMIZE × INSERT: "Cannot conflict" (both matrices)
    if labels == {"INSERT", "DML"}:
        return iso == S  # "Cannot conflict in WriteSerializable. Can conflict in Serializable"
    if labels == {"DML"}:
        return True  # same row (with) / "in Serializable and WriteSerializable" (without)
    # OPTIMIZE × DML and OPTIMIZE × OPTIMIZE: with row-level concurrency "Can conflict when
    # ZORDER BY is used. Cannot conflict otherwise."; without it "Cannot conflict with in
    # tables with deletion vectors enabled, unless ZORDER BY is used. Can conflict otherwise."
    return ZORDER in pair or not layout.deletion_vectors


def _variants(layout: Layout, loser: str, winner: str) -> tuple[str, ...]:
    if layout.partitioned:
        return (TOUCHING, DISJOINT)
    if layout.row_level_concurrency and loser in DML and (winner in DML or winner == INSERT):
        return (TOUCHING, DISJOINT)  # different rows of the same file
    return (TOUCHING,)


def _cases() -> Iterator[Any]:
    for layout in LAYOUTS:
        matrix = "with-rlc" if layout.row_level_concurrency else "without-rlc"
        for loser in OPS:
            for winner in OPS:
                row, col = sorted((_label(loser), _label(winner)), key=_PAGE_ORDER.index)[::-1]
                for iso in (S, WS):
                    for variant in _variants(layout, loser, winner):
                        cid = (f"{matrix}[{row}×{col}]-{'S' if iso == S else 'WS'}-{layout.name}-"
                               f"{loser}-after-{winner}-{variant}").replace(" ", "_")  # fmt: skip
                        fails = page_says(layout, loser, winner, iso, variant)
                        yield pytest.param(layout, loser, winner, iso, variant, fails, id=cid)


_PAGE_ORDER = ("INSERT", "DML", "OPTIMIZE")  # the page's row and column order
CASES = list(_cases())


# --- the race, written commit by commit ------------------------------------------------------


def _ids(low: int, high: int) -> dict[str, Any]:
    return {"minValues": {"id": low}, "maxValues": {"id": high}, "nullCount": {"id": 0}}


class Race:
    """One table of ``layout`` with three files (ids 1-100, 101-200, 201-300) per partition,
    and the statements of the race as the commits Databricks writes for them."""

    def __init__(self, path: Path, layout: Layout, iso: str) -> None:
        conf = {"delta.isolationLevel": iso}
        protocol: dict[str, Any] | None = None
        if layout.deletion_vectors or layout.liquid:
            conf["delta.enableDeletionVectors"] = str(layout.deletion_vectors).lower()
            protocol = dict(DV_PROTOCOL)
        if layout.liquid:
            assert protocol is not None
            protocol["writerFeatures"] = [*protocol["writerFeatures"], "domainMetadata",
                                          "clustering"]  # fmt: skip
        self.layout = layout
        self.b = LogBuilder(path, columns=COLUMNS if layout.partitioned else U_COLUMNS,
                            partition_by=["date"] if layout.partitioned else [],
                            writer=DBR.writer, configuration=conf, protocol=protocol)  # fmt: skip
        clustering = (
            [self.b.domain("delta.clustering", {"clusteringColumns": [["id"]]})]
            if layout.liquid
            else []
        )
        self.b.create(actions=clustering)
        parts = (HERE, THERE) if layout.partitioned else (None,)
        self.r = self.b.write(add=[
            self.b.file(self._spec(p), rows=100, stats=_ids(100 * i + 1, 100 * i + 100))
            for p in parts for i in range(3)
        ])  # fmt: skip

    def _spec(self, part: str | None) -> str | None:
        return f"date={part}" if part else None

    def _files(self, part: str | None) -> list[dict[str, Any]]:
        """f, g, h of ``part`` as they were at the loser's read version."""
        files = self.b.live_files(self._spec(part), version=self.r)
        return sorted(files, key=lambda f: f["stats"])

    def _where(self, part: str | None, key: int) -> str:
        cond = f"id = {key}"
        return f"date = '{part}' AND {cond}" if part else cond

    def run(self, op: str, part: str | None, key: int, *, compacts: str = "fg", **o: Any) -> int:
        """``op`` on row ``key`` of file f in ``part`` (OPTIMIZE: compacting ``compacts``)."""
        b, f = self.b, self._files(part)[0]
        dv = self.layout.deletion_vectors
        if op == INSERT:
            return b.write(add=[b.file(self._spec(part), rows=1, stats=_ids(key, key))], **o)
        if op in (OPTIMIZE, ZORDER):
            inputs = [self._files(part)["fgh".index(c)] for c in compacts]
            where = f"date = '{part}'" if part else None
            return b.optimize(where, zorder=["id"] if op == ZORDER else (), remove=inputs, **o)
        if dv:  # the row is marked deleted in f; an UPDATE/MERGE writes its new version apart
            adds = [b.with_dv(f, cardinality=1)]
            if op != DELETE:
                adds.append(b.file(self._spec(part), rows=1, stats=_ids(key, key)))
        else:  # copy-on-write: f is rewritten without (or with the new version of) the row
            adds = [b.file(self._spec(part), rows=100 - (op == DELETE), stats=_ids(1, 100))]
        if op == MERGE:
            on = f"t.id = s.id AND t.id = {key}" + (f" AND t.date = '{part}'" if part else "")
            return b.merge(on, remove=[f], add=adds, **o)
        fn = b.delete if op == DELETE else b.update
        return fn(self._where(part, key), remove=[f], add=adds, **o)


def build(path: Path, layout: Layout, loser: str, winner: str, iso: str, variant: str) -> Any:
    race = Race(path, layout, iso)
    here = HERE if layout.partitioned else None
    there = THERE if layout.partitioned and variant == DISJOINT else here
    w_key = NO_ROW if winner == INSERT and variant == DISJOINT else SAME_ROW
    l_key = OTHER_ROW if variant == DISJOINT and not layout.partitioned else SAME_ROW
    race.run(winner, there, w_key, compacts="fg")
    race.run(loser, here, l_key, compacts="fh", read_version=race.r)
    return load_race(path, DBR, race.r)


@pytest.mark.parametrize(("layout", "loser", "winner", "iso", "variant", "fails"), CASES)
def test_page_cell(
    tmp_path: Path, layout: Layout, loser: str, winner: str, iso: str, variant: str, fails: bool
) -> None:
    race = build(tmp_path, layout, loser, winner, iso, variant)
    verdict = race.check()
    assert (verdict.outcome != COMMITS) is fails, verdict.reason


def test_every_cell_of_both_matrices_is_encoded() -> None:
    """Both matrices, every row × column (lower triangle), both isolation levels."""
    ids = [p.id for p in CASES]
    assert len(ids) == len(set(ids))
    for matrix in ("with-rlc", "without-rlc"):
        for row, col in (("INSERT", "INSERT"), ("DML", "INSERT"), ("DML", "DML"),
                         ("OPTIMIZE", "INSERT"), ("OPTIMIZE", "DML"), ("OPTIMIZE", "OPTIMIZE")):  # fmt: skip
            for iso in ("S", "WS"):
                assert any(i.startswith(f"{matrix}[{row}×{col}]-{iso}-") for i in ids), (
                    matrix, row, col, iso,
                )  # fmt: skip
