"""The engine side of the delta-rs agreement tests: run stale pairs on a real ``deltalake``.

Run as a script by whichever interpreter has the ``deltalake`` release under test (the
project's own, or a cached virtualenv of an older release, :mod:`tests.conflicts.deltars_envs`),
so it imports only the standard library, ``deltalake`` and ``pyarrow``, never deltaforensics:

    python deltars_harness.py JOB.json

The job names a work folder and the cases (:meth:`tests.conflicts.deltars_cases.Case.to_job`).
For each case, in ``<work>/<n>/``: ``real`` is set up to v2 (plus extra d1 files), copied to
``shadow``; the winner commits on ``real`` from a fresh snapshot; the loser then runs on
``real`` from a snapshot taken before the winner, and the engine decides (field notes §3.1:
a ``DeltaTable`` object keeps its snapshot, so it is stale). The loser also runs alone on
``shadow`` so its would-be commit exists even when the engine refused it. ``results.json``
records the outcome, the exception text and the versions; the main process analyses the logs.

The calls differ across releases only where the API did: 0.x ``write_deltalake`` takes an
``engine`` argument (the Rust engine is the one whose commits we model; 1.x has only it), and
0.x ``write_deltalake`` given a ``DeltaTable`` first brings it up to date
(``table.update_incremental()``, deltalake 0.25 ``writer.py``), so a 0.x write races only
between that refresh and its commit. The harness puts the winner in that window by turning
the refresh off on the stale object: the commit path and its conflict checker run unchanged.
"""

from __future__ import annotations

import inspect
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
from deltalake.exceptions import CommitFailedError, DeltaError
from deltalake.schema import Field, PrimitiveType

# delta-rs's CommitConflictError texts (crates/core/src/kernel/transaction/conflict_checker.rs)
MESSAGES = {
    "a concurrent transactions added new data": "ConcurrentAppendException",
    "deleted data this operation read": "ConcurrentDeleteReadException",
    "deleted the same data": "ConcurrentDeleteDeleteException",
    "Metadata changed since last commit": "MetadataChangedException",
    "Protocol changed since last commit": "ProtocolChangedException",
    "Concurrent transaction failed": "ConcurrentTransactionException",
}
D1, D2, D3, D4 = "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"
_RUST_ENGINE = (
    {"engine": "rust"} if "engine" in inspect.signature(write_deltalake).parameters else {}
)


def rows(date: str | None, ids: range, country: str = "US") -> pa.Table:
    n = len(ids)
    data: dict[str, Any] = {
        "user_id": pa.array(list(ids), pa.int32()),
        "country": pa.array([country] * n),
        "value": pa.array([float(i) * 1.5 for i in ids]),
    }
    if date is not None:
        data["date"] = pa.array([date] * n)
    return pa.table(data)


def write(target: Any, data: pa.Table, **kw: Any) -> None:
    write_deltalake(target, data, **_RUST_ENGINE, **kw)


def setup(
    path: str,
    *,
    partitioned: bool = True,
    d1_files: int = 1,
    configuration: dict[str, str] | None = None,
) -> None:
    """v0..v2 (plus extra d1 files): d1 holds user_id 0-9, d2 100-104, d3 200-204."""
    kw: dict[str, Any] = {"partition_by": ["date"]} if partitioned else {}
    if configuration:
        kw["configuration"] = configuration
    write(path, rows(D1, range(10)), **kw)
    write(path, rows(D2, range(100, 105), "DE"), mode="append")
    write(path, rows(D3, range(200, 205), "FR"), mode="append")
    for i in range(d1_files - 1):
        write(path, rows(D1, range(10 + 10 * i, 20 + 10 * i)), mode="append")


