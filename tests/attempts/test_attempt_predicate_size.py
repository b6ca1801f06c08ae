"""An ``--attempt`` whose WHERE is an OR of thousands of equalities is read in time linear in
its length (issue #19: 5,000 terms took 33 s) and decides as a short one does. The timings are
``benchmarks/bench_attempt_or.py``; here only the answers."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from deltaforensics.cli import main
from tests.conftest import SAMPLE_LOGS

TABLE = str(SAMPLE_LOGS / "merge_without_partition_literal")
DECIDING = ("outcome", "winner_version", "code", "read_predicate", "files_removed", "files_added")


def _verdict(capsys: pytest.CaptureFixture[str], where: str) -> dict[str, object]:
    args = ["--quiet", "explain", TABLE, "--attempt", f"DELETE FROM t WHERE {where}"]
    code = main([*args, "--read-version", "6", "--format", "json", "--no-recommendations"])
    out, err = capsys.readouterr()
    assert code == 0, err
    attempt = json.loads(out)["attempts"][0]
    return {k: attempt[k] for k in DECIDING}


def test_five_thousand_ids_decide_as_fifty_do(capsys: pytest.CaptureFixture[str]) -> None:
    fifty = _verdict(capsys, " OR ".join(f"id = {i}" for i in range(1, 51)))
    many = _verdict(capsys, " OR ".join(f"id = {i}" for i in range(1, 5001)))
    assert many == fifty
    assert fifty["outcome"] == "ConcurrentAppendException"


def test_five_thousand_partitions_decide_as_fifty_do(capsys: pytest.CaptureFixture[str]) -> None:
    # the table's writes are in March 2024: every list below names those days first
    days = [dt.date(2024, 3, 1) + dt.timedelta(days=i) for i in range(5000)]
    fifty = _verdict(capsys, " OR ".join(f"date = '{d}'" for d in days[:50]))
    many = _verdict(capsys, " OR ".join(f"date = '{d}'" for d in days))
    assert {k: v for k, v in many.items() if k != "read_predicate"} == {
        k: v for k, v in fifty.items() if k != "read_predicate"
    }
    assert fifty["outcome"] == "ConcurrentAppendException" and fifty["files_removed"]
