"""Predicted vs measured: each workload runs twice on the real deltalake engine — on the table
as it is and with the change applied — and the what-if, fed only the first run's log and its
real failures (as attempt evidence), must predict the second run step by step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deltalake import write_deltalake

from deltaforensics.report.validate import validate
from deltaforensics.whatif.scenario import (
    ExplicitMergePredicates,
    IsolationChange,
    PartitionBy,
    Scenario,
)
from tests.whatif.helpers import whatif_json
from tests.whatif.workload import (
    APPEND,
    D1,
    D2,
    D3,
    D4,
    DELREAD,
    OK,
    Step,
    append,
    counts,
    delete,
    evidence,
    merge,
    rows,
    run,
    update,
)

pytestmark = pytest.mark.engine


def _predict(tmp_path: Path, setup: Any, steps: list[Step], scenario: Scenario) -> dict[str, Any]:
    baseline = run(tmp_path / "baseline", setup, steps, tmp_path / "shadows")
    analysis, observed = evidence(tmp_path / "baseline", baseline)
    doc = whatif_json(analysis, scenario, attempts=observed, samples=0)
    validate(doc, "whatif")
    doc["_real_before"] = [r.outcome for r in baseline]
    return doc


def _assert_matches(doc: dict[str, Any], measured: list[str], expected_before: list[str]) -> None:
    before = doc["_real_before"]
    assert before == expected_before, "the baseline workload changed behaviour"
    pairs = [p for p in doc["pairs"] if p["source"] == "attempt"]
    assert [p["before"] for p in pairs] == before
    assert all(p["counted"] for p in pairs), [p["reason"] for p in pairs if not p["counted"]]
    assert [p["after"] for p in pairs] == measured, [p["reason"] for p in pairs]
    avoided, introduced = counts(before, measured)
    assert (doc["conflicts_avoided"], doc["conflicts_introduced"]) == (avoided, introduced)
    assert doc["baseline"]["conflicts"] == sum(o != OK for o in before)
    assert doc["result"]["conflicts"] == sum(o != OK for o in measured)


# -- unpartitioned -> partitioned by date ---------------------------------------------------


def _multi_date_files(partition_by: list[str] | None) -> Any:
    """d1+d2 in one write, d3+d4 in another: one file each when unpartitioned."""

    def setup(path: str) -> None:
        kw = {"partition_by": partition_by} if partition_by else {}
        write_deltalake(path, rows((D1, range(10)), (D2, range(100, 105))), **kw)
        write_deltalake(path, rows((D3, range(200, 205)), (D4, range(300, 305))), mode="append")

    return setup


PARTITION_STEPS = [
    Step(
        "update a d1 row / delete a d2 row (same old file)",
        update(f"date = '{D1}' AND user_id = 1"),
        delete(f"date = '{D2}' AND user_id = 100"),
    ),
    Step(
        "delete / delete in the same partition",
        delete(f"date = '{D1}' AND user_id = 2"),
        delete(f"date = '{D1}' AND user_id = 3"),
    ),
    Step(
        "append d3 / merge without a partition literal",
        append((D3, range(2000, 2002))),
        merge("t.user_id = s.user_id", (D1, [5, 50])),
    ),
    Step("append / append", append((D2, range(3000, 3002))), append((D4, range(3100, 3102)))),
    Step(
        "delete a d2 row / stale plain append",
        delete(f"date = '{D2}' AND user_id = 101"),
        append((D4, range(3200, 3202))),
    ),
    Step(
        "update a d3 row / update a d4 row (same old file)",
        update(f"date = '{D3}' AND user_id = 200"),
        update(f"date = '{D4}' AND user_id = 300"),
    ),
]


def test_partitioning_by_date_predicts_the_conflicts_a_partitioned_table_really_avoids(
    tmp_path: Path,
) -> None:
    doc = _predict(
        tmp_path, _multi_date_files(None), PARTITION_STEPS, Scenario.of(PartitionBy(["date"]))
    )
    changed = run(
        tmp_path / "partitioned", _multi_date_files(["date"]), PARTITION_STEPS, tmp_path / "s2"
    )
    measured = [r.outcome for r in changed]
    assert measured == [OK, APPEND, APPEND, OK, DELREAD, OK]
    _assert_matches(doc, measured, [APPEND, APPEND, APPEND, OK, DELREAD, APPEND])
    assert doc["conflicts_avoided"] == 2
    assert doc["confidence"] in ("high", "medium")


def test_a_value_only_inside_a_files_range_is_counted_as_touched(tmp_path: Path) -> None:
    """Min/max cannot tell an append of d2+d4 rows from one holding d3 rows too: the estimate
    keeps the conflict (conservative) although the partitioned table really avoids it."""
    steps = [
        Step("append d2+d4 / delete d3", append((D2, [900]), (D4, [901])), delete(f"date = '{D3}'"))
    ]
    doc = _predict(tmp_path, _multi_date_files(None), steps, Scenario.of(PartitionBy(["date"])))
    measured = [
        r.outcome for r in run(tmp_path / "p", _multi_date_files(["date"]), steps, tmp_path / "s2")
    ]
    assert doc["_real_before"] == [APPEND]
    assert measured == [OK]
    assert [p["after"] for p in doc["pairs"]] == [APPEND]
    assert doc["conflicts_avoided"] == 0
    assert doc["conflicts_introduced"] == 0


# -- MERGE without / with a literal partition predicate -------------------------------------


def _partitioned(path: str) -> None:
    write_deltalake(path, rows((D1, range(10))), partition_by=["date"])
    write_deltalake(path, rows((D2, range(100, 105))), mode="append")
    write_deltalake(path, rows((D3, range(200, 205))), mode="append")


def _merge_steps(literal: bool) -> list[Step]:
    def on(date: str) -> str:
        return "t.user_id = s.user_id" + (f" AND t.date = '{date}'" if literal else "")

    return [
        Step("append d4 / merge d1", append((D4, range(10))), merge(on(D1), (D1, [5, 50]))),
        Step(
            "delete a d2 row / merge d1",
            delete(f"date = '{D2}' AND user_id = 101"),
            merge(on(D1), (D1, [6, 60])),
        ),
        Step("append d1 / merge d1", append((D1, [3000, 3001])), merge(on(D1), (D1, [7, 70]))),
        Step("merge d3 / merge d1", merge(on(D3), (D3, [201])), merge(on(D1), (D1, [8, 80]))),
    ]


def test_explicit_merge_predicates_predict_what_merges_with_a_literal_really_avoid(
    tmp_path: Path,
) -> None:
    doc = _predict(
        tmp_path, _partitioned, _merge_steps(False), Scenario.of(ExplicitMergePredicates())
    )
    changed = run(tmp_path / "literal", _partitioned, _merge_steps(True), tmp_path / "s2")
    measured = [r.outcome for r in changed]
    assert measured == [OK, OK, APPEND, OK]
    _assert_matches(doc, measured, [APPEND, APPEND, APPEND, APPEND])
    assert doc["conflicts_avoided"] == 3


# -- delta-rs isolation: writeSerializable with blind appends marked ------------------------


def _isolated(configuration: dict[str, str] | None) -> Any:
    def setup(path: str) -> None:
        kw = {"configuration": configuration} if configuration else {}
        write_deltalake(path, rows((D1, range(10))), partition_by=["date"], **kw)
        write_deltalake(path, rows((D2, range(100, 105))), mode="append")
        write_deltalake(path, rows((D3, range(200, 205))), mode="append")

    return setup


ISOLATION_STEPS = [
    Step(
        "blind append d1 / delete overlapping d1 rows",
        append((D1, range(3)), blind=True),
        delete(f"date = '{D1}' AND user_id < 3"),
    ),
    Step(
        "unmarked append d2 / delete overlapping d2 rows",
        append((D2, [100, 101])),
        delete(f"date = '{D2}' AND user_id < 102"),
    ),
    Step(
        "delete / delete in one file",
        delete(f"date = '{D3}' AND user_id = 200"),
        delete(f"date = '{D3}' AND user_id = 201"),
    ),
    Step(
        "blind append d3 / update overlapping d3 row",
        append((D3, [202, 203]), blind=True),
        update(f"date = '{D3}' AND user_id = 202"),
    ),
]
ISOLATION_BEFORE = [APPEND, APPEND, APPEND, APPEND]


def test_write_serializable_in_camel_case_predicts_the_blind_appends_delta_rs_really_skips(
    tmp_path: Path,
) -> None:
    doc = _predict(
        tmp_path,
        _isolated(None),
        ISOLATION_STEPS,
        Scenario.of(IsolationChange("writeSerializable")),
    )
    changed = run(
        tmp_path / "ws",
        _isolated({"delta.isolationLevel": "writeSerializable"}),
        ISOLATION_STEPS,
        tmp_path / "s2",
    )
    measured = [r.outcome for r in changed]
    assert measured == [OK, APPEND, APPEND, OK]
    _assert_matches(doc, measured, ISOLATION_BEFORE)
    assert doc["conflicts_avoided"] == 2


def test_the_spark_spelling_is_predicted_and_measured_to_change_nothing_on_delta_rs(
    tmp_path: Path,
) -> None:
    doc = _predict(
        tmp_path,
        _isolated(None),
        ISOLATION_STEPS,
        Scenario.of(IsolationChange("WriteSerializable")),
    )
    changed = run(
        tmp_path / "ws",
        _isolated({"delta.isolationLevel": "WriteSerializable"}),
        ISOLATION_STEPS,
        tmp_path / "s2",
    )
    measured = [r.outcome for r in changed]
    assert measured == ISOLATION_BEFORE
    _assert_matches(doc, measured, ISOLATION_BEFORE)
    assert any(
        d["code"] == "W603" and "writeSerializable" in d["message"] for d in doc["diagnostics"]
    )
