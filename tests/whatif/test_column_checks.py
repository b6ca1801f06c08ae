"""``whatif`` refuses a column the table does not have or cannot be laid out by (issue #31
item 4): exit 2 naming the column, never "changes nothing"."""

from __future__ import annotations

import pytest

from deltaforensics.cli import main
from deltaforensics.errors import UsageError
from deltaforensics.whatif.column_checks import check_scenario_columns
from deltaforensics.whatif.scenario import Liquid, PartitionBy, Scenario
from tests.conftest import CORPUS, REPO

SAMPLE = str(REPO / "sample_logs" / "merge_without_partition_literal")
# a real Delta-Spark log whose schema has array, struct and boolean columns
TYPED = str(CORPUS / "delta__data-reader-partition-values")


def _whatif(capsys: pytest.CaptureFixture[str], table: str, *args: str) -> tuple[int, str]:
    code = main(["whatif", table, *args, "--format", "json"])
    return code, capsys.readouterr().err


def test_a_misspelt_column_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _whatif(capsys, SAMPLE, "--partition-by", "dat")
    assert code == 2, err
    assert "--partition-by dat" in err and "did you mean date?" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "column", "kind"),
    [
        ("--partition-by", "as_nested_struct", "STRUCT"),
        ("--partition-by", "as_list_of_records", "ARRAY"),
        ("--liquid", "as_boolean", "BOOLEAN"),
        ("--liquid", "as_list_of_records", "ARRAY"),
    ],
)
def test_a_column_delta_cannot_lay_out_by_exits_2(
    capsys: pytest.CaptureFixture[str], option: str, column: str, kind: str
) -> None:
    code, err = _whatif(capsys, TYPED, option, column)
    assert code == 2, err
    assert column in err and kind in err


def test_the_types_delta_accepts_pass() -> None:
    types = {"d": "date", "n": "decimal(10,2)", "s": "string", "v": "variant", "b": "binary"}
    check_scenario_columns(Scenario.of(PartitionBy(("D",)), Liquid(("n", "s"))), types)
    check_scenario_columns(Scenario.of(PartitionBy(("b",))), types)  # binary partitions
    with pytest.raises(UsageError, match="VARIANT"):
        check_scenario_columns(Scenario.of(PartitionBy(("v",))), types)
    with pytest.raises(UsageError, match="BINARY"):
        check_scenario_columns(Scenario.of(Liquid(("b",))), types)
