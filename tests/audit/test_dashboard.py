"""``audit`` writes ``dashboard.html``: self-contained, rendered by real headless Chromium, and
showing exactly the numbers of the parquet datasets beside it.

The fleet is real: every corpus table and sample log, one sample also replayed under the
Delta-Spark 3.2 checker (where its two concurrent OPTIMIZE runs are a predicted conflict), and
one copy of a sample whose job name is hostile HTML. The expected numbers are counted here with
polars from the parquet files; the shown ones are read from the DOM Chromium rendered.
"""

from __future__ import annotations

import json
import shutil
import struct
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from deltaforensics.audit.dashboard.charts import heatmap
from deltaforensics.audit.dashboard.fleet import (
    BUCKET_WIDTHS,
    MAX_BUCKETS,
    RaceCounts,
    WriterPair,
    bucket_width,
    read_datasets,
)
from deltaforensics.audit.dashboard.page import DASHBOARD
from deltaforensics.audit.dashboard.writers import with_writer, writer_name
from deltaforensics.audit.datasets import DATASETS
from deltaforensics.cli import main
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.support.browser import PageVisit, chromium, find_chromium, require_chromium

SCRIPT = "<script>alert(1)</script>"
SPARK_COPY = "sample.deltars_concurrent_optimize.on_spark"


def _config(tmp: Path) -> Path:
    hostile = tmp / "hostile"
    shutil.copytree(
        SAMPLE_LOGS / "merge_without_partition_literal" / "_delta_log", hostile / "_delta_log"
    )
    for commit in (hostile / "_delta_log").glob("*.json"):
        text = commit.read_text(encoding="utf-8")
        commit.write_text(text.replace("orders_status_merge", SCRIPT.replace('"', "")), "utf-8")
    tables = [(p.name, p) for p in corpus_tables()]
    tables += [
        (f"sample.{p.name}", p)
        for p in sorted(SAMPLE_LOGS.iterdir())
        if (p / "_delta_log").is_dir()
    ]
    lines = ['output = "out"']
    for name, path in [*tables, ("hostile", hostile)]:
        lines += ["[[tables]]", f"name = {json.dumps(name)}", f"uri = {json.dumps(str(path))}"]
    spark = SAMPLE_LOGS / "deltars_concurrent_optimize"
    lines += [
        "[[tables]]",
        f"name = {json.dumps(SPARK_COPY)}",
        f"uri = {json.dumps(str(spark))}",
        'profile = "delta-spark-3.2"',
    ]
    config = tmp / "fleet.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output directory of one real audit of the fleet."""
    tmp = tmp_path_factory.mktemp("fleet")
    code = main(["--quiet", "audit", str(_config(tmp))])
    assert code == 3  # two corpus tables cannot be reconstructed: they fail, the rest run
    return tmp / "out"


