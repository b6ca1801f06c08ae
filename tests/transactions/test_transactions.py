"""reconstruct_transactions' per-history memos and collector pause change nothing it returns."""

from __future__ import annotations

import gc
import pickle
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from deltaforensics.analysis import analyze_loaded, load, open_store
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.model.collector import collector_paused
from deltaforensics.replay import Replay
from deltaforensics.transactions import (
    Transaction,
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
    assert sum(t.provenance.operation == "DELETE" for t in txs) == 3 * 6 * 4 + 2
    for t in txs:
        unnamed = "UNKNOWN" if t.provenance.has_commit_info else "TRANSACTION"
        assert t.provenance.operation == (t.provenance.commit_info.get("operation") or unnamed)
    assert {t.provenance.operation for t in txs} >= {"UNKNOWN", "TRANSACTION"}
    repeated = [
        t
        for t in txs
        if t.provenance.operation in ("DELETE", "WRITE", "STREAMING UPDATE") and t.version
    ]
    assert (
        len(
            {
                (t.provenance.profile.engine, t.read.reads.reason, t.read.isolation_source)
                for t in repeated
            }
        )
        > 3
    )
    for t in repeated:
        assert t.version is not None
        md = rep.metadata_at(t.version - 1 if t.read.version is None else t.read.version)
        alone = reads_of(
            t.provenance.operation,
            t.provenance.parameters,
            t.provenance.is_blind_append,
            t.provenance.profile,
            md,
            t.written.added,
            t.written.removed,
        )
        assert (
            t.read.reads.blind,
            t.read.reads.partition_predicate,
            t.read.reads.full_predicate,
            t.read.reads.whole_table,
            t.read.reads.registers_files,
            t.read.reads.reason,
            t.read.reads.confidence,
        ) == (
            alone.blind,
            alone.partition_predicate,
            alone.full_predicate,
            alone.whole_table,
            alone.registers_files,
            alone.reason,
            alone.confidence,
        ), t.version
        recorded = t.provenance.commit_info.get("isolationLevel")
        assert (t.read.isolation, t.read.isolation_source) == effective_isolation(
            recorded, md.configuration, t.provenance.profile
        ), t.version
        assert t.table.partition_columns == md.partition_columns


def test_transactions_share_no_mutable_values(tmp_path: Path) -> None:
    txs = reconstruct_transactions(_history(tmp_path / "t"))
    mutable: dict[str, Callable[[Transaction], object]] = {
        "table.physical_names": lambda t: t.table.physical_names,
        "provenance.parameters": lambda t: t.provenance.parameters,
        "provenance.commit_info": lambda t: t.provenance.commit_info,
        "written.metadata_change.values": lambda t: t.written.metadata_change.values,
    }
    for field, value_of in mutable.items():
        values = [value_of(t) for t in txs]
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
            counts = t.written.file_counts
            copy = replace(t, provenance=replace(t.provenance))
            mine = files.filter(pl.col("version") == t.version)
            for frame, action in ((t.written.added, "add"), (t.written.removed, "remove")):
                assert frame.equals(mine.filter(pl.col("action") == action)), (table, t.version)
            assert counts == (t.written.added.height, t.written.removed.height)
            assert copy.written.added.equals(t.written.added)
            assert copy.written.removed.equals(t.written.removed)
            thawed = pickle.loads(pickle.dumps(t))
            assert thawed.written.removed.equals(t.written.removed)
            checked += 1
    assert checked > 400  # every commit of the corpus


def test_named_edits_change_one_part_and_share_the_others(tmp_path: Path) -> None:
    """``with_reads`` and ``reading_version`` make a changed copy: the part they change is
    new, every other part is the original's, and the original is left as it was."""
    t = reconstruct_transactions(_history(tmp_path / "t"))[-1]
    reads = replace(t.read.reads, partition_predicate=None, reason="edited")
    narrowed = t.with_reads(reads)
    assert narrowed.read.reads is reads
    assert (narrowed.read.version, narrowed.read.isolation) == (t.read.version, t.read.isolation)
    assert narrowed.table is t.table
    assert narrowed.written is t.written and narrowed.provenance is t.provenance
    assert t.read.reads.reason != "edited"
    older = t.reading_version(0, "test")
    assert (older.read.version, older.read.version_source) == (0, "test")
    assert older.read.reads is t.read.reads and older.written is t.written
    assert t.read.version != 0 and t.read.version_source != "test"
