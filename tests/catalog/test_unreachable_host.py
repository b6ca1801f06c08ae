"""Issue #32 item 10: with an unreachable ``DATABRICKS_HOST`` the tool's own one-line message
comes first and within 5 s, without the databricks-sdk's log line (it waited its retry budget
probing the host's metadata, then logged "Failed to automatically resolve config ...").

Loopback only: a port that refuses, and one that accepts connections but never answers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from deltaforensics.cli import main


@contextmanager
def _refusing() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    yield f"http://127.0.0.1:{port}"  # closed again: nothing listens there


@contextmanager
def _blackhole() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)  # the kernel completes the handshake; nobody ever reads or answers
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("server", [_refusing, _blackhole], ids=["refused", "blackhole"])
def test_an_unreachable_databricks_host_is_one_line_of_ours_within_5_s(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: object
) -> None:
    with server() as url:  # type: ignore[operator]
        monkeypatch.setenv("DATABRICKS_HOST", url)
        monkeypatch.setenv("DATABRICKS_TOKEN", "dapi-not-a-real-token")
        started = time.monotonic()
        code = main(["snapshot", "main.sales.orders"])
        took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 3, err
    assert out == ""
    assert err.startswith(f"error: main.sales.orders: the catalog at {url} cannot be reached"), err
    assert len(err.strip().splitlines()) == 1, err
    assert "Failed to automatically resolve" not in err
    assert took < 5, took