@pytest.fixture(scope="module")
def summary(audited: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((audited / "summary.json").read_text())
    return doc


@pytest.fixture(scope="module")
def frames(audited: Path, summary: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """The datasets as a dashboard tool reads them: every part file, straight from parquet."""
    ok = {t["name"] for t in summary["tables"] if t["status"] == "ok"}
    out = {}
    for name in DATASETS:
        df = pl.read_parquet(audited / "datasets" / name / "**" / "*.parquet")
        out[name] = df.filter(pl.col("table").is_in(ok))
    return out


def status_of(races: pl.DataFrame) -> pl.DataFrame:
    """The explain report's colours, counted here on their own: a predicted conflict is a race
    the checker fails; a fragile race commits with at least one change that would fail it."""
    commits = pl.col("outcome") == "commits"
    return races.with_columns(
        (~commits).alias("predicted"), (commits & (pl.col("fragile_under") > 0)).alias("fragile")
    )


# --------------------------------------------------------------------------- the page itself


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_dashboard_is_written_beside_the_datasets_and_is_self_contained(
    audited: Path,
) -> None:
    html = (audited / DASHBOARD).read_text(encoding="utf-8")
    page = _Elements()
    page.feed(html)
    tags = {t for t, _ in page.tags}
    assert not tags & {"script", "link", "iframe", "object", "embed", "img", "form"}
    attrs = [(n, v) for _, a in page.tags for n, v in a.items()]
    assert not [n for n, _ in attrs if n in ("src", "srcset", "action") or n.startswith("on")]
    assert not [v for _, v in attrs if "http:" in v or "https:" in v or "//" in v]
    assert "@import" not in html and "url(" not in html and "@font-face" not in html
    csp = [a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0] and "script-src" not in csp[0]
    assert SCRIPT in "".join(page.text), "the hostile job name is shown as text"


def test_human_words_only(audited: Path) -> None:
    """Writers by job, notebook or user; changes and anomalies in words, not internal kinds."""
    page = _Elements()
    page.feed((audited / DASHBOARD).read_text(encoding="utf-8"))
    text = "".join(page.text)
    for named in ("job orders_status_merge", "job gdpr_delete", "user analyst@example.com"):
        assert named in text
    for token in ("separate-schedules", "duplicate-remove", "lost-overwrite", "duplicate-app-id"):
        assert token not in text
    assert "Never run job events_nightly_optimize and job gdpr_delete at the same time" in text


def test_a_writer_is_named_as_the_explain_report_names_it(
    audited: Path, frames: dict[str, pl.DataFrame]
) -> None:
    commits = with_writer(frames["commits"])
    checked = 0
    for report in (audited / "reports").glob("sample.*.json"):
        doc = json.loads(report.read_text())
        mine = commits.filter(pl.col("table") == report.stem)
        for c in doc["commits"]:
            row = mine.filter(pl.col("version") == c["version"]).row(0, named=True)
            # The report adds the cluster after the job, notebook or user it names.
            assert c["writer"].startswith(row["writer"]) or row["writer"].startswith("unnamed")
            checked += 1
    assert checked > 50


def test_a_commit_naming_nobody_is_called_by_its_engine() -> None:
    assert writer_name({"engine_info": "Apache-Spark/3.5.0 Delta-Lake/3.2.0"}) == (
        "unnamed writer (Apache-Spark/3.5.0)"
    )
    assert writer_name({"job": '{"jobId": "7"}', "user_name": "ann"}) == "job 7"
    assert writer_name({"user_name": "ann", "cluster_id": "c1"}) == "user ann"
    assert writer_name({"cluster_id": "c1"}) == "cluster c1"


@pytest.mark.parametrize(
    ("first", "last", "width"),
    [
        (0, 999, 1_000),
        (0, 29_999, 1_000),
        (0, 30_000, 10_000),
        (1_709_532_000_000, 1_709_540_880_000, 5 * 60_000),  # 2h28m: 5-minute buckets
        (0, 3 * 365 * 86_400_000, 91 * 86_400_000),
    ],
)
def test_buckets_are_round_and_at_most_thirty(first: int, last: int, width: int) -> None:
    assert bucket_width(first, last) == width
    assert last // width - first // width + 1 <= MAX_BUCKETS
    assert width in BUCKET_WIDTHS


def test_a_failed_table_is_listed_and_the_others_still_shown(audited: Path) -> None:
    text = (audited / DASHBOARD).read_text(encoding="utf-8")
    failed = text.split('id="failed"', 1)[1]
    assert "delta__versions-not-contiguous" in failed and "cannot be reconstructed" in failed


def test_a_failed_table_is_named_at_the_top_with_its_error(audited: Path) -> None:
    """Issue #32, item 8: not only "2 failed" in a card, with the names at the page's end."""
    text = (audited / DASHBOARD).read_text(encoding="utf-8")
    header = text.split("</header>", 1)[0]
    assert 'failed: <a href="#failed-0">' in header and "delta__versions-not-contiguous" in header
    assert text.index('id="failed"') < text.index('id="tables"')


def test_a_long_writer_name_heads_its_column_cut_and_whole_on_hover() -> None:
    long = "notebook /Users/" + "x" * 80
    pair = WriterPair(racer="job a", winner=long, counts=RaceCounts(races=1, fragile=1))
    page = heatmap([pair])
    assert f'title="{long}"' in page
    assert f"<span>{long[:39]}…</span>" in page


# --------------------------------------------------------------------------- in Chromium

_READ_DOM = """(() => {
  const text = el => el.textContent.trim();
  const shown = el => el.innerText.trim();
  return {
    cards: Object.fromEntries([...document.querySelectorAll('.card b[data-metric]')]
      .map(b => [b.dataset.metric, shown(b)])),
    tables: [...document.querySelectorAll('#tables span[data-table][data-metric]')]
      .map(s => [s.dataset.table, s.dataset.metric, shown(s)]),
    quiet: [...document.querySelectorAll('#tables details p')].map(text).join(''),
    timelines: [...document.querySelectorAll('.over-time')].map(d => [d.dataset.table,
      [...d.querySelectorAll('g.bucket')].map(g => Object.assign({}, g.dataset,
        {label: g.querySelector('text.count') ? text(g.querySelector('text.count')) : null}))]),
    heat: [...document.querySelectorAll('td.heat[data-racer]')].map(td =>
      Object.assign({}, td.dataset, {shown: shown(td.querySelector('.n'))})),
    writers: [...document.querySelectorAll('#fragile-writers span[data-writer]')]
      .map(s => [s.dataset.writer, s.dataset.metric, shown(s)]),
    recommendations: [...document.querySelectorAll('#recommendations tbody tr')]
      .map(tr => [...tr.cells].map(shown)),
    anomalies: [...document.querySelectorAll('#anomalies tbody tr')]
      .map(tr => shown(tr.cells[0])),
  };
})()"""


@pytest.fixture(scope="module")
def rendered(
    audited: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, bytes, PageVisit]:
    exe = require_chromium(find_chromium())
    with (
        chromium(exe, tmp_path_factory.mktemp("chromium")) as browser,
        browser.open(audited / DASHBOARD) as tab,
    ):
        dom = tab.evaluate(_READ_DOM)
        shot = tab.screenshot()
        visit = tab.collect()
    return dom, shot, visit


def test_chromium_renders_it_without_errors_or_requests(
    rendered: tuple[Any, bytes, PageVisit], audited: Path
) -> None:
    _, shot, visit = rendered
    assert visit.errors == [], visit.errors
    assert [m for m in visit.console if not m.startswith(("verbose", "info"))] == []
    assert visit.requests == [(audited / DASHBOARD).resolve().as_uri()], visit.requests
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", shot[16:24])
    assert width == 1400 and height > 2000, "the whole page, not the window"
    assert len(shot) > 100_000, "the screenshot looks blank"


def test_the_cards_equal_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame], summary: dict[str, Any]
) -> None:
    races = status_of(frames["races"])
    expected = {
        "tables": sum(t["status"] == "ok" for t in summary["tables"]),
        "commits": frames["commits"].height,
        "races": races.height,
        "fragile": int(races["fragile"].sum()),
        "predicted": int(races["predicted"].sum()),
        "seen": frames["conflicts"].height,
        "anomalies": frames["anomalies"].height,
        "recommendations": frames["recommendations"].height,
    }
    assert {k: int(v) for k, v in rendered[0]["cards"].items()} == expected
    assert expected["predicted"] >= 1 and expected["fragile"] >= 5  # the fleet has both


