"""Prefect flows: compile near each data source, aggregate centrally, keep it fresh.

- ``site-compile`` (one deployment per site, in the site's work pool): optionally drain the
  site's change events into its corpus, extract changed records, ship the claim set. Offsets are
  committed only after the claim set is in the store.
- ``aggregate`` (central): gather claim sets, compile, sign, publish to the store.
- ``reconcile`` (scheduled, per site): re-extract and re-ship from the corpus as it is now, so a
  missed event or a lost upload is repaired; with API connectors configured, prune deletions
  through the id-only listing first.
- ``freshness`` (scheduled, central): pages whose sources are older than their tier allows,
  as a report and as Prefect events.
- ``compile-all``: the embedded default, every site then the aggregation, in one process.

Tasks are small and idempotent; the ones that talk to the store retry with backoff, since
their failures are the transient kind. Flows take the sites file's path (not its contents) so
a deployment's parameters stay small and the file is the single source of truth.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.events import emit_event

from compiler.settings import FolioSettings
from compiler.store.url import open_store

from . import central, site as site_mod
from .deployments import SHIPPED_EVENT, site_resource
from .freshness import FreshnessReport, stale_pages
from .topology import Topology, load_topology



def _transient(task, task_run, state) -> bool:  # type: ignore[no-untyped-def]  # noqa: ANN001
    """Retry what can pass (network, 5xx after botocore's own retries), never what cannot: a
    corrupt object, a lost update, a claim set of another backend, an invalid manifest or
    sites file (pydantic's ValidationError is a ValueError)."""
    from compiler.store.base import BlobCorrupt, LostUpdate

    exc = state.data if isinstance(state.data, BaseException) else None
    return not isinstance(exc, BlobCorrupt | LostUpdate | central.BackendMismatch | ValueError)


_STORE_RETRIES = dict(retries=4, retry_delay_seconds=[1, 4, 15, 60], retry_jitter_factor=0.5,
                      retry_condition_fn=_transient)


def _load(config: str) -> tuple[Topology, FolioSettings]:
    return load_topology(Path(config)), FolioSettings()


@task(name="extract-site")
def extract_site(config: str, site: str) -> dict:
    topo, settings = _load(config)
    report, manifest, written = site_mod.extract(topo.site(site), settings, topo.tenant, topo.central.schema_file)
    return {"records": manifest.records, "extracted": report.records_extracted,
            "removed": report.records_removed, "rejected": report.rejected,
            "shards_written": written, "seconds": round(report.seconds, 3)}


@task(name="ship-claimset", **_STORE_RETRIES)
def ship_claimset(config: str, site: str) -> int:
    topo, settings = _load(config)
    return site_mod.ship(topo.site(site), open_store(topo.store, settings), settings)


@task(name="drain-events")
def drain_events(config: str, site: str, max_batches: int = 50, wait_s: float = 1.0) -> dict:
    """Apply the site's queued change events to its corpus and ship after each batch; commit
    offsets only after the claim set is in the store (at-least-once, idempotent)."""
    from .consumer import SiteConsumer
    from connectors.site_corpus import SiteCorpus
    from connectors.wiring import claim_check_store, make_bus

    topo, settings = _load(config)
    s = topo.site(site)
    store = open_store(topo.store, settings)

    uploaded = 0

    def extract_and_ship(st: FolioSettings):  # type: ignore[no-untyped-def]
        nonlocal uploaded
        report, _, _ = site_mod.extract(s, st, topo.tenant, topo.central.schema_file)
        uploaded += site_mod.ship(s, store, st)
        return report

    bus = make_bus(settings, topo.tenant)
    sub = bus.subscribe(site, list(s.systems))
    events = keys = batches = 0
    try:
        consumer = SiteConsumer(sub, SiteCorpus(s.corpus, topo.tenant), s.workdir / site_mod.STATE,
                                settings, claim_checks=claim_check_store(settings),
                                compile_fn=extract_and_ship)
        # a group's first join takes seconds on a real broker: a quiet poll means "drained"
        # only once the partitions are assigned
        join_deadline = time.monotonic() + 2 * settings.events.session_timeout_ms / 1000
        while batches < max_batches:
            r = consumer.run_once(wait_s=wait_s)
            if r is None:
                if sub.ready() or time.monotonic() > join_deadline:
                    break
                continue
            batches += 1
            events += r.events
            keys += r.keys
    finally:
        sub.close()
        bus.close()
    return {"batches": batches, "events": events, "keys": keys, "uploaded": uploaded}


@flow(name="site-compile", log_prints=False)
def site_compile(config: str, site: str, drain: bool = False) -> dict:
    """Extract a site's changed records and ship its claim set to the central store."""
    log = get_run_logger()
    out: dict = {"site": site}
    if drain:
        out["events"] = drain_events(config, site)
    out["extract"] = extract_site(config, site)
    out["uploaded"] = ship_claimset(config, site)
    log.info("site %s: %s", site, json.dumps(out, sort_keys=True))
    resource = {"prefect.resource.id": site_resource(site)}
    emit_event(event="folio.site.compiled", resource=resource, payload=out)
    if out["uploaded"] or out.get("events", {}).get("uploaded"):
        # what the central deployment's trigger waits for: only a changed claim set
        emit_event(event=SHIPPED_EVENT, resource=resource, payload=out)
    return out


@task(name="gather-claimsets", **_STORE_RETRIES)
def gather_claimsets(config: str) -> dict:
    topo, settings = _load(config)
    return central.gather(topo, open_store(topo.store, settings), settings,
                          expect_backend=central.expected_backend(settings)).model_dump()


@task(name="compile-central")
def compile_central(config: str, today: str | None = None) -> dict:
    from compiler.build import compile_wiki

    topo, settings = _load(config)
    return central.compile_summary(compile_wiki(central.corpus_dir(topo), central.wiki_dir(topo),
                                         settings, today=today))


@task(name="publish-wiki", **_STORE_RETRIES)
def publish(config: str) -> dict:
    from compiler.store.publish import publish_wiki

    topo, settings = _load(config)
    return publish_wiki(central.wiki_dir(topo), open_store(topo.store, settings),
                        settings).model_dump()


@flow(name="aggregate")
def aggregate(config: str, today: str | None = None) -> dict:
    """Merge every site's claim set, compile, sign, and publish the central index."""
    gathered = gather_claimsets(config)
    compiled = compile_central(config, today)
    published = publish(config)
    emit_event(event="folio.index.published", resource={"prefect.resource.id": "folio.index"},
               payload={"generation": published["generation"], "tree": published["tree"],
                        "pages_written": compiled["pages_written"]})
    return {"gather": gathered, "compile": compiled, "publish": published}


@flow(name="reconcile")
def reconcile(config: str, site: str) -> dict:
    """Rebuild the site's claim set from its corpus as it is now and re-ship what the store
    lacks: repairs a missed event, a lost upload or a tampered shard."""
    extracted = extract_site(config, site)
    uploaded = ship_claimset(config, site)
    return {"site": site, "extract": extracted, "uploaded": uploaded}


@flow(name="freshness")
def freshness(config: str, now: str | None = None) -> dict:
    """Pages whose sources exceed their freshness tier (plus the SLO grace), as a report and
    one Prefect event per late page."""
    topo, _ = _load(config)
    report: FreshnessReport = stale_pages(central.wiki_dir(topo), topo.central.freshness_slo_hours,
                                          now=now)
    for page in report.late:
        emit_event(event="folio.page.stale", resource={"prefect.resource.id": f"folio.page.{page.page}"},
                   payload=page.model_dump(mode="json"))
    return report.model_dump(mode="json")


@flow(name="compile-all")
def compile_all(config: str, today: str | None = None) -> dict:
    """Embedded default: every site, then the aggregation, in this process."""
    topo, _ = _load(config)
    sites = {s.name: site_compile(config, s.name) for s in topo.sites}
    return {"sites": sites, "aggregate": aggregate(config, today)}
