"""The stale pairs run on real deltalake releases, as data (field notes §3.3 names them).

A case is plain data so that the engine side (:mod:`tests.conflicts.deltars_harness`) can run
it in another interpreter, one with an older ``deltalake`` in its own virtualenv: each
operation is a small dict the harness turns into a ``deltalake`` call. ``known`` is what the
oldest release measured (0.25.5) gave, and ``known_from`` the releases from which the engine
gave something else, so a behaviour change in deltalake itself shows up as a failed test and
not only as a model disagreement.

``stratum`` groups the cases by what they exercise; the CI sample for an older release takes
the first case of every stratum and outcome (:func:`stratified_sample`), the full set runs
from ``scripts/fidelity_deltars.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deltaforensics.evidence.message_formats import (
    APPEND,
    DELETE_DELETE,
    DELETE_READ,
    METADATA,
    PROTOCOL,
    TRANSACTION,
)

D1, D2, D3, D4 = "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"

COMMITS = "commits"

Op = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    id: str
    stratum: str
    winner: Op
    loser: Op
    setup: dict[str, Any] = field(default_factory=dict)
    known: str
    # (first release, outcome from that release on), ascending; ``known`` holds before the first
    known_from: tuple[tuple[tuple[int, ...], str], ...] = ()

    def known_at(self, version: tuple[int, ...]) -> str:
        outcome = self.known
        for since, later in self.known_from:
            if version >= since:
                outcome = later
        return outcome

    def to_job(self) -> dict[str, Any]:
        return {"id": self.id, "winner": self.winner, "loser": self.loser, "setup": self.setup}


def append(date: str | None, lo: int, hi: int, app: tuple[str, int] | None = None) -> Op:
    return {"op": "append", "date": date, "ids": [lo, hi], "app": list(app) if app else None}


def delete(predicate: str | None = None) -> Op:
    return {"op": "delete", "predicate": predicate}


def update(predicate: str) -> Op:
    return {"op": "update", "predicate": predicate}


def merge(
    on: str, date: str, lo: int, hi: int, *, insert: bool = True, update_matched: bool = True
) -> Op:
    return {
        "op": "merge",
        "on": on,
        "source": {"date": date, "ids": [lo, hi]},
        "insert": insert,
        "update_matched": update_matched,
    }


def compact() -> Op:
    return {"op": "compact"}


def z_order() -> Op:
    return {"op": "z_order", "columns": ["user_id"]}


def add_column() -> Op:
    return {"op": "add_column", "name": "note"}


def set_properties(props: dict[str, str]) -> Op:
    return {"op": "set_properties", "properties": props}


def overwrite(date: str | None, lo: int, hi: int, predicate: str | None = None) -> Op:
    return {"op": "overwrite", "date": date, "ids": [lo, hi], "predicate": predicate}


P: dict[str, Any] = {}  # partitioned, one file per partition
P2: dict[str, Any] = {"d1_files": 2}  # d1 has two files (the O* rows)
U: dict[str, Any] = {"partitioned": False}
ON = "t.user_id = s.user_id AND t.date = s.date"
RETENTION = {"delta.logRetentionDuration": "interval 31 days"}


# the releases where the engine changed (the delta-rs rows of profiles/versions.py): from 1.2 an
# operation without a predicate reads every file; from 1.3 compaction removes fail no reader;
# 1.6.6 lets two compactions of the same file both commit
DOUBLE_COMPACTION = (((1, 2), DELETE_READ), ((1, 3), DELETE_DELETE), ((1, 6, 4), COMMITS))


def _c(id_: str, stratum: str, a: Op, b: Op, setup: dict[str, Any], known: str, **kw: Any) -> Case:
    return Case(id=id_, stratum=stratum, winner=a, loser=b, setup=setup, known=known, **kw)


CASES: tuple[Case, ...] = (
    _c("1 append/append same partition", "append", append(D1, 1000, 1003), append(D1, 2000, 2003), P, COMMITS),
    _c("1b append/append other partition", "append", append(D1, 1000, 1003), append(D4, 2000, 2003), P, COMMITS),
    _c("2 append no stats overlap/delete", "stats", append(D1, 1000, 1003), delete(f"date = '{D1}' AND user_id < 3"), P, COMMITS),
    _c("2' append stats overlap/delete", "stats", append(D1, 0, 3), delete(f"date = '{D1}' AND user_id < 3"), P, APPEND),
    _c("2b append d4/delete d1", "stats", append(D4, 0, 3), delete(f"date = '{D1}' AND user_id < 3"), P, COMMITS),
    _c("2c delete d1/append d1", "delete-read", delete(f"date = '{D1}' AND user_id < 3"), append(D1, 2000, 2003), P, COMMITS, known_from=(((1, 2), DELETE_READ),)),
    _c("3 delete/delete disjoint rows same file", "delete", delete(f"date = '{D1}' AND user_id < 3"), delete(f"date = '{D1}' AND user_id > 7"), P, APPEND),
    _c("3b identical deletes", "delete", delete(f"date = '{D1}' AND user_id < 3"), delete(f"date = '{D1}' AND user_id < 3"), P, DELETE_READ),
    _c("3c whole partition/rows", "delete", delete(f"date = '{D1}'"), delete(f"date = '{D1}' AND user_id < 3"), P, DELETE_READ),
    _c("4 delete d1/delete d2", "disjoint", delete(f"date = '{D1}' AND user_id < 3"), delete(f"date = '{D2}' AND user_id > 102"), P, COMMITS),
    _c("4b delete partition d3/delete d2 rows", "disjoint", delete(f"date = '{D3}'"), delete(f"date = '{D2}' AND user_id > 102"), P, COMMITS),
    _c("4c delete d2/non-partition predicate", "disjoint", delete(f"date = '{D2}' AND user_id > 102"), delete("country = 'US' AND user_id < 3"), P, COMMITS),
    _c("5 merge d1/append d1", "merge", merge(ON, D1, 0, 3), append(D1, 2000, 2003), P, COMMITS, known_from=(((1, 2), DELETE_READ),)),
    _c("5b append d1/merge d1", "merge", append(D1, 1000, 1003), merge(ON, D1, 0, 3), P, APPEND),
    _c("5c append d4/merge without literal", "merge", append(D4, 1000, 1003), merge(ON, D1, 0, 3), P, APPEND),
    _c("5d append d4/merge with literal", "merge", append(D4, 1000, 1003), merge(f"t.user_id = s.user_id AND t.date = '{D1}' AND t.date = s.date", D1, 0, 3), P, COMMITS),
    _c("5e append d4/insert-only merge d4", "merge", append(D4, 1000, 1003), merge(ON, D4, 5000, 5003, update_matched=False), P, APPEND),
    _c("5f merge d1/merge d1", "merge", merge(ON, D1, 0, 3), merge(ON, D1, 3, 6), P, APPEND),
    _c("6c update d2/update d1", "update", update(f"date = '{D2}'"), update(f"date = '{D1}'"), P, COMMITS),
    _c("6d update d1/update d1", "update", update(f"date = '{D1}' AND user_id < 3"), update(f"date = '{D1}' AND user_id > 7"), P, APPEND),
    _c("6b z_order/update d1", "optimize", z_order(), update(f"date = '{D1}'"), P2, APPEND),
    _c("6e z_order/delete d1", "optimize", z_order(), delete(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    _c("O1 update d1/compact", "optimize", update(f"date = '{D1}' AND user_id < 3"), compact(), P2, DELETE_DELETE, known_from=(((1, 2), DELETE_READ),)),
    _c("O2 compact/update d1", "optimize", compact(), update(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    _c("O3 compact/append d1", "optimize", compact(), append(D1, 2000, 2003), P2, COMMITS, known_from=(((1, 2), DELETE_READ), ((1, 3), COMMITS))),
    _c("O4 append d1/compact", "optimize", append(D1, 2000, 2003), compact(), P2, COMMITS),
    _c("O5 compact/compact (duplicates data)", "compaction-double-delete", compact(), compact(), P2, DELETE_DELETE, known_from=DOUBLE_COMPACTION),
    _c("O5z z_order/z_order (duplicates data)", "compaction-double-delete", z_order(), z_order(), P2, DELETE_DELETE, known_from=DOUBLE_COMPACTION),
    _c("O5u unpartitioned compact/compact", "compaction-double-delete", compact(), compact(), {"partitioned": False, "d1_files": 2}, DELETE_DELETE, known_from=DOUBLE_COMPACTION),
    _c("O6 compact/delete d1", "optimize", compact(), delete(f"date = '{D1}' AND user_id < 3"), P2, APPEND),
    _c("O7 delete d1/compact", "optimize", delete(f"date = '{D1}' AND user_id < 3"), compact(), P2, DELETE_DELETE, known_from=(((1, 2), DELETE_READ),)),
    _c("7 add column/append", "metadata", add_column(), append(D1, 2000, 2003), P, METADATA),
    _c("7b set properties/append", "metadata", set_properties(RETENTION), append(D1, 2000, 2003), P, METADATA),
    _c("7c append/add column", "metadata", append(D1, 2000, 2003), add_column(), P, COMMITS),
    _c("7d set properties/delete", "metadata", set_properties(RETENTION), delete(f"date = '{D1}' AND user_id < 3"), P, METADATA),
    _c("7e add column/add column", "metadata", add_column(), add_column(), P, METADATA),
    _c("P1 enable DVs/append d4", "protocol", set_properties({"delta.enableDeletionVectors": "true"}), append(D4, 2000, 2003), P, PROTOCOL),
    _c("8 overwrite/append", "overwrite", overwrite(D1, 5000, 5004), append(D1, 2000, 2003), P, COMMITS, known_from=(((1, 2), DELETE_READ),)),
    _c("8b append/overwrite (lost overwrite)", "overwrite", append(D1, 1000, 1003), overwrite(D1, 5000, 5004), P, COMMITS),
    _c("8c replaceWhere d1/append d1", "overwrite", overwrite(D1, 5000, 5004, f"date = '{D1}'"), append(D1, 2000, 2003), P, COMMITS, known_from=(((1, 2), DELETE_READ),)),
    _c("8d append d1/replaceWhere d1", "overwrite", append(D1, 1000, 1003), overwrite(D1, 5000, 5004, f"date = '{D1}'"), P, APPEND),
    _c("8e append d1/replaceWhere d3", "overwrite", append(D1, 1000, 1003), overwrite(D3, 5000, 5004, f"date = '{D3}'"), P, COMMITS),
    _c("8f overwrite/overwrite", "overwrite", overwrite(D1, 5000, 5004), overwrite(D2, 6000, 6004), P, DELETE_DELETE, known_from=(((1, 2), DELETE_READ),)),
    _c("T1 same app id", "app-id", append(D1, 1000, 1003, ("appA", 1)), append(D1, 2000, 2003, ("appA", 2)), P, TRANSACTION),
    _c("T2 different app ids", "app-id", append(D1, 1000, 1003, ("appA", 1)), append(D1, 2000, 2003, ("appB", 1)), P, COMMITS),
    _c("U1 unpartitioned append/append", "unpartitioned", append(D1, 1000, 1003), append(D1, 2000, 2003), U, COMMITS),
    _c("U2 unpartitioned append/delete no overlap", "unpartitioned", append(D1, 1000, 1003), delete("user_id < 3"), U, COMMITS),
    _c("U3 unpartitioned delete/delete disjoint", "unpartitioned", delete("user_id < 3"), delete("user_id > 7"), U, APPEND),
    _c("U4 unpartitioned update/compact", "unpartitioned", update("user_id < 3"), compact(), {"partitioned": False, "d1_files": 2}, DELETE_DELETE, known_from=(((1, 2), DELETE_READ),)),
    _c("U5 unpartitioned merge/append", "unpartitioned", merge("t.user_id = s.user_id", D1, 0, 3), append(D1, 2000, 2003), U, COMMITS, known_from=(((1, 2), DELETE_READ),)),
    _c("U6 unpartitioned append/merge", "unpartitioned", append(D1, 1000, 1003), merge("t.user_id = s.user_id", D1, 0, 3), U, APPEND),
    _c("I1 snapshotIsolation append/delete overlap", "isolation", append(D1, 0, 3), delete(f"date = '{D1}' AND user_id < 3"), {"configuration": {"delta.isolationLevel": "snapshotIsolation"}}, COMMITS),
    _c("I2 Spark spelling WriteSerializable is ignored", "isolation", append(D1, 0, 3), delete(f"date = '{D1}' AND user_id < 3"), {"configuration": {"delta.isolationLevel": "WriteSerializable"}}, APPEND),
)  # fmt: skip


def release_version(release: str) -> tuple[int, ...]:
    """``(1, 6, 6)`` for ``"1.6.6"``: releases compare as the profile rows' bounds do."""
    return tuple(int(x) for x in release.split("."))


def stratified_sample(
    version: tuple[int, ...], cases: tuple[Case, ...] = CASES
) -> tuple[Case, ...]:
    """The first case of every stratum and known outcome at ``version``: each kind of
    operation, once committing and once per exception it raises there."""
    seen: set[tuple[str, str]] = set()
    out: list[Case] = []
    for case in cases:
        key = (case.stratum, case.known_at(version))
        if key not in seen:
            seen.add(key)
            out.append(case)
    return tuple(out)
