"""The failed statement of an error text inferred from the job its log lines name (issue #31
item 2), on the README sample's real-shaped driver log."""

from __future__ import annotations

from deltaforensics.analysis import analyze, open_store
from deltaforensics.evidence import extract_conflicts
from deltaforensics.evidence.failed_loser import infer_loser, named_writer, text_before
from tests.conftest import REPO

SAMPLE = str(REPO / "sample_logs" / "merge_without_partition_literal")
ERROR = (REPO / "sample_logs" / "errors" / "orders_merge_failed.log").read_text()


def test_the_job_named_before_the_exception_stands_in_for_the_failed_merge() -> None:
    analysis = analyze(open_store(SAMPLE), recommendations=False)
    txns = analysis.transactions
    (ev,) = extract_conflicts(ERROR)
    found = infer_loser(ERROR, ev, txns.at(7), txns)
    assert found is not None
    assert found.loser.version is None and found.loser.read.version == 6  # "(read version 6)"
    assert found.loser.provenance.operation == "MERGE"
    assert [w.version for w in found.winners] == [7]
    assert "inferred from v5" in found.how and found.confidence == "medium"


def test_only_the_text_before_the_exception_is_searched() -> None:
    text = "INFO nightly_load: start\nERROR ConcurrentAppendException: job other_job committed"
    before = text_before(text, 2, "ConcurrentAppendException")
    assert "other_job" not in before
    assert named_writer(before, ["nightly_load", "other_job"]) == "nightly_load"
    assert named_writer("load nightly_loader", ["nightly_load"]) is None  # whole words only


def test_a_text_naming_no_job_of_the_log_infers_nothing() -> None:
    analysis = analyze(open_store(SAMPLE), recommendations=False)
    txns = analysis.transactions
    anonymous = ERROR.splitlines()[-1]
    (ev,) = extract_conflicts(anonymous)
    assert infer_loser(anonymous, ev, txns.at(7), txns) is None
    assert (
        analyze(
            open_store(SAMPLE), error_texts=[("e", anonymous)], recommendations=False
        ).unmeasured_errors()
        == 1
    )
