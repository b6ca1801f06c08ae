from __future__ import annotations

import copy
import struct
import subprocess
import typing
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deltaforensics.report.change_words import change_json_words
from deltaforensics.report.document import ExplainDocument
from deltaforensics.report.html.timeline import ticks
from deltaforensics.report.plain import change_text
from deltaforensics.report.to_html import MAX_TIMELINE_ROWS, to_html
from deltaforensics.whatif import scenario
from tests.report import (
    IMG,
    SAMPLE_LOGS,
    SAMPLES,
    SCRIPT,
    URI,
    cli_json,
    empty_explain_report,
    explain_report,
)
from tests.support.browser import HEADLESS_FLAGS, find_chromium, require_chromium

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _Dom(HTMLParser):
    """Elements (with attributes), text, and whether every element is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def classes(self, tag: str) -> list[str]:
        return [attrs.get("class", "") for t, attrs in self.elements if t == tag]

    def count(self, tag: str) -> int:
        return sum(t == tag for t, _ in self.elements)


def _parse(html: str) -> _Dom:
    dom = _Dom()
    dom.feed(html)
    dom.close()
    return dom


def test_the_page_is_well_formed_html() -> None:
    dom = _parse(to_html(ExplainDocument.from_dict(explain_report())))
    assert dom.errors == []
    assert dom.stack == []


def test_output_is_deterministic() -> None:
    doc = explain_report()
    assert to_html(ExplainDocument.from_dict(doc)) == to_html(
        ExplainDocument.from_dict(copy.deepcopy(doc))
    )


def test_the_page_is_self_contained_and_forbids_scripts_and_fetches() -> None:
    html = to_html(ExplainDocument.from_dict(explain_report()))
    dom = _parse(html)
    tags = {t for t, _ in dom.elements}
    assert not tags & {
        "script",
        "link",
        "iframe",
        "object",
        "embed",
        "img",
        "video",
        "audio",
        "form",
    }
    attrs = [(name, value) for _, a in dom.elements for name, value in a.items()]
    assert not [
        n for n, _ in attrs if n in ("src", "srcset", "data", "action", "poster", "background")
    ]
    assert all(v.startswith("#") for n, v in attrs if n == "href"), "only in-page links"
    assert not [v for _, v in attrs if "http:" in v or "https:" in v or "//" in v]
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    assert "url(" not in style and "@import" not in style and "@font-face" not in style
    csp = [
        a["content"]
        for t, a in dom.elements
        if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert csp and "default-src 'none'" in csp[0] and "script-src" not in csp[0]


def test_every_log_string_is_escaped() -> None:
    html = to_html(ExplainDocument.from_dict(explain_report()))
    assert SCRIPT not in html and IMG not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    dom = _parse(html)
    assert dom.count("script") == 0 and dom.count("img") == 0
    assert not [a for _, attrs in dom.elements for a in attrs if a.startswith("on")]
    text = "".join(dom.text)
    assert SCRIPT in text and IMG in text


def test_the_header_names_table_versions_isolation_and_writers() -> None:
    text = "".join(_parse(to_html(ExplainDocument.from_dict(explain_report()))).text)
    assert URI in text
    assert "0 – 47" in text and "48 commits, 131 live files" in text
    assert "WriteSerializable (table property delta.isolationLevel)" in text
    assert "databricks, delta-rs · checker profiles: databricks 14.3, delta-rs 1.6.6" in text


def test_the_timeline_draws_one_bar_per_race_and_conflict_coloured_by_outcome() -> None:
    dom = _parse(to_html(ExplainDocument.from_dict(explain_report())))
    bars = [c for c in dom.classes("rect") if c.startswith("bar")]
    assert sorted(bars) == sorted(
        [
            "bar warn",
            "bar ok",
            "bar bad",
            "bar warn",
            "bar ok",  # races v12 v16 v21 v40 v44
            "bar conflict failed",
            "bar conflict failed",
            "bar conflict",  # error, attempt, race v21
        ]
    )
    paths = dom.classes("path")
    assert (
        paths.count("win") == 6 + 1 + 2 + 1
    )  # race winners; error winner; attempt candidates; race winner
    assert paths.count("missing") == 1  # v38, not in the retained log
    assert paths.count("cross") == 2  # the two conflicts that never committed
    labels = [a for t, a in dom.elements if t == "a"]
    assert [a["href"] for a in labels][:3] == ["#race-0", "#race-1", "#race-2"]


def test_the_timeline_keeps_conflicts_and_risky_races_when_it_must_cut() -> None:
    doc = explain_report()
    quiet = doc["races"][1]
    doc["races"] = [
        dict(quiet, version=100 + i, read_version=98 + i, winners=[99 + i])
        for i in range(MAX_TIMELINE_ROWS)
    ] + doc["races"]
    dom = _parse(to_html(ExplainDocument.from_dict(doc)))
    bars = [c for c in dom.classes("rect") if c.startswith("bar")]
    assert len(bars) == MAX_TIMELINE_ROWS
    assert bars.count("bar bad") == 1 and bars.count("bar warn") == 2
    assert sum(c.startswith("bar conflict") for c in bars) == 3
    assert f"Showing {MAX_TIMELINE_ROWS} of {MAX_TIMELINE_ROWS + 8} rows" in "".join(dom.text)


def test_every_section_is_a_table_with_a_row_per_entry() -> None:
    doc = explain_report()
    dom = _parse(to_html(ExplainDocument.from_dict(doc)))
    ids = [a.get("id", "") for t, a in dom.elements if t == "tr" and a.get("id")]
    for prefix, key in [
        ("race", "races"),
        ("conflict", "conflicts"),
        ("attempt", "attempts"),
        ("anomaly", "anomalies"),
        ("recommendation", "recommendations"),
        ("diagnostic", "diagnostics"),
    ]:
        assert [i for i in ids if i.startswith(prefix + "-")] == [
            f"{prefix}-{n}" for n in range(len(doc[key]))
        ]


def test_apply_is_shown_verbatim_in_pre() -> None:
    html = to_html(ExplainDocument.from_dict(explain_report()))
    assert (
        "<pre>CREATE TABLE orders_v2\nPARTITIONED BY (date, region)\nAS SELECT * FROM orders;"
        in html
    )


def test_an_empty_report_renders_without_a_timeline() -> None:
    html = to_html(ExplainDocument.from_dict(empty_explain_report()))
    dom = _parse(html)
    assert dom.errors == [] and dom.count("svg") == 0
    text = "".join(dom.text)
    assert "No races or conflicts: nothing to draw." in text
    assert "No races: every commit read the version just before it." in text


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_log_report_renders_as_well_formed_html(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = cli_json(capsys, "explain", str(SAMPLE_LOGS / sample))
    dom = _parse(to_html(ExplainDocument.from_dict(doc)))
    assert dom.errors == [] and dom.stack == []
    races = [a for t, a in dom.elements if t == "tr" and a.get("id", "").startswith("race-")]
    assert len(races) == len(doc["races"])
    drawable = len(doc["races"]) + len(doc["conflicts"])
    assert len([c for c in dom.classes("rect") if c.startswith("bar")]) == min(
        drawable, MAX_TIMELINE_ROWS
    )


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0, 5, [0, 1, 2, 3, 4, 5]),
        (10, 47, [10, 15, 20, 25, 30, 35, 40, 45]),
        (3, 3, [3]),
        (0, 100_000, list(range(0, 100_001, 10_000))),
    ],
)
def test_axis_ticks_are_round_and_few(lo: int, hi: int, expected: list[int]) -> None:
    assert ticks(lo, hi) == expected


# --- in a real browser ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> str:
    return require_chromium(find_chromium())


def test_a_missing_chromium_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        require_chromium(None)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        require_chromium(None)
    assert require_chromium("/usr/bin/chromium") == "/usr/bin/chromium"


def _run_chromium(
    exe: str, tmp: Path, page: Path, *args: str
) -> subprocess.CompletedProcess[bytes]:
    command = [
        exe,
        *HEADLESS_FLAGS,
        f"--user-data-dir={tmp}",
        "--window-size=1400,1000",
        *args,
        page.as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return result


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_chromium_renders_the_report_and_shows_injected_markup_as_text(
    chromium: str, tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    page.write_text(to_html(ExplainDocument.from_dict(explain_report())), encoding="utf-8")

    dumped = _run_chromium(chromium, tmp_path / "profile-dom", page, "--dump-dom").stdout.decode()
    dom = _parse(dumped)
    assert dom.count("script") == 0, "an injected <script> became an element"
    assert dom.count("img") == 0, "an injected <img onerror> became an element"
    text = "".join(dom.text)
    assert SCRIPT in text and IMG in text
    for expected in (
        URI,
        "ConcurrentDeleteReadException",
        "the same file removed in two versions",  # AN001 in words, not its kind
        "Partition the table by date, region",
        "CREATE TABLE orders_v2",
        "model predicts ConcurrentDeleteReadException (DC011)",
    ):
        assert expected in text, expected
    assert dom.count("table") == 6
    assert len([c for c in dom.classes("rect") if c.startswith("bar")]) == 8

    shot = tmp_path / "shot.png"
    _run_chromium(chromium, tmp_path / "profile-shot", page, f"--screenshot={shot}")
    data = shot.read_bytes()
    assert _png_size(data) == (1400, 1000)
    assert len(data) > 20_000, "the screenshot looks blank"


def test_chromium_renders_an_empty_report(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "empty.html"
    page.write_text(to_html(ExplainDocument.from_dict(empty_explain_report())), encoding="utf-8")
    text = "".join(
        _parse(
            _run_chromium(chromium, tmp_path / "profile", page, "--dump-dom").stdout.decode()
        ).text
    )
    assert "No races or conflicts: nothing to draw." in text


@pytest.mark.parametrize("sample", ["merge_without_partition_literal", "optimize_vs_delete"])
def test_every_race_names_each_winner_its_writer_operation_and_time(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = cli_json(capsys, "explain", str(SAMPLE_LOGS / sample))
    html = to_html(ExplainDocument.from_dict(doc))
    commits = {c["version"]: c for c in doc["commits"]}
    assert doc["races"], "the sample has races"
    for i, race in enumerate(doc["races"]):
        row = html.split(f'<tr id="race-{i}"', 1)[1].split("</tr>", 1)[0]
        text = "".join(_parse(row).text)
        racer = commits[race["version"]]
        assert f"by {racer['writer']}" in text
        for v in race["winners"]:
            won = commits[v]
            when = datetime.fromtimestamp(won["timestamp"] / 1000, UTC)
            named = f"v{v} {won['operation']} by {won['writer']}"
            assert named in text, (race["version"], named)
            assert when.strftime("%Y-%m-%d %H:%M:%S UTC") in text


def test_every_what_if_change_kind_has_words() -> None:
    """A recommendation reads as a sentence in Delta's words, never as its JSON kind."""
    for change in typing.get_args(scenario.Change):
        example = {"kind": change.kind, "columns": ["date"], "level": "Serializable"}
        example |= {"operations": ["MERGE"], "writer_a": "job a", "writer_b": "job b"}
        example |= {"writer": "job a"}
        words = change_json_words(example)
        assert words != change_text(example) and words[0].isupper(), words
    assert change_json_words({"kind": "new-kind", "x": 1}) == "new-kind x=1"  # shown, never dropped
