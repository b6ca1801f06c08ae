"""What the analysis can and cannot see: races of commits that record no ``readVersion`` are
"could not check", never "no races" (issue #31, item 1)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console

from deltaforensics.analysis import analyze, open_store
from deltaforensics.audit.datasets import build_datasets, schema
from deltaforensics.report.document import ExplainDocument, explain_document
from deltaforensics.report.to_html import to_html
from deltaforensics.report.to_markdown import to_markdown
from deltaforensics.report.to_rich import render_explain
from deltaforensics.report.validate import validate
from tests.support import LogBuilder

COLUMNS = {"id": "long", "date": "string"}


@pytest.fixture
def kernel_log(tmp_path: Path) -> Path:
    """A Delta Kernel writer's table: v0 created, v1–v13 appended, no readVersion anywhere."""
    b = LogBuilder(
        tmp_path / "kernel", columns=COLUMNS, partition_by=["date"], writer="kernel-java"
    )
    b.create()
    for day in range(13):
        b.write(add=[b.file(f"date=2024-03-{day + 1:02d}")])
    return tmp_path / "kernel"


@pytest.fixture
def mixed_log(tmp_path: Path) -> Path:
    """Kernel appends at v1–v3 and v5, a Delta-Spark append that read v2 at v4 (a seen race)."""
    b = LogBuilder(tmp_path / "mixed", columns=COLUMNS, partition_by=["date"], writer="kernel-java")
    b.create()
    for _ in range(3):
        b.write(add=[b.file("date=A")])
    b.write(add=[b.file("date=B")], writer="spark-3.2", read_version=2)
    b.write(add=[b.file("date=B")])
    return tmp_path / "mixed"


def _rich(doc: ExplainDocument) -> str:
    buf = io.StringIO()
    render_explain(doc, Console(file=buf, width=80, color_system=None, highlight=False))
    return " ".join(buf.getvalue().split())


def test_commits_without_a_read_version_are_unknown_not_clean(kernel_log: Path) -> None:
    doc = explain_document(analyze(open_store(str(kernel_log))))
    assert doc.races == ()
    assert doc.race_visibility is not None
    assert doc.race_visibility.unknown_versions == ((1, 13),)
    assert "kernel" in doc.race_visibility.reason
    data = doc.to_dict()
    validate(data, "explain")
    assert data["race_visibility"]["unknown_versions"] == [[1, 13]]  # type: ignore[index]
    (w304,) = [d for d in doc.diagnostics if d.code == "W304"]
    assert w304.severity == "warning" and w304.version == 1 and "1-13" in w304.message
    rich = _rich(doc)
    assert "races: unknown for v1–v13" in rich
    assert "every commit read the version just before it" not in rich
    assert "races: unknown for v1–v13" in to_markdown(doc)
    assert "races: unknown for v1–v13" in to_html(doc)


def test_only_the_versions_without_one_are_unknown(mixed_log: Path) -> None:
    doc = explain_document(analyze(open_store(str(mixed_log))))
    assert [r.version for r in doc.races] == [4]
    assert doc.race_visibility is not None
    assert doc.race_visibility.unknown_versions == ((1, 3), (5, 5))
    assert "races: unknown for v1–v3, v5" in _rich(doc)
    rows = build_datasets("t", doc, _no_commits())["race_visibility"]
    assert rows.select("table", "first_version", "last_version").rows() == [
        ("t", 1, 3),
        ("t", 5, 5),
    ]


def test_a_log_whose_read_versions_are_all_known_has_no_field(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path / "spark", columns=COLUMNS, partition_by=["date"], writer="spark-3.2")
    b.create()  # version 0 reads nothing: never unknown
    b.write(add=[b.file("date=A")])
    doc = explain_document(analyze(open_store(str(tmp_path / "spark"))))
    assert doc.race_visibility is None
    assert "race_visibility" not in doc.to_dict()
    assert not [d for d in doc.diagnostics if d.code == "W304"]
    assert build_datasets("t", doc, _no_commits())["race_visibility"].is_empty()


def test_the_cli_json_carries_it(kernel_log: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "deltaforensics", "explain", str(kernel_log), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout)["race_visibility"]["unknown_versions"] == [[1, 13]]


def _no_commits() -> pl.DataFrame:
    return pl.DataFrame(schema=schema("commits"))
