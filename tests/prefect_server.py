"""A real Prefect server (SQLite) and process workers for end-to-end tests.

``prefect server start`` on 127.0.0.1 and a free port, with its own ``PREFECT_HOME``; workers
are ``prefect worker start --type process`` subprocesses, so each flow run is a separate
process that imports the project the way a deployed worker would. Workers are stopped before
the server (a worker outliving its server retries noisily and can hold a flow run).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from s3 import free_port


def prefect_env(home: Path, api_url: str | None = None) -> dict[str, str]:
    env = {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_LOGGING_LEVEL": "INFO", "PREFECT_CLI_COLORS": "false"}
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


class Proc:
    def __init__(self, cmd: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
                 ) -> None:
        self.log = log
        self._out = log.open("wb")
        # a new session, so stopping it also stops the flow-run processes it started
        self.proc = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=cwd, stdout=self._out,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 20.0) -> None:
        if self.running():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._out.close()

    def tail(self, n: int = 4000) -> str:
        return self.log.read_bytes()[-n:].decode(errors="replace")


class PrefectServer:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.server: Proc | None = None
        self.workers: list[Proc] = []

    @property
    def env(self) -> dict[str, str]:
        return prefect_env(self.home, self.api_url)

    def start(self, timeout: float = 120.0) -> PrefectServer:
        self.home.mkdir(parents=True, exist_ok=True)
        self.server = Proc(["prefect", "server", "start", "--host", "127.0.0.1", "--port",
                             str(self.port)], prefect_env(self.home), self.home / "server.log")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.server.running():
                raise RuntimeError(f"prefect server exited:\n{self.server.tail()}")
            try:
                with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"prefect server not healthy in {timeout}s")

    def worker(self, pool: str, env: dict[str, str], cwd: Path) -> Proc:
        w = Proc(["prefect", "worker", "start", "--pool", pool, "--type", "process",
                   "--prefetch-seconds", "5", "--limit", "2"],
                  {**self.env, **env}, self.home / f"worker-{pool}.log", cwd=cwd)
        self.workers.append(w)
        return w

    def stop(self) -> None:
        for w in self.workers:
            w.stop()
        self.workers.clear()
        if self.server:
            self.server.stop()
