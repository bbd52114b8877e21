"""A real Prefect server and process workers for end-to-end tests, and the PostgreSQL it runs on.

``prefect server start`` on 127.0.0.1 and a free port, with its own ``PREFECT_HOME``; with a
``database_url`` it keeps its state in PostgreSQL (as production does: SQLite reports
"database is locked" under concurrent flow runs), else in SQLite. Workers are ``prefect worker
start --type process`` subprocesses, so each flow run is a separate process that imports the
project the way a deployed worker would. Workers are stopped before the server (a worker
outliving its server retries noisily and can hold a flow run).

:class:`Postgres` is Debian's PostgreSQL 15 (package ``postgresql-15``): a fresh cluster by
``initdb``, started by ``pg_ctl`` on 127.0.0.1 and a free port, trust authentication on the
loopback only. PostgreSQL refuses to run as root, so under root (CI) it runs as the
``postgres`` user the package creates.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
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


PG_BIN = Path("/usr/lib/postgresql/15/bin")


class Postgres:
    def __init__(self) -> None:
        if not (PG_BIN / "initdb").is_file():
            raise RuntimeError(f"PostgreSQL 15 is missing ({PG_BIN}/initdb): apt-get install "
                               "postgresql-15 (bash .ci/real-parts.sh installs it)")
        self.port = free_port()
        self._as_postgres = os.geteuid() == 0
        # not under pytest's root-only tmp folder: the postgres user must reach it
        self.root = Path(tempfile.mkdtemp(prefix="folio-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        if self._as_postgres:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)

    def _run(self, *cmd: str, timeout: float = 60) -> str:
        out = subprocess.run([str(PG_BIN / cmd[0]), *cmd[1:]], capture_output=True, text=True,
                             timeout=timeout, user="postgres" if self._as_postgres else None,
                             cwd=self.root, env={**os.environ, "LC_ALL": "C.UTF-8"})
        if out.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({out.returncode}): {out.stderr[-2000:]}"
                               f"{self.tail()}")
        return out.stdout

    def start(self) -> Postgres:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E",
                  "UTF8", "--no-locale", "--no-sync")
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} "
                f"-c unix_socket_directories={self.root} -c max_connections=200")
        self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "-o", opts)
        return self

    def create_database(self, name: str) -> str:
        """A new database; returns Prefect's async connection URL for it."""
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{name}"

    def query(self, database: str, sql: str) -> str:
        return self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                         "-d", database, "-tAc", sql).strip()

    def tail(self, n: int = 3000) -> str:
        try:
            return "\n" + self.log.read_bytes()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "60")
        shutil.rmtree(self.root, ignore_errors=True)


class PrefectServer:
    def __init__(self, home: Path, database_url: str | None = None) -> None:
        self.home = home
        self.database_url = database_url
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.server: Proc | None = None
        self.workers: list[Proc] = []

    @property
    def env(self) -> dict[str, str]:
        return prefect_env(self.home, self.api_url)

    def start(self, timeout: float = 120.0) -> PrefectServer:
        self.home.mkdir(parents=True, exist_ok=True)
        env = prefect_env(self.home)
        if self.database_url:
            env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = self.database_url
        self.server = Proc(["prefect", "server", "start", "--host", "127.0.0.1", "--port",
                             str(self.port)], env, self.home / "server.log")
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
