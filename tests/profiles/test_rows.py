"""The profile rows: every version of an engine gets exactly one row, and the behaviour the
issue's follow-ups change by version is a field of a row."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from deltaforensics.conflicts.registry import RULES, rule_for
from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import (
    ENGINES,
    ROWS,
    Check,
    Profile,
    databricks,
    delta_rs,
    delta_spark,
    kernel,
    parse_isolation,
    profile_by_name,
    profile_for,
)
from deltaforensics.profiles.statement_writers import BlindAppendFlag

PACKAGE = Path(__file__).resolve().parents[2] / "deltaforensics"
PROBES = [(), (0, 6), (1, 2), (1, 3), (1, 6, 3), (1, 6, 6), (1, 6, 7), (2, 4), (3, 0), (3, 1), (3, 2), (3, 3), (4, 0), (4, 1),
          (9, 9), (14, 1), (14, 2), (15, 4), (17, 3)]  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_every_version_of_an_engine_falls_in_exactly_one_row(engine: str) -> None:
    for version in PROBES:
        holding = [r for r in ROWS[engine] if r.holds(version)]
        assert len(holding) == 1, (engine, version)


def test_every_row_is_labelled_with_its_own_engine() -> None:
    for engine, rows in ROWS.items():
        assert {r.behaviour.engine for r in rows} == {engine}


def test_every_check_has_exactly_one_rule_and_orders_name_only_checks() -> None:
    assert sorted(r.delta_check for r in RULES) == sorted(Check)
    for rows in ROWS.values():
        for row in rows:
            assert all(rule_for(c).delta_check is c for c in row.behaviour.rule_order)


def test_names_and_versions_are_the_ones_reports_print() -> None:
    assert delta_spark().name == "delta-spark 4.1 (≥4.1)"
    assert delta_spark((3, 2)).name == "delta-spark 3.2 (3.2–4.0)"
    assert delta_spark((2, 4, 0)).name == "delta-spark 2.4.0 (≤3.1)"
    assert databricks().name == "databricks 15.4"
    assert delta_rs().name == "delta-rs 1.6.6"
    assert kernel().name == "delta-kernel"
    assert profile_by_name("delta-rs-1.2").version == (1, 2)
    assert not profile_by_name("kernel").inferred


def test_version_rows_decide_the_versioned_behaviour() -> None:
    assert [str(c) for c in delta_spark((3, 1)).rule_order][-1] == "DC003"
    assert not delta_spark((3, 0)).blind_loser_shortcut and delta_spark((3, 1)).blind_loser_shortcut
    assert not delta_spark((3, 2)).identity_tolerance and delta_spark((3, 3)).identity_tolerance
    assert not delta_spark((4, 0)).metadata_allow_list and delta_spark().metadata_allow_list
    assert (
        not databricks((14, 1)).row_level_concurrency and databricks((14, 2)).row_level_concurrency
    )
    assert not delta_rs((1, 1)).predicate_free_reads_all_files
    assert not delta_rs((1, 6, 3)).delete_delete_skips_compaction_removes
    assert delta_rs((1, 3)).delete_read_skips_compaction_removes
    assert delta_rs((1, 6, 6)).delete_delete_skips_compaction_removes


def test_profiles_come_from_what_the_writer_recorded() -> None:
    assert profile_for("Apache-Spark/3.5.0 Delta-Lake/3.2.0").name == "delta-spark 3.2.0 (3.2–4.0)"
    assert profile_for("Databricks-Runtime/14.3.x-scala2.12").row_level_concurrency
    assert profile_for(None, "delta-rs.py-1.6.6").stats_matching
    assert not profile_for("Kernel-3.3.0/x").checks_added_files
    assert profile_for(None) == delta_spark()


def test_isolation_spellings_are_per_engine() -> None:
    assert parse_isolation("writeserializable", delta_spark()) is IsolationLevel.WRITE_SERIALIZABLE
    assert parse_isolation("WriteSerializable", delta_rs()) is None
    assert parse_isolation("writeSerializable", delta_rs()) is IsolationLevel.WRITE_SERIALIZABLE
    assert parse_isolation("snapshotIsolation", delta_spark()) is None


def test_the_writer_model_is_chosen_by_the_row() -> None:
    assert delta_spark().writer.recorded_blind(True) is True
    assert kernel().writer.recorded_blind(True) is False
    assert delta_rs().writer.recorded_blind(True) is None
    assert delta_spark().writer.condition_parameters("date = 'A'") == {
        "predicate": "[\"date = 'A'\"]"
    }
    assert delta_rs().writer.condition_parameters("date = 'A'") == {"predicate": "date = 'A'"}
    assert delta_rs().writer.condition_parameters(None) == {}
    assert delta_rs().writer.operation_parameters({"partitionBy": ["a"]}) == {
        "partitionBy": '["a"]'
    }
    assert kernel().writer.blind_append_flag is BlindAppendFlag.ALWAYS_FALSE


def test_every_behaviour_field_is_read_somewhere() -> None:
    """A field set in the rows and read nowhere is a behaviour the model only claims."""
    labels = {"name", "engine", "version", "inferred"}
    fields = {f.name for f in dataclasses.fields(Profile)} - labels
    sources = "\n".join(
        p.read_text(encoding="utf-8")
        for p in PACKAGE.rglob("*.py")
        if p not in (PACKAGE / "profiles" / "profile.py", PACKAGE / "profiles" / "versions.py")
    )
    unread = sorted(f for f in fields if f".{f}" not in sources)
    assert unread == []
