"""The terminal report: header, timeline, one paragraph per finding with the winner's details,
anomalies and the recommendations table (rendered by rich into plain text)."""

from __future__ import annotations

import io

from rich.console import Console

from deltaforensics.analysis import analyze, open_store
from deltaforensics.report.document import explain_document
from deltaforensics.report.to_rich import render_explain
from tests.conftest import SAMPLE_LOGS


def rendered(table: str, errors: tuple[str, ...] = ()) -> tuple[dict, str]:  # type: ignore[type-arg]
    texts = [(e, (SAMPLE_LOGS / e).read_text()) for e in errors]
    doc = explain_document(analyze(open_store(str(SAMPLE_LOGS / table)), error_texts=texts))
    buf = io.StringIO()
    render_explain(doc, Console(file=buf, width=400, color_system=None, highlight=False))
    return doc, buf.getvalue()


def test_header_names_versions_isolation_source_and_profiles() -> None:
    _, text = rendered("optimize_vs_delete")
    first = text.splitlines()[:3]
    assert first[0].endswith("sample_logs/optimize_vs_delete")
    assert "versions 0..25 · 26 commits" in first[1] and "partitioned by event_date" in first[1]
    assert "isolation WriteSerializable (most frequent commitInfo.isolationLevel)" in first[2]
    assert "profiles: databricks 13.3" in first[2]


def test_a_conflict_paragraph_carries_the_winning_commit() -> None:
    doc, text = rendered("merge_without_partition_literal", ("errors/orders_merge_failed.log",))
    assert doc["conflicts"][0]["winner_version"] == 7
    assert "Timeline: 9 race(s), 1 conflict(s)" in text
    paragraph = text[text.index("ConcurrentAppendException (DC010, from error") :]
    winner = paragraph.splitlines()[1]
    assert winner.startswith("  winner: v7 UPDATE by notebook 1524277128226821")
    assert "2024-03-04 06:28:00 UTC" in winner and "read v4" in winner
    assert "in date=2024-03-01" in winner


def test_fragile_races_list_their_winners_and_what_would_break_them() -> None:
    _, text = rendered("merge_without_partition_literal")
    block = text[text.index("v11 DELETE by job orders_retention") :]
    lines = block.splitlines()
    assert "committed under databricks 14.3" in lines[0]
    assert lines[1].startswith("  raced: v10 MERGE by job orders_status_merge")
    assert any(
        "would fail under: wider-predicate → ConcurrentAppendException against v10" in ln
        for ln in lines[:6]
    )


def test_recommendations_and_anomalies_are_tables() -> None:
    _, text = rendered("merge_without_partition_literal")
    # nothing failed in this log: the one recommendation avoids no *seen* conflict
    assert "Recommendations (1), measured on this history" in text
    assert "seen avoided" in text
    row = next(ln for ln in text.splitlines() if "liquid columns=date" in ln)
    assert "│ 0 " in row and "medium" in row
    assert "Seen: no conflict" in text and "Hypothetical: of 21 writer pair(s)" in text
    _, text = rendered("deltars_concurrent_optimize")
    assert "Anomalies (2)" in text and "error" in text


def test_a_quiet_history_says_so() -> None:
    _, text = rendered("mixed_writer_appends")
    assert ("Timeline:" in text) != ("No races and no conflicts" in text)


def test_html_and_markdown_also_describe_the_winning_commit() -> None:
    import html

    from deltaforensics.report.to_html import to_html
    from deltaforensics.report.to_markdown import to_markdown

    doc, _ = rendered("merge_without_partition_literal", ("errors/orders_merge_failed.log",))
    line = "v7 UPDATE by notebook 1524277128226821, cluster 0101-473780-abc66563 · 2024-03-04 06:28:00 UTC"
    assert html.escape(line) in to_html(doc)
    assert line in to_markdown(doc)
