"""Start and stop a throwaway Azurite blob emulator (in memory, loopback only, no telemetry).

Shared by benchmarks/bench_azurite_fetch.py and tests/azure/conftest.py (which loads this file
by path, so neither needs the other to be a package). `.ci/install_azurite.sh` installs the
emulator into `.azurite/`; an `azurite-blob` on PATH is used otherwise, and
:func:`ensure_azurite` runs that script on first use, once even under pytest-xdist.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ACCOUNT = "devstoreaccount1"
# Azurite's public, documented development key (the same in every Azurite install).
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
INSTALL_HINT = "run .ci/install_azurite.sh (needs Node.js and npm)"


def find_azurite_blob() -> str | None:
    local = REPO / ".azurite" / "node_modules" / ".bin" / "azurite-blob"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("azurite-blob")


def ensure_azurite() -> tuple[str | None, str]:
    """Run .ci/install_azurite.sh (instant when the pinned version is there) under a file lock,
    so parallel test workers install once; return (azurite-blob or None, the script's output)."""
    script = REPO / ".ci" / "install_azurite.sh"
    if shutil.which("npm") is None or not script.is_file():
        return find_azurite_blob(), "npm or .ci/install_azurite.sh not found"
    (REPO / ".azurite").mkdir(exist_ok=True)
    with (REPO / ".azurite" / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=900, check=False
        )
    output = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
    return (find_azurite_blob() if done.returncode == 0 else None), output


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Azurite:
    """A running emulator. ``stop()`` ends the process this object started, and only it."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    _stopped: bool = field(default=False, repr=False)

    @property
    def blob_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/{ACCOUNT}"

    @property
    def connection_string(self) -> str:
        return (
            f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};"
            f"BlobEndpoint={self.blob_endpoint};"
        )

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _answers(port: int) -> bool:
    """Any HTTP answer (403 without credentials is the usual one) means Azurite is serving."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{ACCOUNT}?comp=list", timeout=1):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def start_azurite(exe: str, workdir: Path, *, timeout: float = 60.0, attempts: int = 3) -> Azurite:
    """Start ``azurite-blob`` on a free loopback port and wait until it answers HTTP."""
    workdir.mkdir(parents=True, exist_ok=True)
    failure = ""
    for attempt in range(attempts):
        port = free_port()
        log_path = workdir / f"azurite-{port}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [
                    exe,
                    "--blobHost",
                    "127.0.0.1",
                    "--blobPort",
                    str(port),
                    "--inMemoryPersistence",
                    "--disableTelemetry",
                    "--skipApiVersionCheck",
                    "--loose",
                ],
                cwd=workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        azurite = Azurite(port=port, process=process, log_path=log_path)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            if _answers(port):
                return azurite
            time.sleep(0.1)
        azurite.stop()
        failure = f"attempt {attempt + 1}: exit code {process.returncode}\n{azurite.log_tail()}"
    raise RuntimeError(f"Azurite did not start ({exe}):\n{failure}")
