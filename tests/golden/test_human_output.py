"""What the human views promise, checked on every pinned terminal and Markdown output.

- no line is wider than the terminal it was drawn for (80 and 160 columns);
- no internal token reaches a reader: the checker's perturbation names, the rules', anomalies'
  and diagnostics' kebab-case names, the what-if change kinds (taken from the code's own
  catalogues, not a hand list), nor a reference to a document users do not have;
- a rule code (``DC010``) is shown only beside its Databricks error class.

Tokens that are plain English words (the change kinds ``isolation`` and ``liquid``) cannot be
told apart from prose, so only the catalogue names holding a ``-`` or ``=`` are searched for,
as whole tokens (``--partition-by``, a CLI flag a recommendation may name, is not one).
"""

from __future__ import annotations

import html
import re
import typing
from pathlib import Path

import pytest
from rich.cells import cell_len

from deltaforensics.cli import main
from deltaforensics.conflicts.checker import PERTURBATIONS
from deltaforensics.conflicts.registry import RULES
from deltaforensics.model.anomaly_codes import ANOMALY_CODES
from deltaforensics.model.diagnostic_codes import DIAGNOSTIC_CODES
from deltaforensics.whatif.scenario import Change
from tests.golden.cases import CASES, Case

REPO = Path(__file__).resolve().parents[2]
TERMINAL = [c for c in CASES if c.width is not None]
HUMAN = [c for c in CASES if c.is_human]
# the rules command is the catalogue: it prints the codes' documentation, names and all
PROSE = [c for c in HUMAN if not c.path.startswith("rules/")]


def internal_tokens() -> set[str]:
    names = {*PERTURBATIONS, *(r.name for r in RULES)}
    names |= {c.name for c in (*ANOMALY_CODES, *DIAGNOSTIC_CODES)}
    names |= {kind.kind for kind in typing.get_args(Change)}
    return {n for n in names if "-" in n or "=" in n}


def _golden(case: Case) -> str:
    return case.file.read_text(encoding="utf-8")


def test_the_catalogues_give_tokens_to_look_for() -> None:
    tokens = internal_tokens()
    assert {"wider-predicate", "isolation=Serializable", "concurrent-append"} <= tokens
    assert "partition-by" in tokens


@pytest.mark.parametrize("case", TERMINAL, ids=[c.path for c in TERMINAL])
def test_no_line_is_wider_than_the_terminal(case: Case) -> None:
    assert case.width is not None
    wide = [
        (n, line)
        for n, line in enumerate(_golden(case).splitlines(), 1)
        if cell_len(line) > case.width
    ]
    assert wide == [], f"lines over {case.width} columns in tests/golden/{case.path}: {wide[:3]}"


@pytest.mark.parametrize("case", PROSE, ids=[c.path for c in PROSE])
def test_no_internal_token_reaches_a_reader(case: Case) -> None:
    text = _golden(case).replace("\\", "")  # Markdown escapes: DELTA\_CONCURRENT\_APPEND
    found = sorted(
        t for t in internal_tokens() if re.search(rf"(?<![-\w]){re.escape(t)}(?![-\w])", text)
    )
    assert found == [], f"internal tokens in tests/golden/{case.path}: {found}"
    for reference in ("semantics doc", "§", "field-notes"):
        assert reference not in text, f"{reference!r} in tests/golden/{case.path}"


@pytest.mark.parametrize("case", PROSE, ids=[c.path for c in PROSE])
def test_a_rule_code_stands_beside_its_error_class(case: Case) -> None:
    lines = _golden(case).replace("\\", "").splitlines()
    for n, line in enumerate(lines):
        for code in re.findall(r"\bDC\d{3}\b", line):
            near = " ".join(lines[max(0, n - 2) : n + 1])
            assert "DELTA_" in near, f"{code} without its error class: {case.path}:{n + 1}"


def test_a_token_in_the_output_would_be_found() -> None:
    """The search itself can fail: a perturbation name in text is reported."""
    text = "would fail under: wider-predicate → ConcurrentAppendException"
    assert any(re.search(rf"(?<![-\w]){re.escape(t)}(?![-\w])", text) for t in internal_tokens())


SAMPLES = sorted(p for p in (REPO / "sample_logs").iterdir() if (p / "_delta_log").is_dir())


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_the_html_report_speaks_in_words(sample: Path, tmp_path: Path) -> None:
    """The HTML report is read by people too: its text and its tooltips carry no internal
    token and no reference to a document users do not have."""
    out = tmp_path / "report.html"
    assert main(["explain", str(sample), "--format", "html", "--output", str(out)]) in (0, 1)
    page = out.read_text(encoding="utf-8")
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    tooltips = " ".join(html.unescape(t) for t in re.findall(r'\stitle="([^"]*)"', page))
    text = html.unescape(re.sub(r"<[^>]+>", " ", page)) + " " + tooltips
    found = sorted(
        t for t in internal_tokens() if re.search(rf"(?<![-\w]){re.escape(t)}(?![-\w])", text)
    )
    assert found == [], f"internal tokens in the HTML report of {sample.name}: {found}"
    for reference in ("semantics doc", "§", "field-notes"):
        assert reference not in text, f"{reference!r} in the HTML report of {sample.name}"
