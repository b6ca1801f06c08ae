"""``history --engine spark`` prints the polars engine's document, for every table.

The commits of every corpus table and sample log are read in one Spark job
(``SparkEngine.prefetch``); ``load_commits`` then scans each table with its engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from deltaforensics.analysis import load_commits, open_store
from deltaforensics.cli import app
from deltaforensics.engines.spark_engine import SparkEngine
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.log.listing import list_log
from deltaforensics.log.segment import LogSegment
from deltaforensics.report.document import history_document
from tests.engines.test_spark_parity import ODD_LOGS, TABLES, write_log

pytestmark = pytest.mark.spark

# Odd commits the history path treats specially: W204 (an empty or blank commit), W201.
ODD = ("empty-file", "crlf-and-blank-lines", "unknown-action", "truncated-line")


def history_json(table: Path, engine: SparkEngine | None) -> str:
    store = engine.store if engine is not None else open_store(str(table))
    try:
        _, commits, diagnostics = load_commits(store, engine=engine)
    except Exception as exc:  # both engines must fail alike, whatever the error
        return f"{type(exc).__name__}: {exc}"
    return json.dumps(
        history_document(store.uri, commits, diagnostics).to_dict(), indent=2, default=str
    )


def both(tables: list[Path], spark: Any) -> dict[str, tuple[str, str]]:
    engines = {t: SparkEngine(open_store(str(t)), spark=spark) for t in tables}
    planned = []
    for engine in engines.values():
        try:
            listing = list_log(engine.store)
        except DeltaForensicsError:
            continue
        commits = tuple(sorted(listing.commits.items()))
        segment = LogSegment(
            uri=listing.uri,
            end_version=commits[-1][0] if commits else -1,
            base_version=-1,
            checkpoint=None,
            commits=commits,
        )
        planned.append((engine, segment))
    SparkEngine.prefetch(planned)
    return {t.name: (history_json(t, None), history_json(t, engines[t])) for t in tables}


@pytest.fixture(scope="module")
def histories(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    root = tmp_path_factory.mktemp("odd-history")
    odd = [write_log(root / name, ODD_LOGS[name]) for name in ODD]
    return both([*TABLES, *odd], spark)


@pytest.mark.parametrize(
    "name", [pytest.param(t.name, id=f"{t.parent.name}/{t.name}") for t in TABLES] + list(ODD)
)
def test_history_with_spark_is_the_polars_document(
    name: str, histories: dict[str, tuple[str, str]]
) -> None:
    expected, got = histories[name]
    assert got == expected


def test_an_empty_commit_is_reported_by_both_engines(
    histories: dict[str, tuple[str, str]],
) -> None:
    expected, got = histories["empty-file"]
    assert '"W204"' in expected
    assert got == expected


def test_history_cli_takes_the_spark_engine(spark: Any, tmp_path: Path) -> None:
    table = write_log(tmp_path / "t", ODD_LOGS["unknown-action"])
    runner = CliRunner()
    args = ["history", str(table), "--format", "json", "--to-version", "1"]
    polars = runner.invoke(app, args)
    with_spark = runner.invoke(app, [*args, "--engine", "spark", "--spark-conf", "a.b=c"])
    assert polars.exit_code == 0, polars.output
    assert with_spark.exit_code == 0, with_spark.output
    assert with_spark.stdout == polars.stdout
    assert json.loads(polars.stdout)["commits"][-1]["version"] == 1
