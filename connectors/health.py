"""Liveness and readiness over HTTP for the long-running loops (connector pollers, the event
bridge), for Kubernetes probes.

``/healthz`` answers 200 while the loop has ticked within ``stale_after_s`` (a loop stuck in a
call that never returns gets its pod restarted), ``/readyz`` 200 once the loop has completed
its first round. Nothing else is served and nothing is read from the request.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .webhook import parse_listen


class HealthServer:
    def __init__(self, spec: str, stale_after_s: float) -> None:
        host, port = parse_listen(spec, option="--health")
        self.stale_after_s = stale_after_s
        self._last = time.monotonic()  # a loop that never completes a round goes stale too
        self._ready = threading.Event()
        outer = self

        class _H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?", 1)[0]
                if path == "/healthz":
                    code, body = outer.liveness()
                elif path == "/readyz":
                    code, body = (200, {"status": "ready"}) if outer._ready.is_set() \
                        else (503, {"status": "starting"})
                else:
                    code, body = 404, {"status": "not found"}
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass  # probes every few seconds would drown the service's own log

        self.httpd = ThreadingHTTPServer((host, port), _H)
        self.address = self.httpd.server_address

    def liveness(self) -> tuple[int, dict[str, Any]]:
        age = time.monotonic() - self._last
        if age > self.stale_after_s:
            return 503, {"status": "stale", "seconds_since_last_round": round(age, 1)}
        return 200, {"status": "ok", "seconds_since_last_round": round(age, 1)}

    def beat(self) -> None:
        """The loop completed a round."""
        self._last = time.monotonic()
        self._ready.set()

    def start(self) -> HealthServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True, name="health").start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
