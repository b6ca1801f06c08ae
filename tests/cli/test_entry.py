"""The console entry point ends the process at once after the command (``cli.entry``): what
the command printed must still all arrive, and its exit code must be the command's."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from deltaforensics.cli import Invocation, main
from tests.conftest import CORPUS, REPO, SAMPLE_LOGS

TABLE = str(SAMPLE_LOGS / "deltars_concurrent_optimize")  # two error-severity anomalies


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "deltaforensics", *args],
        check=False,
        capture_output=True,
        cwd=REPO,
        timeout=300,
    )


def test_piped_output_is_complete_and_the_same_as_in_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = run("explain", TABLE, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert main(["explain", TABLE, "--format", "json"]) == 0
    in_process = capsys.readouterr().out
    assert done.stdout.decode() == in_process
    assert json.loads(done.stdout)["anomalies"]


@pytest.mark.parametrize(
    ("args", "code", "stderr"),
    [
        (["explain", TABLE, "--format", "json", "--fail-on", "anomaly"], 1, ""),
        (["explain", TABLE, "--format", "nonsense"], 2, "nonsense"),
        (["explain", str(SAMPLE_LOGS / "no_such_table")], 3, "error:"),
    ],
)
def test_the_exit_code_is_the_commands(args: list[str], code: int, stderr: str) -> None:
    done = run(*args)
    assert done.returncode == code, done.stderr
    assert stderr in done.stderr.decode()
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["history", TABLE, "--format", "json"],  # more than a buffer: fails while writing
        # about 1 KB stays buffered until the last flush, which fails
        ["history", str(CORPUS / "delta__data-reader-partition-values"), "--format", "json"],
    ],
)
def test_output_to_a_reader_already_gone_exits_1_without_a_traceback(args: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "deltaforensics", *args],
            check=False,
            stdout=write,
            stderr=subprocess.PIPE,
            cwd=REPO,
            timeout=300,
        )
    finally:
        os.close(write)
    assert done.returncode == 1  # not all of the output arrived
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr


def test_in_process_runs_keep_the_collector_and_free_their_results(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the console entry point, whose process ends with the command, keeps the results
    and pauses the collector; main() called in a process that goes on does neither."""
    invocation = Invocation()  # what main() makes when it is not given one
    assert main(["explain", TABLE, "--format", "json"], invocation=invocation) == 0
    capsys.readouterr()
    assert gc.isenabled()
    assert invocation.kept == []
