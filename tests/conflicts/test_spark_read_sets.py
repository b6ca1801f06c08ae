"""What a Delta-Spark transaction read, release by release, on real 4.4.0 logs (issue #34).

The logs are the harness's own (tests/realspark/logs/delta-4.4.0, each written by real Delta
4.4.0 on Spark 4.2.0). The outcomes 4.4.0 decided are checked in test_real_logs.py; here the
same logs are asked what other releases' rows predict, from Delta's source per release
(profiles/versions.py cites it): those rows are not measured by a real run in this file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.profiles.versions import databricks, delta_rs, delta_spark

LOGS = Path(__file__).parents[1] / "realspark" / "logs" / "delta-4.4.0"
# the version of each log's winner: the attempts are asked of the log up to it, without the loser
WINNER = {
    "delete-one-partition--delete-by-id--part-apart": 6,
    "delete-one-partition--optimize-whole-table--part-apart": 7,
    "delete-one-partition--reorg-purge--part-dv-apart": 7,
}


def _attempt(table: str, statement: str, read_version: int, *flags: str, tmp: Path) -> dict:
    out = tmp / "report.json"
    code = main(
        [
            "explain",
            str(LOGS / table),
            "--attempt",
            statement,
            "--read-version",
            str(read_version),
            "--to-version",
            str(max(WINNER.get(table, read_version + 1), read_version + 1)),
            "--format",
            "json",
            "--output",
            str(out),
            *flags,
        ]
    )
    assert code == 0
    return json.loads(out.read_text())["attempts"][0]


def test_the_spark_rows_read_the_files_data_skipping_keeps() -> None:
    for version in ((2, 4), (3, 2), (3, 3), (4, 4)):
        assert delta_spark(version).read_files_by_data_skipping
    assert databricks((15, 4)).read_files_by_data_skipping
    assert not delta_rs((1, 6, 6)).read_files_by_data_skipping  # it matches by stats its own way


def test_optimize_reads_every_candidate_before_delta_3_3() -> None:
    """OptimizeTableCommand: txn.filterFiles(partitionPredicate) up to 3.2.x; from 3.3.0 each
    batch's txn.trackFilesRead(filesToProcess) (delta-io/delta #3089), and its retry compares
    deletion vectors from 3.3.0 (#3982)."""
    for version in ((2, 4), (3, 2)):
        row = delta_spark(version)
        assert not row.optimize_reads_compacted_files_only
        assert not row.optimize_retry_compares_deletion_vectors
    for version in ((3, 3), (4, 0), (4, 4)):
        row = delta_spark(version)
        assert row.optimize_reads_compacted_files_only
        assert row.optimize_retry_compares_deletion_vectors


def test_a_skipped_file_is_not_read_but_a_kept_one_is(tmp_path: Path) -> None:
    """The winner (v6) removed both files of 2024-01-02 (ids 100-101 and 102-104)."""
    table = "delete-one-partition--delete-by-id--part-apart"
    skipped = _attempt(table, "DELETE FROM t WHERE id = 205", 5, tmp=tmp_path)
    assert skipped["outcome"] == "commits"
    kept = _attempt(table, "DELETE FROM t WHERE id = 102", 5, tmp=tmp_path)
    assert (kept["outcome"], kept["winner_version"]) == ("ConcurrentDeleteReadException", 6)
    # a MERGE with WHEN NOT MATCHED BY SOURCE reads every file (no data skipping)
    merge = (
        "MERGE INTO t USING (SELECT 205 AS id) s ON t.id = s.id AND t.id = 205 "
        "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.id = 205 THEN DELETE"
    )
    by_source = _attempt(table, merge, 5, tmp=tmp_path)
    assert by_source["outcome"] == "ConcurrentDeleteReadException"


@pytest.mark.parametrize(
    ("profile", "outcome"),
    [
        ("delta-spark-3.2", "ConcurrentDeleteReadException"),
        ("delta-spark-2.4", "ConcurrentDeleteReadException"),
        ("delta-spark-3.3", "commits"),
        ("delta-spark-4.4", "commits"),
    ],
)
def test_a_whole_table_optimize_reads_a_lone_file_only_before_3_3(
    profile: str, outcome: str, tmp_path: Path
) -> None:
    """At v6 2024-01-02 holds one file, which the winner (v7) removes and OPTIMIZE leaves alone:
    4.4.0 committed the OPTIMIZE (record.json); before 3.3 it read that file too."""
    table = "delete-one-partition--optimize-whole-table--part-apart"
    found = _attempt(table, "OPTIMIZE t", 6, "--attempt-profile", profile, tmp=tmp_path)
    assert found["outcome"] == outcome
    narrow = _attempt(
        table, "OPTIMIZE t WHERE date = '2024-01-03'", 6, "--attempt-profile", profile, tmp=tmp_path
    )
    assert narrow["outcome"] == "commits"


def test_reorg_purge_rewrites_the_files_with_deletion_vectors(tmp_path: Path) -> None:
    """v6 put a deletion vector on one file of 2024-01-01; REORG … APPLY (PURGE) rewrites it
    alone, so the DELETE of 2024-01-02 (v7) is none of its business."""
    table = "delete-one-partition--reorg-purge--part-dv-apart"
    found = _attempt(table, "REORG TABLE t APPLY (PURGE)", 6, tmp=tmp_path)
    assert (found["outcome"], found["files_removed"], found["operation"]) == ("commits", 1, "REORG")
    assert "engine_error" not in found  # left out while null


def test_reorg_purge_has_optimize_rows_on_databricks(tmp_path: Path) -> None:
    """v8 is the REORG that purged the 2024-01-01 file: a DELETE there read at v7 fails on
    Delta-Spark (the REORG's add counts under Serializable) and is tolerated on Databricks,
    whose page gives REORG rewriting deletion vectors OPTIMIZE's semantics."""
    table = "delete-one-partition--reorg-purge--part-dv-apart"
    statement = "DELETE FROM t WHERE date = '2024-01-01' AND id = 2"
    oss = _attempt(table, statement, 7, tmp=tmp_path)
    assert oss["outcome"] == "ConcurrentAppendException"
    dbr = _attempt(table, statement, 7, "--attempt-profile", "databricks-15.4", tmp=tmp_path)
    assert dbr["outcome"] == "commits"


def test_reorg_upgrade_uniform_is_not_an_attempt(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        [
            "explain",
            str(LOGS / "delete-one-partition--reorg-purge--part-dv-apart"),
            "--attempt",
            "REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2))",
            "--read-version",
            "6",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code != 0 and "UPGRADE UNIFORM" in err and len(err.splitlines()) == 1, err
