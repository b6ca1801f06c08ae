"""Terminal output escapes what comes from the log; the SQL attempt parser fails cleanly."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from deltaforensics.analysis import analyze, open_store
from deltaforensics.attempts import attempt_transaction
from deltaforensics.profiles import delta_spark
from deltaforensics.report.document import explain_document
from deltaforensics.report.to_rich import render_explain
from tests.conftest import SAMPLE_LOGS
from tests.support import LogBuilder

EXAMPLES = int(os.environ.get("DELTAFORENSICS_FUZZ_EXAMPLES", "80"))
MARKUP = "[bold red]PWNED[/bold red] <script>alert(1)</script>"


def test_rich_report_prints_log_markup_as_text(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path / "t", partition_by=["date"], writer="databricks-14.3")
    b.create()
    b.write(add=[b.file("date=A")], read_version=0, blind=True)
    b.write(add=[b.file("date=A")], read_version=1, blind=True)
    b.update(
        f"date = 'A' AND note = '{MARKUP}'",
        remove=b.live_files("date=A")[:1],
        add=[b.file("date=A")],
        read_version=1,
        commit_info_extra={"userName": MARKUP},
    )
    doc = explain_document(analyze(open_store(str(tmp_path / "t")), recommendations=False))
    doc["table"]["uri"] = MARKUP
    buffer = io.StringIO()
    render_explain(doc, Console(file=buffer, width=200, color_system=None, force_terminal=False))
    text = buffer.getvalue()
    assert "[bold red]PWNED[/bold red]" in text  # shown literally, not interpreted


statements = st.one_of(
    st.text(max_size=120),
    st.builds(
        lambda a, b: f"{a} {b}",
        st.sampled_from(
            [
                "DELETE FROM t WHERE",
                "UPDATE t SET x = 1 WHERE",
                "MERGE INTO t USING s ON",
                "INSERT INTO t",
                "INSERT OVERWRITE t PARTITION",
                "OPTIMIZE t WHERE",
                "ALTER TABLE t",
            ]
        ),
        st.text(max_size=60),
    ),
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(statements)
def test_the_sql_attempt_parser_only_raises_value_error(sql: str) -> None:
    rep = analyze(
        open_store(str(SAMPLE_LOGS / "schema_change_during_writes")), recommendations=False
    ).loaded.replay
    try:
        attempt_transaction(sql, rep, read_version=3, profile=delta_spark())
    except ValueError as exc:
        assert "\n" not in str(exc).strip()
    except Exception as exc:  # the property under test: nothing else may escape
        pytest.fail(f"{type(exc).__name__}: {exc}")
