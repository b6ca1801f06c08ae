"""Every corpus table, every version the oracle checked: our live-file set equals deltalake's.

Where the oracle (deltalake 1.6.6) rejects a version, we either reject it with a one-line
error or read it for the documented reason below. A decision not in this table fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.analysis import load, load_commits, open_store
from deltaforensics.engines.polars_engine import PolarsEngine
from deltaforensics.errors import DeltaForensicsError
from tests.conftest import corpus_tables

# (table, version) -> (our decision, reason). "reads" = we return a snapshot; "rejects" = exit 3.
KNOWN_DIFFERENCES: dict[tuple[str, int], tuple[str, str]] = {
    ("delta__catalog-owned-preview", 0): (
        "reads",
        "catalog-managed: delta-rs needs a catalog version; we analyse the published commits and "
        "report staged commits (W105) and the catalog caveat (W110)",
    ),
    ("kernelrs__catalog_managed_0", 0): ("reads", "catalog-managed, as above"),
    ("delta__deltalog-invalid-protocol-version", 0): (
        "reads",
        "readerFeatures with minReaderVersion 99: we read no data files, so the protocol is "
        "reported (W205) rather than refused",
    ),
    ("delta__versions-not-contiguous", 0): (
        "reads",
        "metaData without schemaString: the file list is still exact; reported as W206",
    ),
    ("deltars__delta-live-table", 0): ("reads", "metaData without schemaString (DLT), W206"),
    ("kernelrs__table-with-geo", 0): (
        "reads",
        "geometry type is unsupported by delta-rs for data reads; the log itself is ordinary",
    ),
    ("delta__versions-not-contiguous", 2): (
        "rejects",
        "commit 1 is missing and no checkpoint covers it",
    ),
    ("deltars__checkpoint_with_partitions", 1): (
        "rejects",
        "log starts at the checkpoint at 2; v1 is gone",
    ),
    ("deltars__err_logs_table_b", 8): ("rejects", "commit 7 is missing"),
    ("deltars__err_logs_table_b", 9): ("rejects", "commit 7 is missing"),
    ("deltars__err_logs_table_c", 13): ("rejects", "commit 12 is missing, no later checkpoint"),
}

CASES = [
    pytest.param(table, version, id=f"{table.name}@{version}")
    for table in corpus_tables()
    for version in json.loads((table / "expected.json").read_text())["versions_checked"]
]


@pytest.mark.corpus
@pytest.mark.parametrize(("table", "version"), CASES)
def test_snapshot_file_set_matches_the_oracle(table: Path, version: int) -> None:
    oracle = json.loads((table / "expected.json").read_text())["versions"][str(version)]
    store = open_store(str(table))
    known = KNOWN_DIFFERENCES.get((table.name, version))
    try:
        loaded = load(
            store, version=version, mode="snapshot", engine=PolarsEngine(store, with_stats=False)
        )
        ours: list[str] | None = sorted(loaded.replay.snapshot_at(version).files["path"].to_list())
        error = None
    except DeltaForensicsError as exc:
        ours, error = None, str(exc)
    if oracle["ok"]:
        assert known is None, f"stale known difference for an oracle-accepted version: {known}"
        assert error is None, error
        assert ours == sorted(oracle["files"])
        return
    assert known is not None, (
        f"oracle rejects {table.name}@{version}; we {'read it' if error is None else 'reject it'}: decide and document"
    )
    decision, _reason = known
    if decision == "rejects":
        assert error is not None
        assert "\n" not in error and str(version) in error
    else:
        assert error is None, error


@pytest.mark.corpus
@pytest.mark.parametrize("table", corpus_tables(), ids=lambda p: p.name)
def test_history_replay_reaches_the_latest_version_or_says_why(table: Path) -> None:
    expected = json.loads((table / "expected.json").read_text())
    store = open_store(str(table))
    try:
        loaded = load(store, mode="history")
    except DeltaForensicsError as exc:
        assert not expected["load_ok"] or expected["latest_version"] is None, str(exc)
        return
    if expected["load_ok"]:
        assert loaded.replay.end_version == expected["latest_version"]
        assert sorted(loaded.replay.snapshot_at().files["path"].to_list()) == sorted(
            expected["latest"]["files"]
        )


@pytest.mark.corpus
@pytest.mark.parametrize("table", corpus_tables(), ids=lambda p: p.name)
def test_history_lists_every_retained_commit_with_its_operation(table: Path) -> None:
    expected = json.loads((table / "expected.json").read_text())
    _, commits, _ = load_commits(open_store(str(table)))
    assert commits["version"].to_list() == expected["log_listing"]["commit_versions"]
    versions = expected["log_listing"]["commit_versions"]
    if versions != list(range(versions[0], versions[-1] + 1)) if versions else True:
        # deltalake numbers history by position, so a gap shifts its versions (we are right).
        return
    oracle_ops = {h["version"]: h.get("operation") for h in expected.get("history") or []}
    ours = dict(zip(commits["version"].to_list(), commits["operation"].to_list(), strict=True))
    for version, op in oracle_ops.items():
        if version in ours and op is not None:
            assert ours[version] == op, version


@pytest.mark.corpus
@pytest.mark.parametrize("table", corpus_tables(), ids=lambda p: p.name)
def test_listing_agrees_with_the_oracle(table: Path) -> None:
    from deltaforensics.log.listing import list_log

    expected = json.loads((table / "expected.json").read_text())["log_listing"]
    listing = list_log(open_store(str(table)))
    assert listing.commit_versions == expected["commit_versions"]
    assert sorted(listing.crc_versions) == expected["crc_versions"]
    ours = sorted((v, c.kind, c.complete) for v, cps in listing.checkpoints.items() for c in cps)
    kinds = {
        "classic-single": "classic",
        "classic-multipart": "multi-part",
        "v2-json": "v2",
        "v2-parquet": "v2",
    }
    theirs = sorted(
        (c["version"], kinds[c["kind"]], c.get("complete", True)) for c in expected["checkpoints"]
    )
    assert ours == theirs
    assert sorted(p.name.split("/", 1)[1] for p in listing.staged_commits) == sorted(
        f.split("/", 1)[1] for f in expected["other_files"] if f.startswith("_staged_commits/")
    )


@pytest.mark.corpus
def test_app_transactions_match_the_oracle(corpus_dir: Path) -> None:
    checked = 0
    for table in corpus_tables():
        expected = json.loads((table / "expected.json").read_text())
        if not expected.get("app_transactions") or not expected["load_ok"]:
            continue
        snap = load(open_store(str(table)), mode="snapshot").replay.snapshot_at()
        for app_id, version in expected["app_transactions"].items():
            assert snap.app_transactions.get(app_id) == version, (table.name, app_id)
            checked += 1
    assert checked > 0


def _as_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


@pytest.mark.corpus
@pytest.mark.parametrize("table", corpus_tables(), ids=lambda p: p.name)
def test_partition_values_match_the_oracle_through_checkpoints_too(table: Path) -> None:
    expected = json.loads((table / "expected.json").read_text())
    if not expected["load_ok"] or not expected.get("partition_columns"):
        return
    store = open_store(str(table))
    snap = load(
        store, mode="snapshot", engine=PolarsEngine(store, with_stats=False)
    ).replay.snapshot_at()
    ours = dict(zip(snap.files["path"].to_list(), snap.partition_values_logical(), strict=True))
    compared = 0
    for action in expected["latest"]["add_actions"]:
        theirs = action.get("partition_values")
        if theirs is None:
            continue
        mine = ours[action["path"]]
        for column, value in theirs.items():
            ours_text, theirs_text = _as_text(mine.get(column)), _as_text(value)
            if ours_text is not None and theirs_text == ours_text.encode().hex():
                pass  # binary partition column: deltalake prints hex, the log stores the string
            elif ours_text is not None and theirs_text is not None and ours_text != theirs_text:
                # deltalake renders typed values (dates, timestamps, numbers); compare the leading text
                assert theirs_text.startswith(ours_text[:10]) or ours_text.startswith(
                    theirs_text[:10]
                ), (action["path"], column, ours_text, theirs_text)
            else:
                assert (ours_text is None) == (theirs_text is None), (
                    action["path"],
                    column,
                    ours_text,
                    theirs_text,
                )
            compared += 1
    assert compared > 0
