"""End to end on real parts: Tansu (Kafka API), SeaweedFS (S3), a real ``prefect server`` on
PostgreSQL 15 with process workers, the deployments from ``folio pipeline deployments`` applied by ``prefect
deploy``, and one ``folio pipeline bridge`` per site.

Change events go onto Kafka; the bridges turn them into runs of the site deployments; each site
run drains its events into its corpus, extracts and ships its claim set to S3 and says so with a
``folio.site.shipped`` event; the central deployment's trigger runs the aggregation, which
publishes the signed index to S3. Nothing in the test calls a flow directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from brokers import fresh
from compiler.build import compile_wiki
from compiler.models import SourceRecord
from compiler.provenance.reproducible import reproducible_files
from compiler.settings import FolioSettings
from compiler.store.materialize import materialize
from compiler.store.publish import read_head
from compiler.store.url import open_store
from conftest import ACME
from connectors.bus.base import Topics
from connectors.bus.kafka import KafkaBus
from compiler.event_settings import EventSettings
from connectors.events import encode, record_event
from connectors.loader import corpus_records
from pipeline_sites import make_topology, site_entry, write_topology
from prefect_server import PrefectServer, Proc
from s3 import FaultProxy

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from pipelines.folio_cli import app; app()"]
SITES = {"emea": {"confluence": "confluence", "jira": "jira", "handbook": "markdown"},
         "us": {"salesforce/prod": "salesforce", "salesforce/legacy": "salesforce"}}
BUCKET = "folio-e2e"


def _events_env(bootstrap: str, prefix: str) -> dict[str, str]:
    # a short session keeps Tansu's first group join (about half of it) to a few seconds
    return {"FOLIO_EVENTS_KAFKA_BOOTSTRAP": bootstrap, "FOLIO_EVENTS_TOPIC_PREFIX": prefix,
            "FOLIO_EVENTS_SESSION_TIMEOUT_MS": "6000", "FOLIO_EVENTS_PARTITIONS": "3",
            "FOLIO_EVENTS_DEBOUNCE_MS": "300", "FOLIO_EVENTS_MAX_BATCH_WAIT_MS": "2000"}


class Stack:
    def __init__(self, root: Path, server: PrefectServer, bootstrap: str, prefix: str,
                 s3_url: str) -> None:
        self.root, self.server, self.bootstrap, self.prefix = root, server, bootstrap, prefix
        self.s3_url = s3_url
        self.store_url = f"s3://{BUCKET}/acme"
        self.bridges: list[Proc] = []

    @property
    def config(self) -> Path:
        return self.root / "folio-sites.yaml"

    def env(self) -> dict[str, str]:
        return {**self.server.env, **_events_env(self.bootstrap, self.prefix),
                "FOLIO_S3_ENDPOINT_URL": self.s3_url,
                "FOLIO_CACHE_DIR": str(self.root / "cache"),
                "FOLIO_KEY_PATH": os.environ["FOLIO_KEY_PATH"],
                "PREFECT_WORKER_QUERY_SECONDS": "1"}

    def bus(self) -> KafkaBus:
        return KafkaBus(EventSettings(kafka_bootstrap=self.bootstrap, partitions=3),
                        Topics(self.prefix, "acme"))

    def store(self):  # type: ignore[no-untyped-def]
        return open_store(self.store_url, FolioSettings(s3_endpoint_url=self.s3_url))

    def head_generation(self) -> int:
        head = read_head(self.store())
        return head[0].generation if head else 0

    def flow_runs(self) -> list:  # type: ignore[type-arg]
        from prefect.client.orchestration import SyncPrefectClient

        with SyncPrefectClient(self.server.api_url) as client:
            return client.read_flow_runs()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_bytes()[-3000:].decode(errors='replace')}"
                         for p in sorted(self.server.home.glob("*.log")))

    def settle(self, done, timeout: float = 300.0) -> None:  # type: ignore[no-untyped-def]
        """Wait until ``done()`` and no flow run is still pending or running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            runs = self.flow_runs()
            failed = [f"{r.name} {r.state_type}" for r in runs
                      if r.state_type and r.state_type.value in {"FAILED", "CRASHED"}]
            assert not failed, f"flow runs failed: {failed}\n{self.logs()}"
            busy = [r for r in runs if r.state_type is None
                    or r.state_type.value in {"SCHEDULED", "PENDING", "RUNNING"}]
            if not busy and done():
                return
            time.sleep(2)
        raise AssertionError(f"pipeline did not settle in {timeout}s\n{self.logs()}")


def acme_records() -> dict[str, list[SourceRecord]]:
    """The Acme corpus as each system's connector would publish it, by system topic."""
    by_system: dict[str, list[SourceRecord]] = {}
    for r in corpus_records(ACME, 1 << 26):
        by_system.setdefault(r.system, []).append(r)
    return by_system


PREFECT_DB = "prefect_e2e"