def run(op: dict[str, Any], dt: DeltaTable) -> None:
    """One operation on ``dt``'s snapshot."""
    kind = op["op"]
    if kind == "append":
        app = op.get("app")
        props = CommitProperties(app_transactions=[Transaction(app[0], app[1])]) if app else None
        write(dt, rows(op["date"], range(*op["ids"])), mode="append", commit_properties=props)
    elif kind == "overwrite":
        write(dt, rows(op["date"], range(*op["ids"])), mode="overwrite", predicate=op["predicate"])
    elif kind == "delete":
        dt.delete(op["predicate"])
    elif kind == "update":
        dt.update(updates={"value": "value * 2"}, predicate=op["predicate"])
    elif kind == "merge":
        source = rows(op["source"]["date"], range(*op["source"]["ids"]))
        merge_into(dt, source, op["on"], insert=op["insert"], update_matched=op["update_matched"])
    elif kind == "compact":
        dt.optimize.compact()
    elif kind == "z_order":
        dt.optimize.z_order(op["columns"])
    elif kind == "add_column":
        dt.alter.add_columns([Field(op["name"], PrimitiveType("string"), nullable=True)])
    elif kind == "set_properties":
        dt.alter.set_table_properties(op["properties"])
    else:
        raise ValueError(f"unknown operation {kind!r}")


def latest_version(path: str) -> int:
    """From the listing: a table whose new protocol this release cannot read still has one."""
    return max(int(p.stem) for p in (Path(path) / "_delta_log").glob("*.json"))


def merge_into(
    dt: DeltaTable, source: pa.Table, on: str, *, insert: bool, update_matched: bool
) -> None:
    m = dt.merge(source, on, source_alias="s", target_alias="t")
    if update_matched:
        m = m.when_matched_update_all()
    if insert:
        m = m.when_not_matched_insert_all()
    m.execute()


def classify(exc: BaseException) -> str:
    text = str(exc)
    for needle, name in MESSAGES.items():
        if needle in text:
            return name
    return f"unclassified: {text[:80]}"


def run_case(folder: Path, case: dict[str, Any]) -> dict[str, Any]:
    real, shadow = str(folder / "real"), str(folder / "shadow")
    setup(real, **case["setup"])
    base = DeltaTable(real).version()
    shutil.copytree(real, shadow)
    stale = DeltaTable(real)
    stale.update_incremental = lambda: None  # type: ignore[method-assign]
    run(case["winner"], DeltaTable(real))
    winner_version = latest_version(real)
    message = ""
    try:
        run(case["loser"], stale)
        outcome = "commits"
    except CommitFailedError as exc:
        outcome, message = classify(exc), str(exc)
    except DeltaError as exc:  # refused before the conflict checker ran
        outcome, message = f"refused: {type(exc).__name__}", str(exc)
    run(case["loser"], DeltaTable(shadow))
    return {
        "id": case["id"],
        "folder": folder.name,
        "read_version": base,
        "winner_version": winner_version,
        "outcome": outcome,
        "message": message,
        "shadow_version": latest_version(shadow),
    }


# ----- the same operations as callables, for tests that drive deltalake in-process -----
# (tests/attempts/test_attempts_deltars.py and others; ``dt`` is the table whose snapshot the
# operation uses)

Op = Callable[[DeltaTable, str], Any]


def _op(spec: dict[str, Any]) -> Op:
    return lambda dt, _path: run(spec, dt)


def append(date: str | None, ids: range, *, app: tuple[str, int] | None = None) -> Op:
    return _op({"op": "append", "date": date, "ids": [ids.start, ids.stop], "app": app})


def delete(predicate: str | None = None) -> Op:
    return _op({"op": "delete", "predicate": predicate})


def update(predicate: str) -> Op:
    return _op({"op": "update", "predicate": predicate})


def merge(on: str, source: pa.Table, *, insert: bool = True, update_matched: bool = True) -> Op:
    return lambda dt, _path: merge_into(
        dt, source, on, insert=insert, update_matched=update_matched
    )


def compact() -> Op:
    return _op({"op": "compact"})


def z_order() -> Op:
    return _op({"op": "z_order", "columns": ["user_id"]})


def add_column() -> Op:
    return _op({"op": "add_column", "name": "note"})


def set_properties(props: dict[str, str]) -> Op:
    return _op({"op": "set_properties", "properties": props})


def overwrite(date: str | None, ids: range, predicate: str | None = None) -> Op:
    spec = {"op": "overwrite", "date": date, "ids": [ids.start, ids.stop], "predicate": predicate}
    return _op(spec)


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    work = Path(job["work"])
    results = []
    for n, case in enumerate(job["cases"]):
        folder = work / f"{n:03d}"
        folder.mkdir(parents=True)
        results.append(run_case(folder, case))
    out = {"deltalake": deltalake.__version__, "pyarrow": pa.__version__, "results": results}
    (work / "results.json").write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
