"""Failure tests against real brokers: SIGKILL the consumer mid-batch and restart; restart the
broker (persistent storage) while a connector publishes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

from brokers import Broker, fresh
from connectors.api.base import ApiSourceConfig, AuthConfig
from connectors.api.registry import make_api_connector
from connectors.api.runner import CursorStore, poll_once
from connectors.bus.base import PublishError, Topics
from connectors.bus.kafka import KafkaBus
from connectors.bus.memory import InProcessBus
from pipelines.consumer import SiteConsumer
from connectors.events import Tombstone, decode, encode, record_event
from connectors.site_corpus import SiteCorpus
from eventdata import T0, kafka_settings, pages, ticket
from fake_jira import FakeJira
from http_replay import serve

ROOT = Path(__file__).resolve().parents[1]
N_KEYS = 240


def _events(tenant: str) -> list:
    msgs = []
    for rev in (1, 2):  # every record is created, then edited: later batches overwrite earlier ones
        for n in range(N_KEYS):
            msgs += encode(record_event(ticket(tenant, n, rev), "c" if rev == 1 else "u"))
    return msgs


def _consume_cli(site: str, tenant: str, wiki: Path, bootstrap: str, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "FOLIO_EVENTS_KAFKA_BOOTSTRAP": bootstrap, "FOLIO_EVENTS_MAX_BATCH": "40",
           "FOLIO_EVENTS_SESSION_TIMEOUT_MS": "6000", "FOLIO_EVENTS_DEBOUNCE_MS": "50",
           "FOLIO_EVENTS_PARTITIONS": "3", "FOLIO_WORKERS": "1"}
    cmd = [sys.executable, "-c", "from pipelines.folio_cli import app; app()", "consume", "--site", site,
           "--tenant", tenant, "--wiki", str(wiki), "--system", "jira", *extra]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def test_sigkill_mid_batch_then_restart_equals_an_uninterrupted_run(tansu, tmp_path: Path) -> None:
    tenant, site = fresh("t"), fresh("emea")
    msgs = _events(tenant)

    # the uninterrupted reference: the same events through the in-process bus, one batch
    ref_bus = InProcessBus(Topics("folio", tenant))
    ref_bus.publish("jira", msgs)
    ref_wiki = tmp_path / "ref-wiki"
    SiteConsumer(ref_bus.subscribe("ref", ["jira"]), SiteCorpus(tmp_path / "ref-corpus", tenant),
                 ref_wiki, kafka_settings("unused", max_batch=100_000)).run_once(wait_s=0)
    expected = pages(ref_wiki)
    assert sum(1 for p in expected if p.startswith("ticket/") and p.endswith(".md")) == N_KEYS

    bus = KafkaBus(kafka_settings(tansu.bootstrap).events, Topics("folio", tenant))
    bus.ensure_topics(["jira"])
    bus.publish("jira", msgs)
    bus.close()

    wiki = tmp_path / "wiki"
    corpus = tmp_path / "wiki.corpus" / "records"
    first = _consume_cli(site, tenant, wiki, tansu.bootstrap)
    deadline = time.monotonic() + 60
    # kill once it is part-way: some records written, the edits not all applied yet
    while not (corpus.exists() and sum(1 for _ in corpus.rglob("*.json")) >= 40):
        assert first.poll() is None, first.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "consumer made no progress"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(10)
    written = [p.read_text() for p in corpus.rglob("*.json")]
    assert sum("Revision 2" in t for t in written) < N_KEYS, "killed too late to be mid-run"

    second = _consume_cli(site, tenant, wiki, tansu.bootstrap, "--idle-exit", "6")
    try:
        _, err = second.communicate(timeout=150)
    finally:
        if second.poll() is None:
            os.killpg(second.pid, signal.SIGKILL)
    assert second.returncode == 0, err.decode()[-2000:]
    assert pages(wiki) == expected


def test_broker_restart_while_publishing_resumes_from_the_cursor(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("T_JIRA", "s3cret-token")
    broker = Broker("noida", data_dir=tmp_path / "noida").start()
    tenant = fresh("t")
    jira = FakeJira(count=300)
    settings = kafka_settings(broker.bootstrap)
    store = CursorStore(tmp_path / "jira.cursor.json")
    failures: list[str] = []
    done = threading.Event()
    try:
        bus = KafkaBus(settings.events, Topics("folio", tenant))
        bus.ensure_topics(["jira"])
        with serve(jira) as server:
            cfg = ApiSourceConfig(system="jira", instance="acme-jira", base_url=server.url, page_size=10,
                                  auth=AuthConfig(kind="basic", username="bot@acme.test", token_env="T_JIRA"))
            conn = make_api_connector(cfg, tenant, sleep=lambda s: None)
            now = T0 + timedelta(days=1)

            def publish_loop() -> None:
                while True:
                    try:
                        poll_once(conn, cfg, bus, store, tenant, now=now)
                        done.set()
                        return
                    except PublishError as exc:
                        failures.append(str(exc))
                        time.sleep(0.2)

            # throttle the API so the broker restart lands while pages are still being published
            orig = conn.client.get
            conn.client.get = lambda *a, **k: (time.sleep(0.05), orig(*a, **k))[1]  # type: ignore[method-assign]
            t = threading.Thread(target=publish_loop, daemon=True)
            t.start()
            deadline = time.monotonic() + 30
            while not (store.path.exists() and len(store.load().versions) >= 60):
                assert time.monotonic() < deadline
                time.sleep(0.02)
            # a graceful broker restart: noida-db acknowledges before its periodic flush and has
            # no signal handler, so killing its process (any signal) loses acknowledged writes
            broker.restart_kafka(pause_s=1.0)
            assert done.wait(120), f"connector did not finish; failures: {failures[-3:]}"
            t.join(5)
            conn.close()
        assert len(store.load().versions) == 300
        bus.close()

        # everything the cursor covers is on the broker: read it back with a fresh group
        got: set[str] = set()
        sub = KafkaBus(settings.events, Topics("folio", tenant)).subscribe(fresh("check"), ["jira"])
        deadline = time.monotonic() + 60
        while len(got) < 300 and time.monotonic() < deadline:
            for d in sub.poll(0.5, 1000):
                item = decode(d.message)
                if not isinstance(item, Tombstone):
                    got.add(item.record.id)
        sub.close()
        assert got == set(jira.issues)
    finally:
        broker.stop()
