"""Run the real Delta-Spark pairs and write the agreement table of docs/fidelity.md.

    python scripts/fidelity.py run [--engine 3.3.2] [--sample] [--limit N]
    python scripts/fidelity.py render          # docs/fidelity.md from docs/fidelity/*.json

``run`` installs each pinned engine (tests/realspark/engines.py), runs the pairs of the matrix
(tests/realspark/cases.py; ``--sample`` the subset CI runs), judges each with the three checks
and writes ``docs/fidelity/delta-<version>.json``: every pair's real outcome, what the model
said, and whether they agree. ``render`` turns those files into the Delta-Spark section of
docs/fidelity.md; the delta-rs section comes from scripts/fidelity_deltars.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.realspark.cases import matrix, sample  # noqa: E402
from tests.realspark.engines import DELTA_SPARK, by_key  # noqa: E402
from tests.realspark.harness import run_pairs  # noqa: E402
from tests.realspark.known import KNOWN  # noqa: E402

RESULTS = REPO / "docs" / "fidelity"
DOC = REPO / "docs" / "fidelity.md"
BEGIN, END = "<!-- delta-spark: begin (scripts/fidelity.py) -->", "<!-- delta-spark: end -->"
CHECKS = ("committed", "error", "attempt")


def run(args: argparse.Namespace) -> int:
    engines = [by_key(args.engine)] if args.engine else list(DELTA_SPARK)
    RESULTS.mkdir(parents=True, exist_ok=True)
    for engine in engines:
        cases = sample(engine.major_minor) if args.sample else matrix(engine.major_minor)
        if args.limit:
            cases = cases[: args.limit]
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"fidelity-{engine.key}-") as tmp:
            result = run_pairs(engine, cases, Path(tmp), timeout=6 * 3600)
        by_case = {c.id: c for c in cases}
        rows = []
        for verdict in result.verdicts:
            case = by_case[verdict.case]
            record = result.records[verdict.case]
            rows.append(
                {
                    "case": verdict.case,
                    "winner": case.winner.name,
                    "loser": case.loser.name,
                    "layout": case.layout.tag,
                    "check": verdict.check,
                    "real": verdict.real,
                    "predicted": verdict.predicted,
                    "agrees": verdict.agrees,
                    "known": KNOWN.get((verdict.case, verdict.check)),
                    "detail": verdict.detail[:400],
                    "engine_text": (record.get("message") or "")[:400],
                }
            )
        payload = {
            "engine": engine.key,
            "delta": engine.delta,
            "spark": result.session.get("spark"),
            "java": result.session.get("java"),
            "artifact": engine.artifact,
            "sampled": bool(args.sample),
            "cases": len(cases),
            "not_pairs": result.not_pairs,
            "verdicts": rows,
            "minutes": round((time.monotonic() - started) / 60, 1),
        }
        out = RESULTS / f"{engine.key}.json"
        out.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
        print(f"{engine.key}: {summary_line(payload)} -> {out.relative_to(REPO)}")
    return render(args)


def summary_line(payload: dict) -> str:
    rows = payload["verdicts"]
    pairs = {r["case"] for r in rows}
    failures = {r["case"] for r in rows if r["check"] == "error"}
    parts = [f"{len(pairs)} real pairs ({len(failures)} failed)"]
    for name in CHECKS:
        mine = [r for r in rows if r["check"] == name]
        if mine:
            agree = sum(r["agrees"] for r in mine)
            parts.append(f"{name} {agree}/{len(mine)}")
    return ", ".join(parts)


def _table(payload: dict) -> list[str]:
    rows = payload["verdicts"]
    pairs = {r["case"] for r in rows}
    failures = {r["case"] for r in rows if r["check"] == "error"}
    cells = []
    for name in CHECKS:
        mine = [r for r in rows if r["check"] == name]
        agree = sum(r["agrees"] for r in mine)
        share = f"{100 * agree / len(mine):.1f}%" if mine else "n/a"
        cells.append(f"{agree}/{len(mine)} ({share})")
    return [
        f"| Delta {payload['delta']} on Spark {payload['spark']} (`{payload['artifact']}`) "
        f"| {len(pairs)} | {len(failures)} | {' | '.join(cells)} | {len(payload['not_pairs'])} |"
    ]


def render(_args: argparse.Namespace | None = None) -> int:
    payloads = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("delta-*.json"))]
    lines = [
        BEGIN,
        "",
        "| Engine | Real pairs | Of which failed | (a) committed: race says commits | "
        "(b) --error names exception and winner | (c) --attempt predicts outcome | Not a race |",
        "|---|---|---|---|---|---|---|",
    ]
    for payload in payloads:
        lines += _table(payload)
    lines.append("")
    for payload in payloads:
        sampled = " (CI sample)" if payload["sampled"] else ""
        lines.append(f"### Delta {payload['delta']}{sampled}: disagreements")
        lines.append("")
        wrong = [r for r in payload["verdicts"] if not r["agrees"]]
        if not wrong:
            lines.append("None.")
        for row in wrong:
            why = row["known"] or "not yet explained"
            lines.append(
                f"- `{row['case']}` ({row['check']}): engine {row['real']}, model "
                f"{row['predicted']}. {why}"
            )
        kinds = Counter(v.split(":")[0] for v in payload["not_pairs"].values())
        if kinds:
            lines.append("")
            lines.append(
                "Not counted (no race happened): "
                + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
                + "."
            )
        lines.append("")
    lines.append(END)
    text = DOC.read_text() if DOC.exists() else "# Fidelity\n\n" + BEGIN + "\n" + END + "\n"
    if BEGIN not in text:
        text += "\n" + BEGIN + "\n" + END + "\n"
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    DOC.write_text(head + "\n".join(lines) + tail)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run")
    run_p.add_argument("--engine", help="a pinned Delta version (default: all)")
    run_p.add_argument("--sample", action="store_true", help="the CI subset only")
    run_p.add_argument("--limit", type=int, default=0)
    sub.add_parser("render")
    args = parser.parse_args(argv)
    return run(args) if args.command == "run" else render(args)


if __name__ == "__main__":
    sys.exit(main())