def test_every_table_row_equals_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame], summary: dict[str, Any]
) -> None:
    races = status_of(frames["races"])

    def per_table(df: pl.DataFrame, where: pl.Expr | None = None) -> dict[str, int]:
        df = df.filter(where) if where is not None else df
        return dict(df.group_by("table").len().rows())

    expected_by_metric = {
        "commits": per_table(frames["commits"]),
        "races": per_table(races),
        "fragile": per_table(races, pl.col("fragile")),
        "predicted": per_table(races, pl.col("predicted")),
        "seen": per_table(frames["conflicts"]),
        "anomalies": per_table(frames["anomalies"]),
        "recommendations": per_table(frames["recommendations"]),
    }
    shown = rendered[0]["tables"]
    assert shown
    for table, metric, value in shown:
        assert int(value) == expected_by_metric[metric].get(table, 0), (table, metric)
    listed = {t for t, _, _ in shown}
    busy = {
        t
        for metric in ("races", "seen", "anomalies", "recommendations")
        for t in expected_by_metric[metric]
    }
    assert listed == busy
    ok = [t["name"] for t in summary["tables"] if t["status"] == "ok"]
    quiet = rendered[0]["quiet"].split(", ")
    assert sorted(quiet) == sorted(set(ok) - busy)


def test_every_bucket_of_every_timeline_equals_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame]
) -> None:
    races = status_of(frames["races"]).join(
        frames["commits"].select("table", "version", "timestamp"),
        on=["table", "version"],
        how="left",
    )
    timelines = rendered[0]["timelines"]
    assert {t for t, _ in timelines} == set(races["table"].unique()) | set(
        frames["conflicts"]["table"].unique()
    )
    for table, buckets in timelines:
        mine = races.filter(pl.col("table") == table)
        commits = frames["commits"].filter(pl.col("table") == table)
        drawn = 0
        for b in buckets:
            start, end = int(b["start"]), int(b["end"])
            inside = pl.col("timestamp").is_between(start, end, closed="left")
            r = mine.filter(inside)
            assert int(b["commits"]) == commits.filter(inside).height, (table, start)
            assert int(b["races"]) == r.height, (table, start)
            assert int(b["fragile"]) == int(r["fragile"].sum()), (table, start)
            assert int(b["predicted"]) == int(r["predicted"].sum()), (table, start)
            assert b["label"] == (str(r.height) if r.height else None), (table, start)
            drawn += r.height
        assert drawn == mine["timestamp"].is_not_null().sum()


