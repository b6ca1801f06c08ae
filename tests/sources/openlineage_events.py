"""OpenLineage run events WRITTEN BY THE OPENLINEAGE PYTHON CLIENT (``openlineage-python``'s
``RunEvent``, ``ErrorMessageRunFacet``, ``SQLJobFacet`` and its ``FileTransport`` with
``append``: one event a line) in the shape the Spark listener's schema defines for a failed SQL
execution: a ``START`` and a ``FAIL`` with the error-message facet, the job's ``sql`` facet and
the written table as the output dataset.

Why written, not recorded: the real listener served by Maven Central for Spark 4
(``io.openlineage:openlineage-spark_2.13:1.53.0``), attached to the harness's writers on Spark
4.2.0 / Delta 4.4.0, emits ``COMPLETE`` without an error facet for every statement that lost a
Delta conflict, and no ``FAIL`` at all (fixtures/openlineage-spark-4.2; docs/fidelity.md). The
failures these events carry are the real ones of the Spark 4.2 event logs
(fixtures/spark-4.2): their exception texts, times, statements and tables.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from openlineage.client.event_v2 import Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import error_message_run, sql_job
from openlineage.client.transport.file import FileConfig, FileTransport

from deltaforensics.failures.records import FailedStatement

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.53.0/integration/spark"


def _time(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _dataset(location: str, abfss: str | None) -> OutputDataset:
    path = "/" + location.removeprefix("file:").lstrip("/")
    if abfss:  # the table as an ADLS location: namespace = the container, name = the path
        return OutputDataset(namespace=abfss, name=path.lstrip("/"))
    return OutputDataset(namespace="file", name=path)


def write_events(
    failures: Iterable[FailedStatement],
    target: Path,
    *,
    abfss: str | None = None,
    sql_for: Callable[[FailedStatement], str | None] = lambda f: None,
) -> int:
    """A START and a FAIL per failure, appended to ``target``; how many FAILs were written.
    ``sql_for`` gives the statement's SQL text for the ``sql`` job facet (the listener writes
    the SQL of a ``spark.sql`` call there)."""
    transport = FileTransport(FileConfig(log_file_path=str(target), append=True))
    written = 0
    for failure in failures:
        run_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{failure.app_id}/{failure.execution_id}"))
        job_facets = {}
        statement = sql_for(failure)
        if statement:
            job_facets["sql"] = sql_job.SQLJobFacet(query=statement, dialect="spark")
        job = Job(
            namespace="deltaforensics-harness",
            name=f"{failure.app_id}.execution_{failure.execution_id}",
            facets=job_facets,
        )
        outputs = list(
            {_dataset(loc, abfss).name: _dataset(loc, abfss) for loc in failure.locations}.values()
        )
        first, _, _ = failure.error_text.partition("\n")
        if failure.started_at is not None:
            transport.emit(
                RunEvent(
                    eventType=RunState.START,
                    eventTime=_time(failure.started_at),
                    producer=PRODUCER,
                    run=Run(runId=run_id),
                    job=job,
                    outputs=outputs,
                )
            )
        transport.emit(
            RunEvent(
                eventType=RunState.FAIL,
                eventTime=_time(failure.failed_at or failure.started_at or 0),
                producer=PRODUCER,
                run=Run(
                    runId=run_id,
                    facets={
                        "errorMessage": error_message_run.ErrorMessageRunFacet(
                            message=first.split(": ", 1)[-1],
                            programmingLanguage="JAVA",
                            stackTrace=failure.error_text,
                        )
                    },
                ),
                job=job,
                outputs=outputs,
            )
        )
        written += 1
    return written
