from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from markdown_it import MarkdownIt

from deltaforensics.report.document import ExplainDocument, WhatIfDocument
from deltaforensics.report.to_markdown import code, fenced, text, to_markdown, whatif_to_markdown
from tests.report import (
    IMG,
    SAMPLE_LOGS,
    SAMPLES,
    SCRIPT,
    cli_json,
    empty_explain_report,
    explain_report,
    whatif_report,
)

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


class _Html(HTMLParser):
    """What a Markdown renderer produced: elements, table rows, and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self.data: list[str] = []
        self.pre: list[str] = []
        self._cell: list[str] | None = None
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre":
            self._in_pre = True
            self.pre.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        self.data.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._in_pre:
            self.pre[-1] += data


def _render(markdown: str) -> _Html:
    """Render as GitHub would: CommonMark with tables, strikethrough and inline HTML allowed."""
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    parsed = _Html()
    parsed.feed(html)
    return parsed


def _tables(markdown: str) -> list[list[str]]:
    tables: list[list[str]] = []
    previous = ""
    for line in markdown.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    return tables


def test_the_summary_counts_what_the_report_holds() -> None:
    md = to_markdown(ExplainDocument.from_dict(explain_report()))
    lines = md.splitlines()
    assert lines[0] == (
        "## deltaforensics: write conflicts in `abfss://sales@contoso.dfs.core.windows.net/tables/orders`"
    )
    assert lines[2] == (
        "**5 races** (2 fragile, 1 predicted conflict) · **3 conflicts** · 2 attempts · "
        "2 anomalies (1 error) · 2 recommendations · 2 warnings"
    )
    assert "isolation **WriteSerializable** (table property delta.isolationLevel)" in md
    assert "2 other races committed cleanly" in md


def test_only_races_at_risk_are_listed_as_findings() -> None:
    md = to_markdown(ExplainDocument.from_dict(explain_report()))
    races = md[md.index("### Races") : md.index("### Conflicts")]
    heads = [line for line in races.splitlines() if line.startswith("- ") and "**" in line]
    assert [h.split("**")[1].split()[0] for h in heads] == ["v12", "v21", "v40"]


def test_every_table_row_has_as_many_cells_as_its_header() -> None:
    md = to_markdown(ExplainDocument.from_dict(explain_report()))
    tables = _tables(md)
    assert len(tables) == 3  # attempts, anomalies, recommendations (findings are lists)
    for rows in tables:
        width = len(UNESCAPED_PIPE.findall(rows[0]))
        for row in rows:
            assert len(UNESCAPED_PIPE.findall(row)) == width, row


def test_a_markdown_renderer_keeps_cells_intact_and_shows_hostile_text_as_text() -> None:
    html = _render(to_markdown(ExplainDocument.from_dict(explain_report())))
    assert "script" not in html.tags and "img" not in html.tags
    assert "em" not in html.tags  # *stars* in a reason stay stars
    body = "".join(html.data)
    assert SCRIPT in body  # the predicate, in a code span
    assert IMG in body  # an anomaly reason, as escaped text
    widths = {len(row) for row in html.rows}
    assert widths <= {4, 5, 7}, widths
    assert "| a pipe | and *stars* on line two" in body
    assert "MERGE INTO orders t USING u ON t.id = u.id | `x`" in body


def test_apply_is_a_fenced_block_that_survives_backticks_inside() -> None:
    doc = explain_report()
    html = _render(to_markdown(ExplainDocument.from_dict(doc)))
    assert html.pre == [doc["recommendations"][0]["apply"].rstrip() + "\n"]


def test_newlines_in_log_strings_do_not_break_rows() -> None:
    md = to_markdown(ExplainDocument.from_dict(explain_report()))
    why = next(line for line in md.splitlines() if "a pipe" in line and "- why:" in line)
    assert "DELETE read<br>\\| a pipe \\| and \\*stars\\* on line two" in why


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_log_report_renders_with_intact_tables(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    md = to_markdown(
        ExplainDocument.from_dict(cli_json(capsys, "explain", str(SAMPLE_LOGS / sample)))
    )
    for rows in _tables(md):
        width = len(UNESCAPED_PIPE.findall(rows[0]))
        assert all(len(UNESCAPED_PIPE.findall(row)) == width for row in rows)
    html = _render(md)
    assert len({len(row) for row in html.rows if row}) <= len(_tables(md))


def test_output_is_deterministic() -> None:
    doc = explain_report()
    assert to_markdown(ExplainDocument.from_dict(doc)) == to_markdown(
        ExplainDocument.from_dict(copy.deepcopy(doc))
    )
    assert whatif_to_markdown(WhatIfDocument.from_dict(whatif_report())) == whatif_to_markdown(
        WhatIfDocument.from_dict(whatif_report())
    )


def test_long_tables_are_cut_with_a_count_of_what_is_left() -> None:
    doc = explain_report()
    doc["conflicts"] = doc["conflicts"] * 40
    doc["diagnostics"] = doc["diagnostics"] * 30
    md = to_markdown(ExplainDocument.from_dict(doc), max_rows=10)
    assert "… and 110 more in the JSON report." in md
    assert "- … and 80 more in the JSON report." in md
    conflicts = md[md.index("### Conflicts") : md.index("### Attempts")]
    assert sum(line.startswith("- ") for line in conflicts.splitlines()) == 10


def test_an_empty_report_says_none_instead_of_empty_tables() -> None:
    md = to_markdown(ExplainDocument.from_dict(empty_explain_report()))
    assert "**0 races** (0 fragile, 0 predicted conflicts) · **0 conflicts**" in md
    assert "### Races\n\nNone: every commit read the version just before it." in md
    assert "### Conflicts\n\nNone." in md
    assert "### Recommendations\n\nNone." in md
    assert "### Diagnostics\n\nNone." in md
    assert "### Anomalies" not in md and "### Attempts" not in md
    assert not _tables(md)


def test_whatif_result_shows_the_balance_and_every_pair() -> None:
    md = whatif_to_markdown(WhatIfDocument.from_dict(whatif_report()))
    assert md.startswith(
        "## deltaforensics what-if: `Partition the table by date, region; Enable deletion vectors (delta.enableDeletionVectors = true)` on "
    )
    assert (
        "**seen: avoids 2 of 3 conflicts seen (errors, attempts, model-predicted races), "
        "introduces 0** · conflicts 3 → 1 · fragile races 2 → 1"
    ) in md
    html = _render(md)
    assert "script" not in html.tags
    assert [row[0] for row in html.rows] == ["Loser", "v21", "attempt MERGE INTO orders | `t`"]
    assert SCRIPT in "".join(html.data)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a|b", "a\\|b"),
        ("`x`", "\\`x\\`"),
        ("line\nnext\r\nlast", "line<br>next<br>last"),
        ("<b>&", "&lt;b&gt;&amp;"),
        ("*a* _b_ [c](d) ~~e~~ $f$ \\", "\\*a\\* \\_b\\_ \\[c\\](d) \\~\\~e\\~\\~ \\$f\\$ \\\\"),
        (None, ""),
        (3, "3"),
        (["date", None], '\\["date", null\\]'),
    ],
)
def test_text_escapes_markdown_and_html(value: Any, expected: str) -> None:
    assert text(value) == expected


@pytest.mark.parametrize(
    ("value", "in_table", "expected"),
    [
        ("a = 1", True, "`a = 1`"),
        ("a | b", True, "`a \\| b`"),
        ("a | b", False, "`a | b`"),
        ("x ``y`` z", True, "```x ``y`` z```"),
        ("`edge", True, "`` `edge ``"),
        ("two\nlines", True, "`two lines`"),
        (None, True, "—"),
    ],
)
def test_code_spans_survive_backticks_pipes_and_newlines(
    value: Any, in_table: bool, expected: str
) -> None:
    assert code(value, in_table=in_table) == expected


def test_fences_are_longer_than_any_backtick_run_inside() -> None:
    assert fenced("select 1\n") == "```\nselect 1\n```"
    assert fenced("a ```` b") == "`````\na ```` b\n`````"


def test_a_tag_from_the_log_is_cut_out_of_code_and_a_comparison_is_not() -> None:
    assert code("date < '2024-02-02'") == "`date < '2024-02-02'`"
    assert code("x <script>alert(1)</script>") == "`x `&lt;`script>alert(1)`&lt;`/script>`"
    assert fenced("SELECT 1 WHERE a < 2") == "```\nSELECT 1 WHERE a < 2\n```"
    block = fenced("MERGE INTO t USING <source> s\nON a <img src=x onerror=alert(1)>")
    assert block == (
        "<pre>\nMERGE INTO t USING &lt;source&gt; s\nON a &lt;img src=x onerror=alert(1)&gt;\n</pre>"
    )