def test_the_writer_heatmap_equals_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame]
) -> None:
    """Each cell: the races of the row's writer rebased over a commit of the column's writer."""
    writers = with_writer(frames["commits"]).select("table", "version", "writer")
    races = status_of(frames["races"]).join(writers, on=["table", "version"])
    pairs = (
        races.with_columns(pl.col("winners").str.json_decode(pl.List(pl.Int64)))
        .explode("winners")
        .join(
            writers.rename({"version": "winners", "writer": "winner"}),
            on=["table", "winners"],
        )
        .unique(["table", "version", "winner"])
        .group_by("writer", "winner")
        .agg(pl.len().alias("races"), pl.col("predicted").sum(), pl.col("fragile").sum())
    )
    expected = {(r["writer"], r["winner"]): r for r in pairs.iter_rows(named=True)}
    cells = rendered[0]["heat"]
    assert cells
    for cell in cells:
        want = expected[(cell["racer"], cell["winner"])]
        assert int(cell["races"]) == int(cell["shown"]) == want["races"], cell
        assert int(cell["conflicts"]) == want["predicted"], cell
        assert int(cell["fragile"]) == want["fragile"], cell
    assert any(int(c["conflicts"]) for c in cells), "the predicted conflict is on the map"


def test_the_fragile_writers_equal_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame]
) -> None:
    writers = with_writer(frames["commits"]).select("table", "version", "writer")
    races = status_of(frames["races"]).join(writers, on=["table", "version"])
    by_writer = {
        r["writer"]: r
        for r in races.group_by("writer")
        .agg(
            pl.len().alias("races"),
            pl.col("fragile").sum(),
            pl.col("predicted").sum(),
            pl.col("fragile_under").sum().alias("changes_away"),
        )
        .iter_rows(named=True)
    }
    shown = rendered[0]["writers"]
    assert {w for w, _, _ in shown} == set(by_writer)
    for writer, metric, value in shown:
        want = 0 if metric == "seen" else by_writer[writer][metric]
        assert int(value) == want, (writer, metric)
    order = list(dict.fromkeys(w for w, _, _ in shown))
    worst = max(by_writer.values(), key=lambda r: (r["predicted"], r["fragile"], r["races"]))
    assert order[0] == worst["writer"]


def test_recommendations_and_anomalies_equal_the_datasets(
    rendered: tuple[Any, bytes, PageVisit], frames: dict[str, pl.DataFrame]
) -> None:
    recs = frames["recommendations"].sort("table", "rank")
    shown = rendered[0]["recommendations"]
    assert [(r[0], int(r[2]), int(r[3])) for r in shown] == [
        (r["table"], r["conflicts_avoided"], r["conflicts_introduced"])
        for r in recs.iter_rows(named=True)
    ]
    assert sorted(rendered[0]["anomalies"]) == sorted(frames["anomalies"]["table"].to_list())


def test_the_page_reads_the_same_datasets_the_audit_wrote(
    audited: Path, frames: dict[str, pl.DataFrame], summary: dict[str, Any]
) -> None:
    ok = [t["name"] for t in summary["tables"] if t["status"] == "ok"]
    mine = read_datasets(audited / "datasets", ok)
    for name, df in frames.items():
        assert (
            mine[name]
            .sort(mine[name].columns)
            .equals(df.select(mine[name].columns).sort(mine[name].columns))
        ), name


def test_a_part_with_another_schema_is_read_cast_like_the_rest(
    audited: Path, summary: dict[str, Any], tmp_path: Path
) -> None:
    """One part written with a column typed Null (as an empty frame of an older release would
    be) sends the page to part-by-part reading, with the same rows."""
    ok = [t["name"] for t in summary["tables"] if t["status"] == "ok"]
    copy = tmp_path / "datasets"
    shutil.copytree(audited / "datasets", copy)
    part = copy / "conflicts" / f"table={ok[0]}" / "part-0.parquet"
    old = pl.read_parquet(part)
    column = next(c for c, t in old.schema.items() if t == pl.String and c != "table")
    old.with_columns(pl.lit(None).alias(column)).write_parquet(part)
    assert pl.read_parquet_schema(part)[column] == pl.Null
    before = read_datasets(audited / "datasets", ok)["conflicts"]
    after = read_datasets(copy, ok)["conflicts"]
    assert after.schema == before.schema
    if old.height:
        before = before.with_columns(
            pl.when(pl.col("table") == ok[0]).then(None).otherwise(pl.col(column)).alias(column)
        )
    assert after.sort(after.columns).equals(before.sort(before.columns))


def test_the_browser_check_sees_console_errors_and_requests(tmp_path: Path) -> None:
    """The harness must be able to fail: a page that logs an error and calls out is caught."""
    page = tmp_path / "noisy.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>noisy</p><script>console.error('boom');"
        "fetch('http://127.0.0.1:9/x').catch(() => {});</script></body></html>",
        encoding="utf-8",
    )
    exe = require_chromium(find_chromium())
    with chromium(exe, tmp_path / "profile") as browser, browser.open(page) as tab:
        assert tab.evaluate("document.querySelector('p').innerText") == "noisy"
        visit = tab.collect()
    assert "boom" in visit.errors
    assert "http://127.0.0.1:9/x" in visit.requests
