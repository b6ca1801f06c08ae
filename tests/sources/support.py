"""The real Spark fixtures of the failure harvest (tests/sources/fixtures/spark-4.2).

Made by the two engine-side scripts beside this file, run in the harness's interpreter for
Delta 4.4.0 / Spark 4.2.0 (``tests/realspark/engines.py``): ``spark_failures.py`` (six
applications, one per event-log layout and codec, three tables each, conflicts forced by the
gated log store; ground truth in ``truth.jsonl``) and ``trim_eventlogs.py`` (the events read
here only, re-written through Spark's own codecs). The Databricks cluster-log-delivery layout
under ``dbx/`` is real Spark output placed as Databricks delivers it (no workspace is reachable
here): the uncompressed application's event log split into a gzip-rotated part and the active
``eventlog``, and the JVM's log4j2 driver log with its rotated ``.gz`` parts. To make them
again (the tables' ``_delta_log`` JSON and ``truth.jsonl`` are copied from WORK)::

    python tests/sources/spark_failures.py PLAN.json WORK/out.jsonl WORK JAR...
    python tests/sources/trim_eventlogs.py WORK/eventlogs FIXTURES/eventlogs JAR...
"""

from __future__ import annotations

import json
from pathlib import Path

from deltaforensics.failures import TableCommits

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "spark-4.2"
WRITTEN_AT = "/tmp/sparkfail/tables"  # where Spark wrote the tables: the plans name it


def fixture_tables(root: Path = FIXTURES, written_at: str = WRITTEN_AT) -> list[TableCommits]:
    """Every table under ``root/tables``, named by its folder, at the location its plans name."""
    out = []
    for table in sorted((root / "tables").iterdir()):
        infos = []
        for commit in sorted((table / "_delta_log").glob("*.json")):
            for line in commit.read_text().splitlines():
                action = json.loads(line)
                if "commitInfo" in action:
                    infos.append((int(commit.stem), action["commitInfo"]))
        out.append(TableCommits.from_commit_infos(table.name, f"{written_at}/{table.name}", infos))
    return out


def truth(root: Path = FIXTURES) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "truth.jsonl").read_text().splitlines()]


def expected_conflicts(root: Path = FIXTURES) -> set[tuple[str, int, str]]:
    """(table, winner version, exception) of every conflict the harness caught."""
    return {
        (str(r["table"]).rsplit("/", 1)[-1], int(str(r["tried_after"])), str(r["outcome"]))
        for r in truth(root)
        if r["table"] and r["outcome"] not in ("commits", "error")
    }
