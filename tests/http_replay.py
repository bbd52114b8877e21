"""A real HTTP server on 127.0.0.1 that answers with payloads in the source APIs' shapes.

Each test supplies a handler ``(path, query, headers) -> (status, headers, body)``; a POST (the
search endpoints that take their query as JSON) also passes the parsed request body as a fourth
argument. The server records every request (and every POST body, in ``bodies``) so tests can
assert on paging, auth and retries.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Handler = Callable[..., tuple[int, dict[str, str], Any]]


class ReplayServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[tuple[str, dict[str, str], dict[str, str]]] = []
        self.bodies: list[Any] = []
        outer = self

        class _H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._answer(None)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                self._answer(json.loads(raw) if raw else {})

            def _answer(self, posted: Any) -> None:
                parts = urlsplit(self.path)
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append((parts.path, query, headers))
                outer.bodies.append(posted)
                args = (parts.path, query, headers) if posted is None else (parts.path, query, headers, posted)
                status, extra, body = outer.handler(*args)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in extra.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "ReplayServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serve(handler: Handler) -> Iterator[ReplayServer]:
    with ReplayServer(handler) as server:
        yield server
