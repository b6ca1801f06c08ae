"""Terminal output escapes what comes from the log; the SQL attempt parser fails cleanly."""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from deltaforensics.analysis import analyze, open_store
from deltaforensics.attempts import attempt_transaction
from deltaforensics.cli import main
from deltaforensics.profiles import delta_spark
from deltaforensics.report.document import explain_document
from deltaforensics.report.plain import visible
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
    doc = replace(doc, table=replace(doc.table, uri=MARKUP))
    buffer = io.StringIO()
    render_explain(doc, Console(file=buffer, width=200, color_system=None, force_terminal=False))
    text = buffer.getvalue()
    assert "[bold red]PWNED[/bold red]" in text  # shown literally, not interpreted


# What a committer can put in a log to drive the terminal of whoever reads the report (window
# title, clear screen, an OSC 8 hyperlink, BEL, C1 CSI and NEL) or a page that renders it.
HOSTILE = (
    "\x1b]0;owned\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
    "\x9b31m\x85\x7f\u202e <script>alert(1)</script> <img src=x onerror=alert(1)>"
)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
RAW_TAG = re.compile(r"<\s*(script|img)", re.IGNORECASE)


def _hostile_log(root: Path) -> Path:
    """A race between a DELETE and an UPDATE whose user and job names, operation parameters,
    predicates, partition values and file paths all carry ``HOSTILE``."""

    def commit(op: str, params: dict[str, str], read: int | None, ts: int, job: bool) -> Any:
        info: dict[str, Any] = {
            "timestamp": ts,
            "operation": op,
            "operationParameters": params,
            "isolationLevel": "Serializable",
            "isBlindAppend": False,
            "engineInfo": "Apache-Spark/3.5.0 Delta-Lake/3.1.0",
            "userName": HOSTILE,
        }
        if job:
            info["job"] = {"jobId": "1", "jobName": HOSTILE}
        if read is not None:
            info["readVersion"] = read
        return {"commitInfo": info}

    def file(kind: str, name: str, ts: int) -> Any:
        """An add or a remove of ``p=HOSTILE/name`` at time ``ts``."""
        when = "modificationTime" if kind == "add" else "deletionTimestamp"
        action = {"path": f"p={HOSTILE}/{name}", "partitionValues": {"p": HOSTILE}, "size": 10}
        return {kind: {**action, when: ts, "dataChange": True}}

    fields = [{"name": n, "type": "string", "nullable": True, "metadata": {}} for n in ("p", "x")]
    metadata = {
        "id": "t",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps({"type": "struct", "fields": fields}),
        "partitionColumns": ["p"],
        "configuration": {},
    }
    predicate = json.dumps([f"(p = '{HOSTILE}')"])
    commits = [
        [
            commit("CREATE TABLE", {}, None, 1000, job=True),
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": metadata},
        ],
        [commit("WRITE", {"mode": "Append"}, 0, 2000, job=True), file("add", "a.parquet", 2000)],
        [commit("WRITE", {"mode": HOSTILE}, 1, 3000, job=False), file("add", "b.parquet", 3000)],
        [
            commit("DELETE", {"predicate": predicate}, 1, 4000, job=True),
            file("remove", "a.parquet", 4000),
        ],
        [
            commit("UPDATE", {"predicate": predicate}, 2, 5000, job=False),
            file("remove", "b.parquet", 5000),
            file("add", "c.parquet", 5000),
        ],
    ]
    log = root / "_delta_log"
    log.mkdir(parents=True)
    for v, actions in enumerate(commits):
        text = "\n".join(json.dumps(a) for a in actions) + "\n"
        (log / f"{v:020d}.json").write_text(text, encoding="utf-8")
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert not RAW_CONTROL.search(err), "a warning printed a raw control character"
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_control_characters_and_html_from_the_log_are_shown_not_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    t = str(_hostile_log(tmp_path / "t"))
    human = {
        "rich": _run(capsys, "explain", t, "--format", "rich"),
        "markdown": _run(capsys, "explain", t, "--format", "markdown"),
        "html": _run(capsys, "explain", t, "--format", "html"),
        "whatif markdown": _run(capsys, "whatif", t, "--deletion-vectors", "--format", "markdown"),
        "history": _run(capsys, "history", t, "--format", "table"),
        "snapshot": _run(capsys, "snapshot", t, "--format", "table"),
    }
    for name, text in human.items():
        assert not RAW_CONTROL.search(text), (name, RAW_CONTROL.search(text))
        shown = "\\x1b]0;owned\\x07" in text.replace("\\\\", "\\")
        assert shown or name == "whatif markdown", f"{name} hides it"
    for name in ("markdown", "html", "whatif markdown"):
        assert not RAW_TAG.search(human[name]), (name, RAW_TAG.search(human[name]))
    # JSON keeps the exact text, in every place the log had it
    history = json.loads(_run(capsys, "history", t, "--format", "json"))
    commits = history["commits"]
    assert commits[1]["job"]["jobName"] == HOSTILE
    assert commits[2]["user_name"] == HOSTILE
    assert commits[2]["operation_parameters"]["mode"] == HOSTILE
    assert commits[3]["operation_parameters"]["predicate"] == json.dumps([f"(p = '{HOSTILE}')"])
    (live,) = json.loads(_run(capsys, "snapshot", t, "--format", "json"))["files"]
    assert live == {
        "path": f"p={HOSTILE}/c.parquet",
        "partition_values": {"p": HOSTILE},
        "size": 10,
        "deletion_vector": None,
    }
    explain = json.loads(_run(capsys, "explain", t, "--format", "json"))
    assert any(HOSTILE in s for s in _strings(explain))
    assert not any(visible(HOSTILE) in s for s in _strings(explain))


def test_visible_names_every_control_character_and_keeps_what_the_format_allows() -> None:
    assert visible("a\x1bb\x07\x9b\x00\x7f\u202e") == "a\\x1bb\\x07\\x9b\\x00\\x7f\\u202e"
    assert visible("line\n\tcell", keep="\n\t") == "line\n\tcell"
    assert visible("line\n\tcell") == "line\\x0a\\x09cell"
    assert visible("plain ü € 日本") == "plain ü € 日本"


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