@pytest.fixture(scope="module")
def stack(tansu, seaweed, postgres, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("e2e")
    boto3.client("s3", endpoint_url=seaweed.url, region_name="us-east-1").create_bucket(Bucket=BUCKET)
    server = PrefectServer(root / "prefect", postgres.create_database(PREFECT_DB)).start()
    st = Stack(root, server, tansu.bootstrap, fresh("e2e"), seaweed.url)
    try:
        write_topology(root, [site_entry(name, systems=sorted(set(systems.values())))
                              for name, systems in SITES.items()], st.store_url)
        st.bus().ensure_topics(sorted({s for m in SITES.values() for s in m.values()}))
        # the deployments exactly as a platform team applies them
        out = subprocess.run(
            [*CLI, "pipeline",
             "deployments", "-c", str(st.config), "--mounted-at", str(st.config),
             "--code-dir", str(REPO)], capture_output=True, text=True, env={**os.environ,
                                                                            **st.env()})
        assert out.returncode == 0, out.stderr
        prefect_yaml = root / "prefect.yaml"
        prefect_yaml.write_text(out.stdout)
        for pool in ("folio-emea", "folio-us", "folio-central"):
            subprocess.run(["prefect", "work-pool", "create", pool, "--type", "process"],
                           env={**os.environ, **st.env()}, check=True, capture_output=True)
        dep = subprocess.run(["prefect", "--no-prompt", "deploy", "--all", "--prefect-file",
                              str(prefect_yaml)], cwd=REPO, env={**os.environ, **st.env()},
                             capture_output=True, text=True)
        assert dep.returncode == 0, dep.stdout + dep.stderr
        for pool in ("folio-emea", "folio-us", "folio-central"):
            server.worker(pool, st.env(), cwd=root)
        for site in SITES:
            st.bridges.append(Proc([*CLI, "pipeline", "bridge", "-c", str(st.config), "--site", site],
                                    st.env(), server.home / f"bridge-{site}.log", cwd=root))
        yield st
    finally:
        for b in st.bridges:
            b.stop()
        server.stop()


def test_events_at_two_sites_reach_a_signed_central_index_on_s3(stack: Stack, postgres,  # type: ignore[no-untyped-def]
                                                               tmp_path: Path):
    from prefect.client.orchestration import SyncPrefectClient

    with SyncPrefectClient(stack.server.api_url) as client:
        deployments = {d.name: d for d in client.read_deployments()}
    assert {"emea", "us", "central", "emea-reconcile", "us-reconcile"} <= set(deployments)
    assert deployments["emea"].work_pool_name == "folio-emea"
    assert deployments["us"].work_pool_name == "folio-us"

    # a snapshot of every Acme source, as the connectors publish it
    records = acme_records()
    bus = stack.bus()
    for system, recs in sorted(records.items()):
        bus.publish(system, [m for r in recs for m in encode(record_event(r, "r"))])
    bus.close()

    direct = tmp_path / "direct"
    compile_wiki(ACME, direct)  # the deployments compile as of today too
    expected = reproducible_files(direct)
    settings = FolioSettings(s3_endpoint_url=stack.s3_url, cache_dir=tmp_path / "cache")

    def central_complete() -> bool:
        if stack.head_generation() == 0:
            return False
        wiki, _ = materialize(stack.store(), settings)
        return set(reproducible_files(wiki)) == set(expected)

    stack.settle(central_complete)
    runs = stack.flow_runs()
    site_runs = [r for r in runs if r.deployment_id == deployments["emea"].id]
    assert site_runs and all(r.parameters["drain"] for r in site_runs)
    assert any(r.deployment_id == deployments["central"].id for r in runs)
    # the server keeps its runs in PostgreSQL, not in a SQLite file
    assert int(postgres.query(PREFECT_DB, "select count(*) from flow_run")) == len(runs)
    assert not list(stack.server.home.rglob("*.db"))

    # what arrived at the centre is what one compile of all sources gives, signed
    wiki, _ = materialize(stack.store(), settings)
    assert reproducible_files(wiki) == expected
    ok = subprocess.run([*CLI, "verify",
                         "--wiki", stack.store_url], capture_output=True, text=True,
                        env={**os.environ, **stack.env(), "FOLIO_CACHE_DIR": str(tmp_path / "c2")})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # a page whose claims come from both sites: the account (Salesforce at us) and the ticket
    # that mentions it (Jira at emea)
    mixed = [p for p, sys_ in _page_systems(wiki).items()
             if "salesforce" in sys_ and ({"jira", "confluence", "markdown"} & sys_)]
    assert mixed, "no page combines claims from both sites"

    # one record changed at one site: only the pages citing it are published anew
    gen = stack.head_generation()
    before = _tree(stack)
    citing = _pages_citing(wiki, records["jira"][0].key)
    jira = records["jira"][0]
    doc = jira.model_dump(exclude={"key", "sha256", "origin"})
    doc["version"] = f"{jira.version}-e2e"
    doc["title"] = f"{jira.title} (escalated)"
    changed = SourceRecord.model_validate(doc)
    bus = stack.bus()
    bus.publish("jira", encode(record_event(changed, "u", before=jira)))
    bus.close()
    stack.settle(lambda: stack.head_generation() > gen)
    after = _tree(stack)
    pages_changed = {p for p in set(before) | set(after)
                     if p.endswith(".md") and before.get(p) != after.get(p)}
    citing |= _pages_citing(materialize(stack.store(), settings)[0], changed.key)
    assert pages_changed, "the change did not reach the central index"
    assert pages_changed - {"index.md", "log.md"} <= citing
    assert len(pages_changed) < len([p for p in after if p.endswith(".md")]) / 2


def _tree(stack: Stack) -> dict[str, str]:
    from compiler.store.layout import Tree, tree_key

    store = stack.store()
    head, _ = read_head(store)
    tree = Tree.model_validate_json(store.get(tree_key(head.tree)))
    return {p: e.sha256 for p, e in tree.files.items()}


def _sidecars(wiki: Path):  # type: ignore[no-untyped-def]
    for side in wiki.rglob("*.claims.json"):
        if ".folio" not in side.parts:
            yield side.relative_to(wiki).as_posix().removesuffix(".claims.json") + ".md", \
                json.loads(side.read_text())


def _page_systems(wiki: Path) -> dict[str, set[str]]:
    return {page: {c["source"]["key"].split("/")[1] for c in doc["claims"]}
            for page, doc in _sidecars(wiki)}


def _pages_citing(wiki: Path, key: str) -> set[str]:
    return {page for page, doc in _sidecars(wiki) if key in json.dumps(doc)}


# -- a killed aggregation ------------------------------------------------------------------------

def _ship_sites(config: Path, s3_url: str) -> None:
    from pipelines import site as site_mod
    from pipelines.topology import load_topology

    topo = load_topology(config)
    settings = FolioSettings(s3_endpoint_url=s3_url)
    store = open_store(topo.store, settings)
    for s in topo.sites:
        site_mod.site_compile(s, store, settings, topo.tenant)


def _aggregate(stack: Stack, config: Path, endpoint: str) -> subprocess.Popen[bytes]:
    """``folio pipeline aggregate`` in its own process, a flow run on the real server."""
    log = (config.parent / "aggregate.log").open("ab")
    return subprocess.Popen([*CLI, "pipeline", "aggregate", "-c", str(config)],
                            env={**os.environ, **stack.env(), "FOLIO_S3_ENDPOINT_URL": endpoint},
                            cwd=config.parent, stdout=log, stderr=subprocess.STDOUT)


def _published(stack: Stack, url: str, cache: Path) -> Path:
    store = open_store(url, FolioSettings(s3_endpoint_url=stack.s3_url))
    return materialize(store, FolioSettings(s3_endpoint_url=stack.s3_url, cache_dir=cache))[0]


def test_a_killed_aggregation_rerun_publishes_what_an_uninterrupted_run_does(
        stack: Stack, seaweed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ref = make_topology(tmp_path / "ref", store=f"s3://{BUCKET}/ref")
    crash = make_topology(tmp_path / "crash", store=f"s3://{BUCKET}/crash")
    for config in (ref, crash):
        _ship_sites(config, seaweed.url)
    assert _aggregate(stack, ref, seaweed.url).wait(300) == 0, (ref.parent / "aggregate.log").read_text()
    crash_store = open_store(f"s3://{BUCKET}/crash", FolioSettings(s3_endpoint_url=seaweed.url))

    # 1. SIGKILL mid-compile: as soon as the first page file of the central wiki appears
    wiki = tmp_path / "crash" / "central" / "wiki"
    proc = _aggregate(stack, crash, seaweed.url)
    deadline = time.monotonic() + 300
    while proc.poll() is None and not any(wiki.glob("*/*.md")):
        assert time.monotonic() < deadline, "the aggregation never started writing pages"
        time.sleep(0.005)
    proc.kill()
    assert proc.wait() == -9, "the aggregation finished before it could be killed"
    assert read_head(crash_store) is None

    # 2. SIGKILL mid-publish: the proxy holds every S3 upload after the fifth
    with FaultProxy(seaweed.port, hold_after_puts=5) as proxy:
        proc = _aggregate(stack, crash, proxy.url)
        assert proxy.held.wait(300), "the publish never started"
        proc.kill()
        assert proc.wait() == -9
        proxy.release()
    assert read_head(crash_store) is None  # objects went up, HEAD never did

    # 3. the rerun, through an S3 that answers its first requests with 500s
    with FaultProxy(seaweed.port, fail_first=3) as proxy:
        assert _aggregate(stack, crash, proxy.url).wait(300) == 0, \
            (crash.parent / "aggregate.log").read_text()[-3000:]
        assert proxy.failed == 3
    head, _ = read_head(crash_store)
    assert head.generation == 1
    assert reproducible_files(_published(stack, f"s3://{BUCKET}/crash", tmp_path / "c1")) == \
        reproducible_files(_published(stack, f"s3://{BUCKET}/ref", tmp_path / "c2"))
    ok = subprocess.run([*CLI, "verify", "--wiki", f"s3://{BUCKET}/crash"], capture_output=True,
                        text=True, env={**os.environ, **stack.env(),
                                        "FOLIO_CACHE_DIR": str(tmp_path / "c3")})
    assert ok.returncode == 0, ok.stdout + ok.stderr
