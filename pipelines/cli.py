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

pipeline_app = typer.Typer(
    help="Distributed compile: per-site extraction, central aggregation to the store, "
         "freshness checks (Prefect flows; see docs/pipelines.md).",
    no_args_is_help=True)
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


def register(app: typer.Typer) -> None:
    app.add_typer(pipeline_app, name="pipeline")
