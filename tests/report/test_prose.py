"""The prose every human format shares: complete over the code's catalogues, and in Delta's and
Databricks' words."""

from __future__ import annotations

import contextlib
import io
import os
import typing
from collections.abc import Iterator

import pytest

from deltaforensics.cli import main
from deltaforensics.conflicts.checker import PERTURBATIONS
from deltaforensics.conflicts.registry import RULES
from deltaforensics.report.change_words import change_json_words
from deltaforensics.report.document.explain import ExplainDocument
from deltaforensics.report.plain import commits_by_version
from deltaforensics.report.prose import (
    PERTURBATION_WORDS,
    error_class,
    explain_races,
    failure_words,
    plain,
    reads_words,
)
from deltaforensics.whatif.scenario import Change
from tests.conftest import SAMPLE_LOGS
from tests.report import explain_report


def test_every_perturbation_the_checker_tries_has_words() -> None:
    assert set(PERTURBATION_WORDS) == set(PERTURBATIONS)


def test_every_rule_names_its_databricks_error_class() -> None:
    for rule in RULES:
        assert rule.error_class.startswith("DELTA_"), rule.code
        assert error_class(rule.code) == rule.error_class
    assert error_class("DC010", [{"date": "2024-03-01"}]) == (
        "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT"
    )
    assert error_class("DC011", []) == "DELTA_CONCURRENT_DELETE_READ.WITHOUT_HINT"
    assert error_class("DC002", []) == "DELTA_METADATA_CHANGED"  # no sub-classes
    assert failure_words("ConcurrentWriteException", "DC005") == (
        "ConcurrentWriteException (DELTA_CONCURRENT_WRITE · DC005)"
    )


def test_every_what_if_change_is_worded_not_named() -> None:
    examples = {
        "partition-by": {"columns": ["date"]},
        "isolation": {"level": "Serializable"},
        "deletion-vectors": {},
        "liquid": {"columns": ["date"]},
        "explicit-merge-predicates": {"operations": ["MERGE"]},
        "separate-schedules": {"writer_a": "job a", "writer_b": "job b"},
        "mark-blind-appends": {"writer": "delta-rs writer"},
    }
    kinds = {k.kind for k in typing.get_args(Change)}
    assert kinds == set(examples)
    for kind, fields in examples.items():
        words = change_json_words({"kind": kind, **fields})
        assert words != kind and (kind not in words or "-" not in kind), words


def test_a_merge_joining_source_and_target_reads_the_whole_table_in_one_sentence() -> None:
    reason = (
        "`order_id = s.order_id` does not reference only the target; "
        "`date = s.date` does not reference only the target"
    )
    logged = plain(reads_words("MERGE", "TRUE", reason))
    assert logged == (
        "it read the whole table: its MERGE condition `order_id = s.order_id AND date = s.date` "
        "only joins target to source, with no literal on a partition column"
    )
    own = plain(reads_words("MERGE", "TRUE", reason, "t.order_id = s.order_id AND t.date = s.date"))
    assert "`t.order_id = s.order_id AND t.date = s.date`" in own


def test_races_of_one_story_fold_into_one_finding_but_others_stay_apart() -> None:
    doc = ExplainDocument.from_dict(explain_report())
    found = explain_races(doc.races, commits_by_version(doc.commits))
    assert len(found) == len(doc.races)  # the fixture's races each tell their own story
    same = [doc.races[0], doc.races[0]]
    folded = explain_races(same, commits_by_version(doc.commits))
    assert len(folded) == 1 and plain(folded[0].headline).startswith("2 MERGEs")


@contextlib.contextmanager
def _stdout_is(terminal: bool) -> Iterator[io.StringIO]:
    saved = os.environ.get("TTY_COMPATIBLE")
    os.environ["TTY_COMPATIBLE"] = "1" if terminal else "0"
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            yield out
    finally:
        if saved is None:
            os.environ.pop("TTY_COMPATIBLE")
        else:
            os.environ["TTY_COMPATIBLE"] = saved


@pytest.mark.parametrize("terminal", [True, False])
def test_history_draws_its_view_at_a_terminal_and_a_plain_table_in_a_pipe(terminal: bool) -> None:
    with _stdout_is(terminal) as out:
        assert main(["history", str(SAMPLE_LOGS / "optimize_vs_delete")]) == 0
    text = out.getvalue()
    if terminal:
        assert "▲ marks a commit that read an older version" in text
        assert " v7  2024-03-04 01:21  DELETE" in text
    else:
        assert text.startswith("version  timestamp")
