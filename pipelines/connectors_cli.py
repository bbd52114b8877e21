"""``folio connectors run|sync`` and ``folio consume``: registered on the main app by
:func:`register`. They stand here, above compiler/ and connectors/, because they compile what
the connectors publish (pipelines/consumer.py)."""

from __future__ import annotations

import logging
import signal
import statistics
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.console import Console

from compiler.cli_base import folio_typer, plural
from compiler.settings import FolioSettings
from compiler.wiki_owner import FolderGuardError
from connectors.bus.base import EventBus, PublishError
from connectors.health import HealthServer
from connectors.site_corpus import SiteCorpus
from connectors.wiring import claim_check_store, make_bus

from .consumer import BatchReport, SiteConsumer, guard_consumer

if TYPE_CHECKING:
    from connectors.api.runner import RunReport

EXIT_REJECTED = 3
out = Console()
err = Console(stderr=True)
connectors_app = folio_typer(help="Run source connectors that publish change events.")

ConfigOpt = Annotated[Path, typer.Option("--config", "-c", help="site.yaml (tenant, site, connectors)",
                                         exists=True, dir_okay=False)]
InstanceOpt = Annotated[Optional[str], typer.Option("--instance", help="which connector of the system")]
HealthOpt = Annotated[Optional[str], typer.Option(
    "--health", help="[HOST]:PORT serving /healthz (the loop is alive) and /readyz (it has "
                     "completed a round), for Kubernetes probes")]
WikiEmbedded = Annotated[Optional[Path], typer.Option(
    "--wiki", help="embedded mode (no Kafka configured): also compile the events into this wiki")]


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGTERM/SIGINT set a stop flag for as long as the command runs; the previous handlers
    come back after, so a caller in the same process (tests, embedding) keeps its own."""
    stop = threading.Event()
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    for sig in saved:
        signal.signal(sig, lambda *_: stop.set())
    try:
        yield stop
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def start_health(spec: str | None, stale_after_s: float) -> HealthServer | None:
    """The probe server of ``--health``, or a clear error for a bad address or a busy port."""
    if not spec:
        return None
    try:
        probe = HealthServer(spec, stale_after_s).start()
    except (ValueError, OSError) as exc:
        err.print(f"[red]error:[/red] --health {spec}: {exc}")
        raise typer.Exit(1) from None
    out.print(f"health probes on {probe.address[0]}:{probe.address[1]}")
    return probe


def _print_run(what: str, r: RunReport) -> None:
    out.print(f"{what}: {r.published} published, {r.deleted} deleted, {r.unchanged} unchanged, "
              f"{len(r.errors)} rejected, {plural(r.pages, 'page')} read", highlight=False,
              soft_wrap=True)
    for e in r.errors:
        err.print(f"  rejected: {e}")


def _embedded_compile(bus: EventBus, settings: FolioSettings, tenant: str, site: str, system: str,
                      wiki: Path | None) -> None:
    if wiki is None or settings.events.kafka_bootstrap:
        return
    consumer = SiteConsumer(bus.subscribe(site, [system]), SiteCorpus(_corpus_for(wiki, None), tenant),
                            wiki, settings, claim_checks=claim_check_store(settings))
    while (r := consumer.run_once(wait_s=0)) is not None:
        _print_batch(r)


def _setup(config: Path, system: str, instance: str | None, wiki: Path | None):  # type: ignore[no-untyped-def]
    # the API connectors need httpx (the connectors extra): imported here, not at start-up
    from connectors.api.base import ConfigError, load_site_config
    from connectors.api.registry import make_api_connector
    from connectors.api.runner import CursorStore, cursor_path

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = FolioSettings()
    try:
        site = load_site_config(config)
        cfg = site.connector(system, instance)
        connector = make_api_connector(cfg, site.tenant)
    except ConfigError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    if wiki is None and not settings.events.kafka_bootstrap:
        err.print("[red]error:[/red] no Kafka configured (FOLIO_EVENTS_KAFKA_BOOTSTRAP) and no --wiki "
                  "for embedded mode: events would go nowhere")
        raise typer.Exit(1)
    if wiki is not None and not settings.events.kafka_bootstrap:
        _guard(SiteCorpus(_corpus_for(wiki, None), site.tenant), wiki)
    bus = make_bus(settings, site.tenant)
    bus.ensure_topics([system])
    store = CursorStore(cursor_path(site.state_dir, cfg))
    return settings, site, cfg, connector, bus, store


@connectors_app.command("run")
def run_cmd(
    system: Annotated[str, typer.Argument(help="confluence, jira, zendesk, salesforce or hubspot")],
    config: ConfigOpt,
    instance: InstanceOpt = None,
    once: Annotated[bool, typer.Option("--once", help="poll once and exit")] = False,
    webhook: Annotated[Optional[str], typer.Option(
        "--webhook", help="[HOST]:PORT to accept the system's webhooks as hints to poll now")] = None,
    health: HealthOpt = None,
    wiki: WikiEmbedded = None,
) -> None:
    """Poll the system's API with a checkpointed cursor and publish change events."""
    from connectors.api.client import ApiError
    from connectors.api.runner import poll_once

    settings, site, cfg, connector, bus, store = _setup(config, system, instance, wiki)
    with _stop_on_signals() as stop:
        wake = threading.Event()
        hints = None
        # alive while a page or a round completes within the poll interval plus 5 minutes
        probe = start_health(health, stale_after_s=cfg.poll_interval_s + 300)
        if webhook:
            from connectors.webhook import WebhookHints

            hints = WebhookHints(webhook, wake).start()
            out.print(f"accepting webhook hints on {hints.address[0]}:{hints.address[1]}")
        failed = False
        try:
            while not stop.is_set():
                try:
                    report = poll_once(connector, cfg, bus, store, site.tenant,
                                       claim_checks=claim_check_store(settings),
                                       max_body_bytes=settings.events.max_body_bytes,
                                       on_page=probe.beat if probe else None)
                    _print_run(f"{system}/{cfg.instance}", report)
                    _embedded_compile(bus, settings, site.tenant, site.site, system, wiki)
                    failed = bool(report.errors)
                except (ApiError, PublishError) as exc:
                    # the cursor did not move: the next poll re-reads from the last acknowledged page
                    err.print(f"[yellow]poll failed, will retry:[/yellow] {exc}")
                    if once:
                        raise typer.Exit(1) from None
                    if isinstance(exc, PublishError):
                        try:  # a broker that lost its metadata must get the topics back first
                            bus.ensure_topics([system])
                        except Exception as again:  # noqa: BLE001 - still down: the next round retries
                            err.print(f"[yellow]broker still unavailable:[/yellow] {again}")
                if probe:
                    probe.beat()  # a failed poll is retried: the loop itself is alive
                if once:
                    break
                wake.wait(cfg.poll_interval_s)
                wake.clear()
        finally:
            if hints:
                hints.stop()
            if probe:
                probe.stop()
            connector.close()
            bus.close()
    raise typer.Exit(EXIT_REJECTED if failed else 0)


