"""Probe endpoints of the long-running loops (``--health``), as Kubernetes calls them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from connectors.health import HealthServer
from fake_hubspot import FakeHubSpot
from http_replay import serve


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_ready_after_the_first_round_and_stale_when_the_loop_stops() -> None:
    probe = HealthServer("127.0.0.1:0", stale_after_s=0.3).start()
    base = f"http://127.0.0.1:{probe.address[1]}"
    try:
        assert _get(base + "/readyz")[0] == 503
        assert _get(base + "/healthz")[0] == 200  # starting: not yet stale
        probe.beat()
        assert _get(base + "/readyz") == (200, {"status": "ready"})
        time.sleep(0.4)
        code, body = _get(base + "/healthz")
        assert code == 503 and body["status"] == "stale"
        probe.beat()
        assert _get(base + "/healthz")[0] == 200
        assert _get(base + "/anything")[0] == 404
    finally:
        probe.stop()


def test_a_bad_address_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="--health expects"):
        HealthServer("nonsense", stale_after_s=1)


def test_connector_poll_loop_serves_probes_and_stops_on_sigterm(tmp_path: Path) -> None:
    """The real command as a pod runs it: ready once a poll went through, alive while it polls,
    a clean exit on SIGTERM (Kubernetes' stop signal)."""
    with serve(FakeHubSpot()) as server:
        site = tmp_path / "site.yaml"
        site.write_text("tenant: acme\nsite: emea\nconnectors:\n"
                        f"  - {{system: hubspot, instance: portal-4711, base_url: '{server.url}',"
                        " scope: [companies, contacts], poll_interval_s: 0.2,"
                        " auth: {kind: bearer, token_env: T_HS}}\n")
        env = {**os.environ, "T_HS": "pat-na1-s3cret"}
        env.pop("FOLIO_EVENTS_KAFKA_BOOTSTRAP", None)
        proc = subprocess.Popen(
            [sys.executable, "-c", "from pipelines.folio_cli import app; app()", "connectors", "run",
             "hubspot", "--config", str(site), "--wiki", str(tmp_path / "wiki"),
             "--health", "127.0.0.1:0"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            port = None
            for line in proc.stdout:  # type: ignore[union-attr]
                if line.startswith("health probes on"):
                    port = int(line.rsplit(":", 1)[1])
                    break
            assert port, "no probe address printed"
            deadline = time.monotonic() + 60
            while _get(f"http://127.0.0.1:{port}/readyz")[0] != 200:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
            assert _get(f"http://127.0.0.1:{port}/healthz")[0] == 200
            proc.send_signal(signal.SIGTERM)
            rest = proc.communicate(timeout=60)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, rest
    assert "hubspot/portal-4711: 5 published" in rest  # the first round, before the probe said ready
