"""Headless Chromium driven over the DevTools protocol, standard library only.

The page-rendering tests need more than ``chromium --screenshot`` gives: every console message
and uncaught error, every network request the page makes, values read from the rendered DOM,
and a full-page screenshot. Chromium speaks its DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages separated by NUL bytes, commands on descriptor 3,
replies and events on 4), so no Playwright, no websocket library and no browser download is
needed: the Debian ``chromium`` the HTML tests already use is enough. Protocol reference:
https://chromedevtools.github.io/devtools-protocol/ (Target, Page, Runtime, Log, Network).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADLESS_FLAGS = (  # a headless Chromium that reaches no network of its own
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
CHROMIUM_FLAGS = (*HEADLESS_FLAGS, "--remote-debugging-pipe")
TIMEOUT_SECONDS = 120.0


def find_chromium() -> str | None:
    default = Path("/usr/bin/chromium")
    return shutil.which("chromium") or (str(default) if default.is_file() else None)


@dataclass
class PageVisit:
    """What a page did while it loaded: console output, errors, requests."""

    url: str
    console: list[str] = field(default_factory=list)  # "level: text"
    errors: list[str] = field(default_factory=list)  # uncaught exceptions and error log entries
    requests: list[str] = field(default_factory=list)  # every URL the page asked for


class Browser:
    """One Chromium process; :meth:`open` loads a page in a fresh tab."""

    def __init__(self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int):
        self._process = process
        self._out = to_browser
        self._in = from_browser
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    # -- the protocol --------------------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        """Send a command and wait for its reply; events that arrive meanwhile are kept."""
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def _wait_for(self, method: str, session: str) -> None:
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while not any(
            m.get("method") == method and m.get("sessionId") == session for m in self._events
        ):
            self._events.append(self._receive(deadline))

    # -- pages ---------------------------------------------------------------------------------

    @contextmanager
    def open(self, page: Path, width: int = 1400, height: int = 1000) -> Iterator[Tab]:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=session)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        self._events.clear()
        url = page.resolve().as_uri()
        self.call("Page.navigate", {"url": url}, session=session)
        self._wait_for("Page.loadEventFired", session)
        tab = Tab(self, session, PageVisit(url=url))
        try:
            yield tab
        finally:
            tab.collect()
            self.call("Target.closeTarget", {"targetId": target})

    def events(self, session: str) -> list[dict[str, Any]]:
        mine = [m for m in self._events if m.get("sessionId") == session]
        self._events = [m for m in self._events if m.get("sessionId") != session]
        return mine

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self._process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._out)
            os.close(self._in)


@dataclass
class Tab:
    browser: Browser
    session: str
    visit: PageVisit

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression evaluated in the page."""
        found = self.browser.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=self.session,
        )
        if "exceptionDetails" in found:
            raise RuntimeError(f"in the page: {found['exceptionDetails']}")
        return found["result"].get("value")

    def screenshot(self) -> bytes:
        """The whole page (not only the window) as PNG."""
        size = self.browser.call("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        shot = self.browser.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": clip},
            session=self.session,
        )
        return base64.b64decode(shot["data"])

    def collect(self) -> PageVisit:
        """Fold the events received so far into :attr:`visit`."""
        for m in self.browser.events(self.session):
            method, params = m.get("method"), m.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params["args"]
                )
                self.visit.console.append(f"{params['type']}: {text}")
                if params["type"] in ("error", "assert"):
                    self.visit.errors.append(text)
            elif method == "Runtime.exceptionThrown":
                self.visit.errors.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Log.entryAdded":
                entry = params["entry"]
                self.visit.console.append(f"{entry['level']}: {entry['text']}")
                if entry["level"] == "error":
                    self.visit.errors.append(entry["text"])
            elif method == "Network.requestWillBeSent":
                self.visit.requests.append(params["request"]["url"])
        return self.visit


@contextmanager
def chromium(exe: str, profile: Path) -> Iterator[Browser]:
    """A headless Chromium with its own profile directory, closed on exit."""
    to_read, to_browser = os.pipe()  # the browser reads commands on its descriptor 3
    from_browser, to_write = os.pipe()  # and writes replies on its descriptor 4

    def descriptors() -> None:  # runs in the child, before exec and before it closes fds
        # Move both ends above 4 first: either may itself be descriptor 3 or 4.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_read, to_write)]
        os.dup2(high[0], 3)
        os.dup2(high[1], 4)

    process = subprocess.Popen(
        [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=descriptors,  # noqa: PLW1509 - only dup2, no locks taken
        pass_fds=(3, 4),  # kept open in the child: the pipe ends placed there
    )
    os.close(to_read)
    os.close(to_write)
    browser = Browser(process, to_browser, from_browser)
    try:
        yield browser
    finally:
        browser.close()


# Debian's package; CI (root) installs it before the tests. Keep this line and .ci/run in sync.
CHROMIUM_INSTALL = "apt-get update && apt-get install -y chromium"


def require_chromium(exe: str | None) -> str:
    """CI must have Chromium (it installs it); a developer without it gets a skip that says how."""
    import pytest

    if exe is None:
        message = f"headless Chromium is not installed; install it with: {CHROMIUM_INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return exe
