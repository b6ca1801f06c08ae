"""Start and stop throwaway S3 and GCS EMULATORS on loopback (in memory, no network beyond it).

- S3: moto's standalone server (``moto[server]`` from PyPI), an S3-protocol HTTP server. It
  accepts any access key and checks no signature: an emulator, not AWS.
- GCS: ``gcp-storage-emulator`` from PyPI, the JSON and media API of Cloud Storage. It checks
  no credential at all: an emulator, not Google Cloud.

Shared by the benchmarks and tests/stores/conftest.py (which loads this file by path, like
benchmarks/_azurite.py). Both come with the ``[dev]`` extra, so nothing is installed here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # loaded by path from tests/ too
from _azurite import Azurite, free_port

# moto's server takes any key pair; these are the documented fake values moto's own docs use.
S3_KEY_ID = "testing-key-id"
S3_SECRET = "testing-secret-key-0123456789"
S3_REGION = "us-east-1"


@dataclass
class Emulator(Azurite):
    """A running emulator (the Azurite starter's process handling: ``stop()`` ends the process
    this object started, and only it)."""

    kind: str = ""  # "s3" or "gcs"

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def _command(kind: str, port: int) -> tuple[list[str], str]:
    if kind == "s3":
        return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], "/"
    # The emulator serves one connection at a time from a listen backlog of 5 (socketserver's
    # default): a client with 32 requests in flight has its extra connection attempts dropped
    # and retried by TCP a second later. A deeper backlog queues them instead.
    launcher = (
        "import http.server, sys; http.server.HTTPServer.request_queue_size = 1024; "
        "from gcp_storage_emulator.__main__ import main; sys.exit(main(sys.argv[1:]))"
    )
    argv = [sys.executable, "-c", launcher, "start", "--host", "127.0.0.1", "--port", str(port)]
    return [*argv, "--in-memory", "--quiet"], "/storage/v1/b"


def start_emulator(kind: str, workdir: Path, *, timeout: float = 60.0) -> Emulator:
    """Start the ``kind`` ("s3" or "gcs") emulator on a free loopback port; wait for HTTP."""
    workdir.mkdir(parents=True, exist_ok=True)
    failure = ""
    for attempt in range(3):
        port = free_port()
        argv, probe = _command(kind, port)
        log_path = workdir / f"{kind}-{port}.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                argv,
                cwd=workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        emulator = Emulator(port=port, process=process, log_path=log_path, kind=kind)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            if _answers(f"{emulator.endpoint}{probe}"):
                return emulator
            time.sleep(0.1)
        emulator.stop()
        failure = f"attempt {attempt + 1}: exit code {process.returncode}\n{emulator.log_tail()}"
    raise RuntimeError(f"the {kind} emulator did not start:\n{failure}")
