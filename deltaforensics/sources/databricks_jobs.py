"""Failed Databricks job runs, from the Jobs API (``databricks-jobs:`` / ``databricks-jobs:JOB_ID``).

``GET /api/2.2/jobs/runs/list`` (``completed_only``, ``expand_tasks``, ``start_time_from`` /
``start_time_to`` = the window, ``job_id`` when given; paged by ``next_page_token``), then for
every failed task run (``state.result_state`` ``FAILED`` or ``TIMEDOUT``, or
``status.termination_details.code`` ``RUN_EXECUTION_ERROR``) ``GET /api/2.2/jobs/runs/get-output``:
its ``error`` (the exception's message) and ``error_trace`` (the stack trace, or the
notebook's traceback).

Read: the run and task ids, the job id, the task's start and end times, and ``error`` /
``error_trace``. Never read: the output's ``logs``, ``notebook_output`` results, the run's
parameters, cluster specs and every other field (they can hold secrets the job was given).
"""

from __future__ import annotations

import functools
from typing import Any

from deltaforensics.failures.records import FailedStatement
from deltaforensics.sources.databricks import Workspace

FAILED_STATES = frozenset({"FAILED", "TIMEDOUT"})
FAILED_CODES = frozenset({"RUN_EXECUTION_ERROR"})


def read_job_failures(
    workspace: Workspace,
    job_id: str,
    *,
    since_ms: int | None,
    until_ms: int | None,
) -> tuple[list[FailedStatement], int | None]:
    """The failed task runs of ``job_id`` (every job when empty) that started in the window,
    and the cursor: the latest start time of a completed run listed (the next ``since_ms``)."""
    subject = f"databricks-jobs:{job_id}" if job_id else "databricks-jobs:"
    jobs = workspace.client.jobs
    runs = workspace.pages(
        subject,
        iter(
            jobs.list_runs(
                job_id=int(job_id) if job_id else None,
                completed_only=True,
                expand_tasks=True,
                start_time_from=since_ms,
                start_time_to=until_ms,
            )
        ),
    )
    failures: list[FailedStatement] = []
    cursor: int | None = None
    for run in runs:
        if run.start_time is not None:
            cursor = max(cursor or run.start_time, run.start_time)
        for task in run.tasks or [run]:  # a single-task run of the 2.0 API has no tasks
            if not _failed(task):
                continue
            task_run = task.run_id
            where = f"{subject} run {run.run_id}" + (
                f" task {task.task_key}" if getattr(task, "task_key", None) else ""
            )
            output: Any = workspace.call(where, functools.partial(jobs.get_run_output, task_run))
            text = "\n".join(p for p in (output.error, output.error_trace) if p)
            if not text:
                continue
            failures.append(
                FailedStatement(
                    source_kind="databricks-jobs",
                    source=f"{workspace.host.rstrip('/')}/#job/{run.job_id}/run/{task_run}",
                    error_text=text,
                    app_id=f"job {run.job_id} run {run.run_id}",
                    execution_id=task_run,
                    started_at=task.start_time or run.start_time,
                    failed_at=task.end_time or run.end_time,
                )
            )
    return failures, cursor


def _failed(task: Any) -> bool:
    state = getattr(getattr(task, "state", None), "result_state", None)
    if state is not None and getattr(state, "value", state) in FAILED_STATES:
        return True
    details = getattr(getattr(task, "status", None), "termination_details", None)
    code = getattr(details, "code", None)
    return code is not None and getattr(code, "value", code) in FAILED_CODES
