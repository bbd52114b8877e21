"""A real S3 API for tests: moto's standalone server on 127.0.0.1, and a small forwarding
proxy in front of it that injects failures (500s) or holds uploads (to kill a publish
mid-way). Stdlib only; all traffic stays on the loopback interface."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MotoServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> MotoServer:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"moto server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"moto server did not listen on {self.port} in {timeout}s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
        "upgrade"}


class FaultProxy:
    """Forwards every request to ``upstream``; ``fail_first`` requests get a 500 S3 error
    instead, and once ``hold_after_puts`` object PUTs went through, further PUTs wait until
    :meth:`release` (so a test can kill the client while it is mid-publish)."""

    def __init__(self, upstream_port: int, fail_first: int = 0,
                 hold_after_puts: int | None = None) -> None:
        self.upstream_port = upstream_port
        self.fail_first = fail_first
        self.hold_after_puts = hold_after_puts
        self.requests = 0
        self.failed = 0
        self.puts = 0
        self.held = threading.Event()  # a PUT is waiting
        self._release = threading.Event()
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    raise RuntimeError("chunked request bodies are not supported by the proxy")
                n = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(n) if n else b""

            def _handle(self) -> None:
                body = self._body()
                with proxy._lock:
                    proxy.requests += 1
                    fail = proxy.failed < proxy.fail_first
                    if fail:
                        proxy.failed += 1
                    hold = False
                    if self.command == "PUT" and not fail:
                        if (proxy.hold_after_puts is not None
                                and proxy.puts >= proxy.hold_after_puts):
                            hold = True
                        else:
                            proxy.puts += 1
                if fail:
                    self._reply(500, b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>"
                                b"InternalError</Code><Message>injected</Message></Error>",
                                {"Content-Type": "application/xml"})
                    return
                if hold:
                    proxy.held.set()
                    proxy._release.wait(60)
                    self._reply(503, b"", {})
                    return
                conn = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=30)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                    conn.request(self.command, self.path, body=body or None, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    self._reply(resp.status, data, {k: v for k, v in resp.getheaders()
                                                    if k.lower() not in _HOP
                                                    and k.lower() != "content-length"})
                finally:
                    conn.close()

            def _reply(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def release(self) -> None:
        self._release.set()

    def __exit__(self, *exc: object) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


def set_credentials() -> dict[str, str | None]:
    """Fake credentials for moto, through the normal AWS env chain; returns what to restore."""
    old = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    return old
