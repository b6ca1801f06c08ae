"""reconstruct_transactions' per-history memos and collector pause change nothing it returns."""

from __future__ import annotations

import gc
import pickle
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from deltaforensics.analysis import analyze_loaded, load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.model.collector import collector_paused
from deltaforensics.replay import Replay
from deltaforensics.transactions import (
    FLAT_NAMES,
    effective_isolation,
    reads_of,
    reconstruct_transactions,
)
from tests.conftest import corpus_tables
from tests.support import LogBuilder

_STATEMENT = {"predicate": "date = '2024-01-01' AND id > 5"}
_OTHER_STATEMENT = {"predicate": "date = '2024-01-02'"}
_APPEND = {"mode": "Append", "partitionBy": '["date"]'}


def _history(path: Path) -> Replay:
    """The same few statements recorded again and again: by two engines, with and without
    files, before and after the table's isolation level and partitioning change."""
    b = LogBuilder(path, columns={"id": "long", "date": "string"}, partition_by=["date"])
    b.create()
    b.write(add=[b.file("date=2024-01-01"), b.file("date=2024-01-02")])
    # the same commitInfo fields whoever writes, so only the engine tells the commits apart
    variants = [
        {"isolationLevel": level, "isBlindAppend": blind}
        for level in ("Serializable", None)
        for blind in (False, True, None)
    ]
    for writer in ("spark-3.2.0", "delta-rs-1.6.6", "spark-3.2.0"):
        for extra in variants:
            options: Any = {"writer": writer, "commit_info_extra": extra}
            b.commit("DELETE", parameters=_STATEMENT, remove=b.live_files()[:1], **options)
            b.commit("DELETE", parameters=_STATEMENT, add=[b.file("date=2024-01-02")], **options)
            b.commit("DELETE", parameters=_STATEMENT, **options)
            b.commit("DELETE", parameters=_OTHER_STATEMENT, **options)
            b.commit("WRITE", parameters=_APPEND, remove=b.live_files()[:1], **options)
            b.commit("WRITE", parameters=_APPEND, **options)
            for operation in ("WRITE", "STREAMING UPDATE"):
                b.commit(operation, parameters=_APPEND, add=[b.file("date=2024-01-02")], **options)
    bare = dict.fromkeys(
        ("operation", "operationParameters", "isBlindAppend", "isolationLevel", "engineInfo")
    )
    for nameless in ({"commit_info_extra": bare}, {"omit_commit_info": True}, {}):
        b.commit("WRITE", parameters=_APPEND, add=[b.file("date=2024-01-02")], **nameless)  # type: ignore[arg-type]
    no_level: Any = {"commit_info_extra": {"isolationLevel": None}}
    b.set_properties({"delta.isolationLevel": "Serializable"})
    b.commit("DELETE", parameters=_STATEMENT, remove=b.live_files()[:1], **no_level)
    b.commit(
        "REPLACE TABLE",
        parameters={"partitionBy": "[]"},
        metadata={**b.metadata, "partitionColumns": []},
        remove=b.live_files(),
        add=[b.file("date=2024-01-03")],
    )
    b.commit("DELETE", parameters=_STATEMENT, remove=b.live_files()[:1], **no_level)
    return load(open_store(str(path)), mode="history").replay


def test_repeated_statements_read_as_if_each_were_alone(tmp_path: Path) -> None:
    rep = _history(tmp_path / "t")
    txs = reconstruct_transactions(rep)
    assert sum(t.operation == "DELETE" for t in txs) == 3 * 6 * 4 + 2
    for t in txs:
        unnamed = "UNKNOWN" if t.has_commit_info else "TRANSACTION"
        assert t.operation == (t.commit_info.get("operation") or unnamed)
    assert {t.operation for t in txs} >= {"UNKNOWN", "TRANSACTION"}
    repeated = [
        t for t in txs if t.operation in ("DELETE", "WRITE", "STREAMING UPDATE") and t.version
    ]
    assert len({(t.profile.engine, t.read_reason, t.isolation_source) for t in repeated}) > 3
    for t in repeated:
        assert t.version is not None
        md = rep.metadata_at(t.version - 1 if t.read_version is None else t.read_version)
        alone = reads_of(
            t.operation, t.parameters, t.is_blind_append, t.profile, md, t.added, t.removed
        )
        assert (
            t.blind,
            t.read_predicate,
            t.full_predicate,
            t.read_whole_table,
            t.registers_read_files,
            t.read_reason,
            t.confidence,
        ) == (
            alone.blind,
            alone.partition_predicate,
            alone.full_predicate,
            alone.whole_table,
            alone.registers_files,
            alone.reason,
            alone.confidence,
        ), t.version
        recorded = t.commit_info.get("isolationLevel")
        assert (t.isolation, t.isolation_source) == effective_isolation(
            recorded, md.configuration, t.profile
        ), t.version
        assert t.partition_columns == md.partition_columns


def test_transactions_share_no_mutable_values(tmp_path: Path) -> None:
    txs = reconstruct_transactions(_history(tmp_path / "t"))
    for field in ("physical_names", "parameters", "commit_info", "metadata_change_values"):
        values = [getattr(t, field) for t in txs]
        assert len({id(v) for v in values}) == len(values), field


def test_the_collector_is_back_after_reconstructing(tmp_path: Path) -> None:
    rep = _history(tmp_path / "t")
    assert gc.isenabled()
    reconstruct_transactions(rep)
    assert gc.isenabled()


def test_the_collector_is_back_after_an_analysis(tmp_path: Path) -> None:
    rep = _history(tmp_path / "t")
    loaded = load(open_store(rep.uri), mode="history")
    assert gc.isenabled()
    analyze_loaded(loaded)
    assert gc.isenabled()


def test_a_paused_collector_comes_back_as_it_was() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("x")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # whoever disabled it decides when it runs again
    finally:
        gc.enable()


def test_file_rows_cut_when_read_are_the_commits_rows() -> None:
    """A transaction's adds and removes, cut from the history's frames only when read, are
    the commit's own file actions in log order; ``file_counts`` (which cuts nothing) counts
    them; a copy made by ``replace`` and a pickled one hold the same rows."""

    checked = 0
    for table in corpus_tables():
        try:
            rep = load(open_store(str(table)), mode="history").replay
        except DeltaForensicsError:
            continue
        files = rep.frames.files.filter(pl.col("source") == "commit")
        for t in reconstruct_transactions(rep):
            counts = t.file_counts
            copy = t.revised(operation=t.operation)
            mine = files.filter(pl.col("version") == t.version)
            for frame, action in ((t.added, "add"), (t.removed, "remove")):
                assert frame.equals(mine.filter(pl.col("action") == action)), (table, t.version)
            assert counts == (t.added.height, t.removed.height)
            assert copy.added.equals(t.added) and copy.removed.equals(t.removed)
            thawed = pickle.loads(pickle.dumps(t))
            assert thawed.removed.equals(t.removed)
            checked += 1
    assert checked > 400  # every commit of the corpus


def test_flat_names_read_and_revise_the_parts_that_hold_them(tmp_path: Path) -> None:
    t = reconstruct_transactions(_history(tmp_path / "t"))[-1]
    for name, path in FLAT_NAMES.items():
        held: Any = t
        for step in path:
            held = getattr(held, step)
        assert getattr(t, name) is held, name
        marker = object()
        revised = t.revised(**{name: marker})
        assert getattr(revised, name) is marker, name
        assert getattr(t, name) is held, name  # the original is left as it was
