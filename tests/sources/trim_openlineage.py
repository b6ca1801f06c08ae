"""Trim the OpenLineage Spark listener's file-transport output to the fields the reader may
read, for tests/sources/fixtures/openlineage-spark-4.2 (see test_openlineage.py).

``python trim_openlineage.py IN.ndjson OUT.ndjson``: every event kept, its configuration-bearing
facets dropped (``spark_properties``, ``environment-properties``, ``processing_engine``,
``spark_applicationDetails``, ``spark.logicalPlan`` …): what remains is ``eventType``,
``eventTime``, ``run.runId`` with the ``parent`` and ``errorMessage`` facets, the job's name,
namespace and ``sql`` facet, and each dataset's ``namespace`` and ``name``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RUN_FACETS = ("parent", "errorMessage")
JOB_FACETS = ("sql", "jobType")


def trim(event: dict[str, Any]) -> dict[str, Any]:
    run, job = event["run"], event["job"]
    facets = run.get("facets", {})
    return {
        "eventType": event.get("eventType"),
        "eventTime": event["eventTime"],
        "producer": event.get("producer"),
        "schemaURL": event.get("schemaURL"),
        "run": {"runId": run["runId"], "facets": {k: facets[k] for k in RUN_FACETS if k in facets}},
        "job": {
            "namespace": job["namespace"],
            "name": job["name"],
            "facets": {k: job["facets"][k] for k in JOB_FACETS if k in job.get("facets", {})},
        },
        "inputs": [
            {"namespace": d["namespace"], "name": d["name"]} for d in event.get("inputs", [])
        ],
        "outputs": [
            {"namespace": d["namespace"], "name": d["name"]} for d in event.get("outputs", [])
        ],
    }


def main(argv: list[str]) -> int:
    source, target = map(Path, argv)
    lines = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    target.write_text("".join(json.dumps(trim(e), separators=(",", ":")) + "\n" for e in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
