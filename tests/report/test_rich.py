"""The terminal report: header, timeline chart, one indented finding per conflict and per
story of races with the winners named, anomalies and recommendations (rendered by rich into
plain text at 80 columns, the narrowest supported terminal)."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from deltaforensics.analysis import analyze, open_store
from deltaforensics.report.document import ExplainDocument, explain_document
from deltaforensics.report.to_rich import render_explain
from tests.conftest import SAMPLE_LOGS


def rendered(
    table: str, errors: tuple[str, ...] = (), width: int = 80
) -> tuple[ExplainDocument, str]:
    texts = [(e, (SAMPLE_LOGS / e).read_text()) for e in errors]
    doc = explain_document(analyze(open_store(str(SAMPLE_LOGS / table)), error_texts=texts))
    buf = io.StringIO()
    render_explain(doc, Console(file=buf, width=width, color_system=None, highlight=False))
    return doc, buf.getvalue()


def flat(text: str) -> str:
    """The text with its wrapping undone (runs of spaces and newlines as one space)."""
    return " ".join(text.split())


def test_header_names_versions_isolation_source_and_profiles() -> None:
    _, text = rendered("optimize_vs_delete", width=160)
    first = text.splitlines()[:4]
    assert first[0].endswith("sample_logs/optimize_vs_delete")
    assert "versions 0–25 · 26 commits" in first[1] and "partitioned by event_date" in first[1]
    assert "isolation WriteSerializable (most frequent commitInfo.isolationLevel)" in first[2]
    assert "modelled as databricks 13.3" in first[2]
    assert first[3].startswith("6 races (3 fragile, 0 the model says fail) · 0 conflicts")


def test_a_conflict_names_the_winner_and_the_error_class() -> None:
    doc, text = rendered("merge_without_partition_literal", ("errors/orders_merge_failed.log",))
    assert doc.conflicts[0].winner_version == 7
    words = flat(text)
    assert (
        "✗ The failed job failed with ConcurrentAppendException "
        "(DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT · DC010)." in words
    )
    assert (
        "winner v7, an UPDATE by user analyst@example.com at 2024-03-04 06:28 UTC in "
        "date=2024-03-01" in words
    )


def test_races_telling_one_story_are_one_finding_with_each_winner_named() -> None:
    _, text = rendered("merge_without_partition_literal")
    words = flat(text)
    assert (
        "! 5 MERGEs by job orders_status_merge (v5, v10, v18, v25, v34) were each overtaken"
        in words
    )
    assert (
        "v5 read v1 at 2024-03-04 06:20 UTC, overtaken by v2–v4, 3 WRITEs by job "
        "orders_ingest 2024-03-04 06:08–06:16 UTC into date=2024-03-04" in words
    )
    # the condition as the log records it, once, not once per conjunct
    assert (
        words.count("its MERGE condition order_id#921 = order_id#922 AND date#924 = date#925") == 1
    )


def test_what_would_break_a_race_is_said_in_words() -> None:
    _, text = rendered("merge_without_partition_literal")
    words = flat(text)
    assert (
        "at risk Had its DELETE condition lacked its partition literal (a whole-table read), "
        "it would have failed with ConcurrentAppendException (DELTA_CONCURRENT_APPEND · DC010) "
        "against v10." in words
    )
    assert "Had the table been Serializable, or had its winners not been recorded" in words
    for token in ("wider-predicate", "winner-not-blind-append", "isolation=Serializable", "→"):
        assert token not in text.split("Findings")[1]


def test_the_timeline_chart_draws_each_race_from_read_to_commit() -> None:
    _, text = rendered("optimize_vs_delete")
    lines = text.splitlines()
    bar = next(ln for ln in lines if ln.startswith("v8→v11 UPDATE"))
    assert bar.index("├") < bar.index("▲") < bar.index("!")
    assert bar.rstrip().endswith("fragile")
    assert all(cell_len(ln) <= 80 for ln in lines)


def test_recommendations_say_what_to_change_and_how() -> None:
    _, text = rendered("merge_without_partition_literal", ("errors/orders_merge_failed.log",))
    words = flat(text)
    assert "1. Name the partitions each MERGE touches as literals in its condition" in words
    assert "effect avoids 1 seen conflict, makes 0 fragile races safe, introduces 0" in words
    assert "Hypothetical: of 21 writer pairs" in words
    assert "Use liquid clustering on date instead of partitions (forces a table rewrite)" in words
    _, text = rendered("deltars_concurrent_optimize")
    assert "Anomalies" in text and "AN001 error · v10, v11: 9 files removed again" in flat(text)


def test_a_quiet_history_says_so() -> None:
    _, text = rendered("mixed_writer_appends")
    assert ("Timeline" in text) != ("No races and no conflicts" in text)


def test_markdown_describes_the_winning_commit_and_html_still_does() -> None:
    import html

    from deltaforensics.report.to_html import to_html
    from deltaforensics.report.to_markdown import to_markdown

    doc, _ = rendered("merge_without_partition_literal", ("errors/orders_merge_failed.log",))
    line = "v7 UPDATE by user analyst@example.com, cluster 0101-473780-abc66563 · 2024-03-04 06:28:00 UTC"
    assert html.escape(line) in to_html(doc)
    assert (
        "v7, an UPDATE by user analyst@example.com at 2024-03-04 06:28 UTC in date=2024-03-01"
        in to_markdown(doc)
    )
