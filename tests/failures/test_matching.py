"""Matching harvested failures to tables, and de-duplicating them (pure: deltaforensics.failures).

The error text is a real one (tests/evidence/texts/era_b_delete_read_airflow.log: Delta 3.3's
message with the winner's commitInfo); the tables are described by their commits' facts as a
table's log records them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from deltaforensics.failures import (
    CommitFacts,
    FailedStatement,
    TableCommits,
    harvest_conflicts,
    normalize_location,
)

TEXT = (
    Path(__file__).resolve().parents[1] / "evidence" / "texts" / "era_b_delete_read_airflow.log"
).read_text()
WINNER = {
    "timestamp": 1736936528120,
    "operation": "OPTIMIZE",
    "readVersion": 643,
    "txnId": "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7",
}


def _table(name: str, location: str, **winner: object) -> TableCommits:
    info = WINNER | winner
    return TableCommits.from_commit_infos(
        name,
        location,
        [(643, {"timestamp": 1736936500000, "operation": "WRITE"}), (644, info)],
    )


def _failure(**kw: object) -> FailedStatement:
    base = FailedStatement(
        source_kind="eventlog",
        source="app-1.zstd",
        error_text=TEXT,
        app_id="app-1",
        started_at=1736936520000,
        failed_at=1736936551000,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_the_winners_commit_info_names_the_table() -> None:
    orders = _table("gold.orders", "s3a://lake/gold/orders")
    other = TableCommits("gold.items", "s3a://lake/gold/items", ())
    result = harvest_conflicts([_failure()], [other, orders])
    [conflict] = result.conflicts
    assert conflict.table == "gold.orders"
    assert conflict.winner_version == 644
    assert conflict.exception == "ConcurrentDeleteReadException"
    assert conflict.code == "DC011"
    assert "timestamp, operation, readVersion, txnId" in (conflict.matched_by or "")


def test_a_commit_that_differs_in_read_version_or_txn_id_is_not_the_winner() -> None:
    for differs in ({"readVersion": 642}, {"txnId": "another"}, {"operation": "WRITE"}):
        result = harvest_conflicts([_failure()], [_table("t", "/t", **differs)])
        assert result.conflicts == ()
        [unmatched] = result.unmatched
        assert "no analysed table has a commit with the winner's timestamp" in (
            unmatched.unmatched_reason or ""
        )


def test_two_tables_with_the_winners_commit_are_unmatched_unless_the_plan_decides() -> None:
    a, b = _table("a", "/lake/a"), _table("b", "/lake/b")
    [unmatched] = harvest_conflicts([_failure()], [a, b]).unmatched
    assert unmatched.candidates == ("a", "b")
    assert "several tables" in (unmatched.unmatched_reason or "")
    planned = _failure(locations=("file:/lake/b/",))
    [conflict] = harvest_conflicts([planned], [a, b]).conflicts
    assert conflict.table == "b"


def test_a_plan_naming_another_table_than_the_winners_leaves_it_unmatched() -> None:
    a, b = _table("a", "/lake/a"), TableCommits("b", "/lake/b", ())
    [unmatched] = harvest_conflicts([_failure(locations=("/lake/b",))], [a, b]).unmatched
    assert unmatched.table is None
    assert "but the plan names b" in (unmatched.unmatched_reason or "")


def test_without_commit_info_the_plan_location_alone_decides() -> None:
    text = TEXT.split("Conflicting commit:")[0]
    t = TableCommits("t", "/lake/t", (CommitFacts(version=1),))
    [conflict] = harvest_conflicts(
        [_failure(error_text=text, locations=("/lake/t",))], [t]
    ).conflicts
    assert conflict.table == "t"
    assert conflict.matched_by == "the statement's plan names the table's location"
    [unmatched] = harvest_conflicts([_failure(error_text=text)], [t]).unmatched
    assert "names no analysed table's location" in (unmatched.unmatched_reason or "")


def test_other_failures_are_counted_never_conflicts() -> None:
    other = _failure(error_text="[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: 22012")
    result = harvest_conflicts([other, other], [_table("t", "/t")], other_failures=3)
    assert result.conflicts == () and result.unmatched == ()
    assert result.other_failures == 5


def test_one_failure_in_two_sources_is_one_finding_and_two_a_second_apart_are_two() -> None:
    t = _table("t", "/t")
    event = _failure()
    driver = _failure(
        source_kind="driverlog", source="log4j-active.log", started_at=None, app_id=None
    )
    [one] = harvest_conflicts([event, driver], [t]).conflicts
    assert one.source_kind == "eventlog"
    assert one.sources == ("app-1.zstd", "log4j-active.log")
    later = _failure(started_at=1736936521500)
    assert len(harvest_conflicts([event, later], [t]).conflicts) == 2
    within = _failure(started_at=1736936520900)
    assert len(harvest_conflicts([event, within], [t]).conflicts) == 1


def test_locations_are_compared_in_one_form() -> None:
    assert normalize_location("file:///tmp/t/") == normalize_location("/tmp/t")
    assert normalize_location("file:/tmp/t") == "/tmp/t"
    assert normalize_location("dbfs:/mnt/t") == "/dbfs/mnt/t"
    assert normalize_location("abfss://C@Acct.dfs.core.windows.net/t/") == (
        "abfss://c@acct.dfs.core.windows.net/t"
    )
