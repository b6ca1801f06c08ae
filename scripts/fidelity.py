"""Run the real Delta-Spark pairs and write the agreement table of docs/fidelity.md.

    python scripts/fidelity.py run [--engine 3.3.2] [--sample] [--limit N]
    python scripts/fidelity.py judge --engine 3.3.2 --work DIR  # a runner's records, incrementally
    python scripts/fidelity.py keep --engine 3.3.2 --work DIR   # real logs for tests/
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
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.realspark.cases import Case, dataframe_writes, matrix, misses, sample  # noqa: E402
from tests.realspark.engines import DELTA_SPARK, DeltaSpark, by_key  # noqa: E402
from tests.realspark.harness import judge, read_records, run_runner  # noqa: E402
from tests.realspark.known import KNOWN  # noqa: E402

RESULTS = REPO / "docs" / "fidelity"
DOC = REPO / "docs" / "fidelity.md"
BEGIN, END = "<!-- delta-spark: begin (scripts/fidelity.py) -->", "<!-- delta-spark: end -->"
CHECKS = ("committed", "error", "attempt")


def run(args: argparse.Namespace) -> int:
    engines = [by_key(args.engine)] if args.engine else list(DELTA_SPARK)
    for engine in engines:
        cases = _cases(engine, args)
        with tempfile.TemporaryDirectory(prefix=f"fidelity-{engine.key}-") as tmp:
            started = time.monotonic()
            out = run_runner(engine, cases, Path(tmp), timeout=6 * 3600)
            _write(engine, cases, out, args.sample, minutes=(time.monotonic() - started) / 60)
    return render(args)


def resume(args: argparse.Namespace) -> int:
    """Run the cases a runner in ``--work`` has no record of yet, appending to its records."""
    engine = by_key(args.engine)
    work = Path(args.work)
    _, records = read_records(work / "records.jsonl")
    left = [
        c for c in _cases(engine, args) if c.id not in records or _harness_failed(records[c.id])
    ]
    print(f"{engine.key}: {len(left)} case(s) left")
    if left:
        run_runner(engine, left, work, timeout=6 * 3600, append=True)
    return judge_work(args)


def _harness_failed(record: dict) -> bool:
    """The harness, not the engine, ended the case: worth running again."""
    return record.get("outcome") in ("harness-error", "hung") or str(
        record.get("message", "")
    ).startswith("harness gate never released")


KEPT = REPO / "tests" / "realspark" / "logs"
KEEP_PER_ENGINE = 12


def keep(args: argparse.Namespace) -> int:
    """Copy the logs of a few judged pairs (every outcome, no data files) into tests/, with the
    engine's record, as real Spark-written test data."""
    engine = by_key(args.engine)
    work = Path(args.work)
    _, records = read_records(work / "records.jsonl")
    cache = json.loads((work / "verdicts.json").read_text())
    judged = [
        records[c.id]
        for c in matrix(engine.major_minor)
        if c.id in cache and not cache[c.id]["not_pair"] and c.id in records
    ]
    chosen: dict[str, dict] = {}
    outcomes: set[str] = set()
    for record in judged:  # one of each outcome first, then every n-th
        if record["outcome"] not in outcomes:
            outcomes.add(record["outcome"])
            chosen[record["id"]] = record
    step = max(1, len(judged) // KEEP_PER_ENGINE)
    for record in judged[::step]:
        if len(chosen) >= KEEP_PER_ENGINE:
            break
        chosen.setdefault(record["id"], record)
    target = KEPT / engine.key
    release = engine.major_minor  # run apart: cases.misses() and cases.dataframe_writes()
    kept_misses = {c.id for c in misses(release) + dataframe_writes(release)}
    for old in target.glob("*") if target.is_dir() else ():
        if old.name not in kept_misses:
            shutil.rmtree(old, ignore_errors=True)
    for record in chosen.values():
        log = Path(record["table"]) / "_delta_log"
        dest = target / record["id"] / "_delta_log"
        shutil.copytree(log, dest, ignore=shutil.ignore_patterns("*.parquet"))
        kept = {
            k: record[k]
            for k in ("id", "outcome", "read_version", "winner_versions", "loser_version")
        }
        kept["text"] = record.get("text")
        (target / record["id"] / "record.json").write_text(json.dumps(kept, indent=1) + "\n")
    print(f"{engine.key}: kept {len(chosen)} real log(s) in {target.relative_to(REPO)}")
    return 0


def judge_work(args: argparse.Namespace) -> int:
    """Judge the records a runner wrote (or is writing) in ``--work``; verdicts are kept in
    ``--work``/verdicts.json, so a second call judges only the new records."""
    engine = by_key(args.engine)
    out = Path(args.work) / "records.jsonl"
    _write(engine, _cases(engine, args), out, args.sample, minutes=None, rejudge=args.rejudge)
    return render(args)


def _cases(engine: DeltaSpark, args: argparse.Namespace) -> list[Case]:
    cases = sample(engine.major_minor) if args.sample else matrix(engine.major_minor)
    return cases[: args.limit] if args.limit else cases


def _write(
    engine: DeltaSpark,
    cases: list[Case],
    out: Path,
    sampled: bool,
    *,
    minutes: float | None,
    rejudge: bool = False,
) -> None:
    session, records = read_records(out)
    cache_file = out.with_name("verdicts.json")
    cache: dict[str, dict] = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    if rejudge:  # the model changed since: judge every record again
        cache = {}
    fresh = [c for c in cases if c.id in records and c.id not in cache]
    result = judge(engine, fresh, session, records)
    for case in fresh:
        cache[case.id] = {
            "not_pair": result.not_pairs.get(case.id),
            "verdicts": [
                {
                    "check": v.check,
                    "real": v.real,
                    "predicted": v.predicted,
                    "agrees": v.agrees,
                    "detail": v.detail,
                }
                for v in result.verdicts
                if v.case == case.id
            ],
        }
    cache_file.write_text(json.dumps(cache))
    rows, not_pairs = [], {}
    for case in cases:
        entry = cache.get(case.id)
        if entry is None:
            continue
        if entry["not_pair"]:
            not_pairs[case.id] = entry["not_pair"]
        for verdict in entry["verdicts"]:
            rows.append(
                {
                    "case": case.id,
                    "winner": case.winner.name,
                    "loser": case.loser.name,
                    "layout": case.layout.tag,
                    **{k: verdict[k] for k in ("check", "real", "predicted", "agrees")},
                    "known": KNOWN.get((case.id, verdict["check"])),
                    "detail": verdict["detail"][:400],
                    "engine_text": (records[case.id].get("message") or "")[:400],
                }
            )
    payload = {
        "engine": engine.key,
        "delta": engine.delta,
        "spark": session.get("spark"),
        "java": session.get("java"),
        "artifact": engine.artifact,
        "sampled": sampled,
        "cases": len(cases),
        "cases_run": sum(1 for c in cases if c.id in cache),
        "not_pairs": not_pairs,
        "verdicts": rows,
        "minutes": None if minutes is None else round(minutes, 1),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / f"{engine.key}.json"
    target.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"{engine.key}: {summary_line(payload)} -> {target.relative_to(REPO)}")


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
    run = payload.get("cases_run", payload["cases"])
    partial = f", {run} of {payload['cases']} cases run" if run < payload["cases"] else ""
    return [
        f"| Delta {payload['delta']} on Spark {payload['spark']} (`{payload['artifact']}`{partial}) "
        f"| {len(pairs)} | {len(failures)} | {' | '.join(cells)} | {len(payload['not_pairs'])} |"
    ]


CELLS = (  # (heading, test on a case's layout tag)
    ("partitioned", lambda tag: tag.startswith("part")),
    ("unpartitioned", lambda tag: tag.startswith("flat")),
    ("liquid clustered", lambda tag: tag.startswith("clus")),
    ("deletion vectors", lambda tag: "-dv" in tag),
    ("WriteSerializable", lambda tag: "-ws" in tag),
    ("touching", lambda tag: tag.endswith("-touch")),
    ("disjoint", lambda tag: tag.endswith("-apart")),
)


def _cells(payloads: list[dict]) -> list[str]:
    """Real pairs (of which failed) per cell of the matrix: where the agreement was measured."""
    lines = [
        "Real pairs (of which failed) by cell; a pair counts in every cell its table and regions "
        "belong to; Serializable is OSS Delta's default, WriteSerializable a table whose "
        "metadata holds it; — where no pair of the cell has run (or the release lacks it: "
        "liquid clustering needs Delta 3.1):",
        "",
        "| Engine | " + " | ".join(name for name, _ in CELLS) + " |",
        "|---|" + "---:|" * len(CELLS),
    ]
    for payload in payloads:
        layout = {r["case"]: r["layout"] for r in payload["verdicts"]}
        failed = {r["case"] for r in payload["verdicts"] if r["check"] == "error"}
        cells = []
        for _, test in CELLS:
            mine = {case for case, tag in layout.items() if test(tag)}
            cells.append(f"{len(mine)} ({len(mine & failed)})" if mine else "—")
        lines.append(f"| Delta {payload['delta']} | " + " | ".join(cells) + " |")
    return [*lines, ""]


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
    lines += _cells(payloads)
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
        kinds = Counter(re.split(r" \(|:", v)[0] for v in payload["not_pairs"].values())
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
    judge_p = sub.add_parser("judge", help="judge a runner's records in --work (incremental)")
    judge_p.add_argument("--engine", required=True)
    judge_p.add_argument(
        "--work", required=True, help="the runner's folder (records.jsonl, tables/)"
    )
    judge_p.add_argument("--sample", action="store_true")
    judge_p.add_argument("--limit", type=int, default=0)
    judge_p.add_argument(
        "--rejudge", action="store_true", help="judge every record again (the model changed since)"
    )
    resume_p = sub.add_parser("resume", help="run the cases --work has no record of yet")
    resume_p.add_argument("--engine", required=True)
    resume_p.add_argument("--work", required=True)
    resume_p.add_argument("--sample", action="store_true")
    resume_p.add_argument("--limit", type=int, default=0)
    resume_p.add_argument("--rejudge", action="store_true")
    keep_p = sub.add_parser("keep", help="copy a few judged pairs' logs into tests/realspark/logs")
    keep_p.add_argument("--engine", required=True)
    keep_p.add_argument("--work", required=True)
    sub.add_parser("render")
    args = parser.parse_args(argv)
    commands = {"run": run, "judge": judge_work, "resume": resume, "keep": keep, "render": render}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
