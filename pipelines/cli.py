"""``folio pipeline …``: run the Prefect flows from a shell (and from Kubernetes jobs).

Without a Prefect server configured (``PREFECT_API_URL``), Prefect runs them in ephemeral mode:
the embedded default needs no server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from compiler.cli_base import folio_typer

from .llm_limit import DEFAULT_NAME as DEFAULT_LLM_LIMIT

pipeline_app = folio_typer(
    help="Distributed compile: per-site extraction, central aggregation to the store, "
         "freshness checks (Prefect flows; see docs/pipelines.md).")
out = Console()
err = Console(stderr=True)

ConfigOpt = Annotated[Path, typer.Option(
    "--config", "-c", help="sites file (folio-sites.yaml): sites, their corpora and share "
                           "policies, the central workdir and the store", exists=True,
    dir_okay=False)]


def _quiet_prefect() -> None:
    # analytics would try the network; logs to the console would bury the summary
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    # the first start migrates a fresh database: slow on a busy machine
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def _print(result: dict) -> None:
    out.print_json(json.dumps(result, default=str))


def _run(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    from compiler.build import CompileError
    from compiler.store.base import StoreError

    from .topology import TopologyError

    try:
        return fn(*args, **kwargs)
    except (TopologyError, CompileError, StoreError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc


@pipeline_app.command("site-compile")
def site_compile_cmd(
    config: ConfigOpt,
    site: Annotated[str, typer.Option("--site", help="which site (a name in the sites file)")],
    drain: Annotated[bool, typer.Option(
        "--drain", help="first apply the site's queued change events (Kafka when "
                        "FOLIO_EVENTS_KAFKA_BOOTSTRAP is set)")] = False,
) -> None:
    """Extract a site's changed records and ship its claim set to the central store."""
    _quiet_prefect()
    from .flows import site_compile

    _print(_run(site_compile, str(config), site, drain))


@pipeline_app.command("aggregate")
def aggregate_cmd(config: ConfigOpt) -> None:
    """Merge every site's claim set, compile and sign the wiki, publish it to the store."""
    _quiet_prefect()
    from .flows import aggregate

    _print(_run(aggregate, str(config)))


@pipeline_app.command("reconcile")
def reconcile_cmd(
    config: ConfigOpt,
    site: Annotated[str, typer.Option("--site", help="which site")],
) -> None:
    """Rebuild a site's claim set from its corpus as it is now and re-ship what is missing."""
    _quiet_prefect()
    from .flows import reconcile

    _print(_run(reconcile, str(config), site))


@pipeline_app.command("freshness")
def freshness_cmd(
    config: ConfigOpt,
    now: Annotated[Optional[str], typer.Option(help="check as of this ISO time")] = None,
) -> None:
    """Report pages whose sources exceed their freshness tier plus the SLO grace."""
    _quiet_prefect()
    from .flows import freshness

    _print(_run(freshness, str(config), now))


@pipeline_app.command("run")
def run_cmd(config: ConfigOpt) -> None:
    """Every site, then the aggregation, in this process (the embedded default)."""
    _quiet_prefect()
    from .flows import compile_all

    _print(_run(compile_all, str(config)))


@pipeline_app.command("deployments")
def deployments_cmd(
    config: ConfigOpt,
    mounted_at: Annotated[str, typer.Option(
        help="where the sites file is mounted inside flow-run containers")] = "/etc/folio/folio-sites.yaml",
    image: Annotated[Optional[str], typer.Option(help="container image of the flow runs")] = None,
    code_dir: Annotated[str, typer.Option(
        help="where the project is checked out for the flow runs (the image's /app)")] = "/app",
) -> None:
    """Print a prefect.yaml: a deployment per site (its own work pool, service account and
    schedule, never two runs at once) plus the central aggregation (cron, and triggered by a
    site's folio.site.shipped event) and freshness checks. Apply it with
    `prefect --no-prompt deploy --all --prefect-file prefect.yaml` from the project folder."""
    import yaml

    from .deployments import prefect_yaml
    from .topology import load_topology

    topo = _run(load_topology, config)
    print("# LLM calls of all sites share one quota when the flow runs set FOLIO_LLM_RATE_LIMIT;\n"
          "# create that limit with `folio pipeline llm-limit` (docs/pipelines.md).")
    print(yaml.safe_dump(prefect_yaml(topo, mounted_at, image=image, code_dir=code_dir),
                         sort_keys=False), end="")


@pipeline_app.command("llm-limit")
def llm_limit_cmd(
    per_second: Annotated[float, typer.Option(
        "--per-second", help="calls per second all sites together may make (slot decay)")],
    burst: Annotated[int, typer.Option(
        "--burst", help="calls that may start at once after a quiet spell (the limit)")],
    name: Annotated[str, typer.Option(
        "--name", help="the limit's name; set FOLIO_LLM_RATE_LIMIT to it at every site")
    ] = DEFAULT_LLM_LIMIT,
) -> None:
    """Create or update the shared rate limit on every site's LLM calls (idempotent).

    A Prefect global concurrency limit with slot decay. Each call a compile cannot answer from its cache takes one slot; slots come
    back at --per-second, up to --burst. Compiles use it when FOLIO_LLM_RATE_LIMIT names it,
    and fail with a clear error if it does not exist. Uses the Prefect API at PREFECT_API_URL
    (without it, the local ephemeral database that embedded runs use)."""
    _quiet_prefect()
    from .llm_limit import ensure_llm_limit

    _print(_run(ensure_llm_limit, name, per_second, burst))


@pipeline_app.command("bridge")
def bridge_cmd(
    config: ConfigOpt,
    site: Annotated[str, typer.Option("--site", help="whose change events trigger its compile")],
    health: Annotated[Optional[str], typer.Option(
        "--health", help="[HOST]:PORT serving /healthz (the loop is alive) and /readyz (it has "
                         "completed a round), for Kubernetes probes")] = None,
) -> None:
    """Watch a site's change-event topics and trigger its site-compile deployment (debounced,
    one idempotent run per batch). Needs FOLIO_EVENTS_KAFKA_BOOTSTRAP and PREFECT_API_URL."""
    import logging

    from compiler.settings import FolioSettings
    from .connectors_cli import _stop_on_signals, start_health
    from connectors.wiring import make_bus

    from .bridge import Bridge
    from .topology import load_topology

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = FolioSettings()
    if not settings.events.kafka_bootstrap:
        err.print("[red]error:[/red] set FOLIO_EVENTS_KAFKA_BOOTSTRAP: the bridge reads Kafka")
        raise typer.Exit(1)
    topo = _run(load_topology, config)
    s = _run(topo.site, site)
    # a round is one poll (≤ max batch wait) plus a trigger; a group join takes up to 2 sessions
    probe = start_health(health, stale_after_s=2 * settings.events.session_timeout_ms / 1000
                         + settings.events.max_batch_wait_ms / 1000 + 120)
    bus = make_bus(settings, topo.tenant)
    sub = bus.subscribe(site, list(s.systems), group=f"folio-bridge-{site}")
    try:
        with _stop_on_signals() as stop:
            Bridge(sub, site, str(config.resolve()), settings).run(
                stop, on_round=probe.beat if probe else None)
    finally:
        if probe:
            probe.stop()
        sub.close()
        bus.close()


def register(app: typer.Typer) -> None:
    app.add_typer(pipeline_app, name="pipeline")