@connectors_app.command("sync")
def sync_cmd(
    system: Annotated[str, typer.Argument(help="confluence, jira, zendesk, salesforce or hubspot")],
    from_export: Annotated[Path, typer.Option("--from-export", help="folder of API export files",
                                              exists=True, file_okay=False)],
    config: ConfigOpt,
    instance: InstanceOpt = None,
    wiki: WikiEmbedded = None,
) -> None:
    """Replay export files as a snapshot (op r events)."""
    from connectors.api.runner import export_files, sync_export

    settings, site, cfg, connector, bus, store = _setup(config, system, instance, wiki)
    try:
        report = sync_export(export_files(from_export), connector, cfg, bus, store, site.tenant,
                             claim_checks=claim_check_store(settings),
                             max_body_bytes=settings.events.max_body_bytes)
        _print_run(f"{system}/{cfg.instance} export", report)
        _embedded_compile(bus, settings, site.tenant, site.site, system, wiki)
    except PublishError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    finally:
        connector.close()
        bus.close()
    raise typer.Exit(EXIT_REJECTED if report.errors else 0)


def _guard(corpus: SiteCorpus, wiki: Path) -> None:
    """Refuse, before any event is published or any file written, a wiki that is not the
    events' own (compiler/wiki_owner.py)."""

    try:
        guard_consumer(corpus, wiki)
    except FolderGuardError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _corpus_for(wiki: Path, corpus: Path | None) -> Path:
    return corpus or wiki.parent / f"{wiki.name}.corpus"


def _print_batch(r: BatchReport) -> None:
    lat = sorted(r.latencies)
    p50 = statistics.median(lat) if lat else 0.0
    c = r.compile
    out.print(f"batch: {plural(r.events, 'event')}, {plural(r.keys, 'key')}, "
              f"{r.applied.written} written, {r.applied.deleted} deleted, "
              f"{r.dead_lettered} dead-lettered"
              + (f", {plural(c.pages_written, 'page')} written" if c else "")
              + f", latency p50 {p50:.2f}s", highlight=False, soft_wrap=True)


def consume_cmd(
    site: Annotated[str, typer.Option("--site", help="site name: the consumer group is folio-site-<site>")],
    wiki: Annotated[Path, typer.Option("--wiki", "-w", help="wiki folder to keep compiled", file_okay=False)],
    tenant: Annotated[str, typer.Option("--tenant", help="tenant whose topics to read")] = "default",
    system: Annotated[Optional[list[str]], typer.Option(
        "--system", help="systems to consume (repeatable)")] = None,
    corpus: Annotated[Optional[Path], typer.Option(
        "--corpus", help="record folder the consumer maintains (default: <wiki>.corpus)")] = None,
    idle_exit: Annotated[Optional[float], typer.Option(
        "--idle-exit", help="exit after the bus has been empty this many seconds")] = None,
) -> None:
    """Consume change events, compile the wiki incrementally, commit offsets after it is written."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = FolioSettings()
    if not settings.events.kafka_bootstrap:
        err.print("[red]error:[/red] set FOLIO_EVENTS_KAFKA_BOOTSTRAP (without Kafka, events are "
                  "compiled in-process by `folio connectors run … --wiki`)")
        raise typer.Exit(1)
    systems = system or ["confluence", "jira", "salesforce", "zendesk", "hubspot"]
    site_corpus = SiteCorpus(_corpus_for(wiki, corpus), tenant)
    _guard(site_corpus, wiki)
    bus = make_bus(settings, tenant)
    sub = bus.subscribe(site, systems)
    consumer = SiteConsumer(sub, site_corpus, wiki, settings,
                            claim_checks=claim_check_store(settings))
    try:
        with _stop_on_signals() as stop:
            for r in consumer.run(stop, idle_exit_s=idle_exit):
                _print_batch(r)
    finally:
        sub.close()
        bus.close()


def register(app: typer.Typer) -> None:
    app.add_typer(connectors_app, name="connectors")
    app.command("consume")(consume_cmd)
