"""A FAULT-INJECTING HTTP PROXY of the tests' own, in front of an emulator, on 127.0.0.1.

Why: the S3 and GCS emulators check no credential and never throttle, so the failures users
meet (access denied, an expired token, 503 SlowDown) cannot be had from them. This proxy
passes every request on to the emulator unchanged, except that a test can make it answer the
next N requests itself with the status and error body the real service sends (S3's XML
``<Error><Code>``, GCS's JSON ``{"error": {...}}``). It is a test stand-in, not a cloud.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Fault:
    status: int
    code: str
    message: str
    times: int  # how many requests get it; -1: all


@dataclass
class FaultProxy:
    upstream: str  # http://127.0.0.1:PORT of the emulator
    style: str  # "s3" (XML errors) or "gcs" (JSON errors)
    faults: list[Fault] = field(default_factory=list)
    served_faults: int = 0
    forwarded: int = 0
    paths: list[str] = field(default_factory=list)  # method and path of each request seen
    authorizations: list[str] = field(default_factory=list)  # Authorization headers seen
    # POST /token answers an OAuth token grant (a service account's token_uri can point here)
    access_token: str = "ya29.proxy-issued-token"
    tokens_issued: int = 0
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def inject(self, status: int, code: str, message: str, times: int = -1) -> None:
        with self._lock:
            self.faults = [Fault(status, code, message, times)]
            self.served_faults = 0

    def clear(self) -> None:
        with self._lock:
            self.faults = []
            self.served_faults = 0
            self.paths = []
            self.authorizations = []

    def _next_fault(self) -> Fault | None:
        with self._lock:
            if not self.faults:
                return None
            fault = self.faults[0]
            if fault.times == 0:
                return None
            if fault.times > 0:
                fault.times -= 1
            self.served_faults += 1
            return fault

    def error_body(self, fault: Fault) -> tuple[bytes, str]:
        if self.style == "s3":
            xml = (
                '<?xml version="1.0" encoding="UTF-8"?>\n<Error>'
                f"<Code>{fault.code}</Code><Message>{fault.message}</Message>"
                "<RequestId>FAULTPROXY</RequestId></Error>"
            )
            return xml.encode(), "application/xml"
        doc = {
            "error": {
                "code": fault.status,
                "message": fault.message,
                "errors": [{"message": fault.message, "reason": fault.code}],
            }
        }
        return json.dumps(doc).encode(), "application/json"


def _handler(proxy: FaultProxy) -> type[BaseHTTPRequestHandler]:
    target = urlsplit(proxy.upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            proxy.paths.append(f"{self.command} {self.path}")
            proxy.authorizations.append(self.headers.get("Authorization", ""))
            if self.command == "POST" and self.path == "/token":
                proxy.tokens_issued += 1
                doc = {
                    "access_token": proxy.access_token,
                    "expires_in": 3600,
                    "token_type": "Bearer",
                }
                data = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            fault = proxy._next_fault()
            if fault is not None:
                data, kind = proxy.error_body(fault)
                self.send_response(fault.status)
                self.send_header("Content-Type", kind)
                if proxy.style == "s3":  # Azure's SDK reads the code from this header first
                    self.send_header("x-ms-error-code", fault.code)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                return
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                headers["Host"] = target.netloc
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                proxy.forwarded += 1
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            finally:
                conn.close()

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 - the base's names

    return Handler


@contextmanager
def serving(proxy: FaultProxy) -> Iterator[FaultProxy]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
