"""Webhook hints: any POST wakes the poller early. The payload is not trusted or parsed; the
poll that follows reads the API with the cursor, so a forged or lost webhook changes nothing
but timing."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def parse_listen(spec: str, option: str = "--webhook") -> tuple[str, int]:
    """``:8088`` or ``0.0.0.0:8088``; a bare port listens on localhost only."""
    host, _, port = spec.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"{option} expects [HOST]:PORT, got {spec!r}")
    return host or "127.0.0.1", int(port)


class WebhookHints:
    def __init__(self, spec: str, wake: threading.Event, max_body: int = 1 << 20) -> None:
        host, port = parse_listen(spec)
        self.hits = 0

        outer = self

        class _H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = min(int(self.headers.get("Content-Length") or 0), max_body)
                self.rfile.read(length)
                outer.hits += 1
                wake.set()
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, port), _H)
        self.address = self.httpd.server_address

    def start(self) -> "WebhookHints":
        threading.Thread(target=self.httpd.serve_forever, daemon=True, name="webhook").start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
