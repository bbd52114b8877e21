"""``prefect.yaml`` from the sites file: one work pool and deployment per site, near its data.

Generated rather than hand-kept so the sites file stays the one source of truth. Each site's
deployments run in the site's own work pool, as the site's Kubernetes service account (its
keyless signing identity), with a concurrency limit of one so two compiles of a site never
overlap; the central ones run in ``folio-central``. The aggregation also runs on an event
trigger: a site that shipped a changed claim set emits ``folio.site.shipped``, so a change
event reaches the central index without waiting for the cron schedule.
"""

from __future__ import annotations

from typing import Any

from .topology import Topology

ENTRYPOINTS = {
    "site-compile": "pipelines/flows.py:site_compile",
    "reconcile": "pipelines/flows.py:reconcile",
    "aggregate": "pipelines/flows.py:aggregate",
    "freshness": "pipelines/flows.py:freshness",
}
CENTRAL_POOL = "folio-central"
SHIPPED_EVENT = "folio.site.shipped"


def _job(namespace: str | None, service_account: str | None) -> dict[str, Any]:
    job: dict[str, Any] = {}
    if namespace:
        job["namespace"] = namespace
    if service_account:
        job["service_account_name"] = service_account
    return job


def _schedules(cron: str | None) -> list[dict[str, Any]]:
    return [{"cron": cron, "timezone": "UTC"}] if cron else []


def site_resource(site: str) -> str:
    return f"folio.site.{site}"


def prefect_yaml(topo: Topology, config_path: str, *, image: str | None = None,
                 code_dir: str = "/app") -> dict[str, Any]:
    """The deployments section (and friends) of a ``prefect.yaml``; ``config_path`` is where the
    sites file is mounted in the flow-run containers, ``code_dir`` where the project is (the
    image's working directory)."""
    deployments: list[dict[str, Any]] = []
    for s in topo.sites:
        job = _job(s.namespace, s.service_account)
        if image:
            job["image"] = image
        deployments.append({
            "name": s.name, "entrypoint": ENTRYPOINTS["site-compile"],
            "description": f"extract site {s.name}'s changed records, ship its claim set",
            "tags": ["folio", f"site:{s.name}"],
            "parameters": {"config": config_path, "site": s.name, "drain": True},
            "work_pool": {"name": s.pool, "job_variables": job},
            "concurrency_limit": 1, "schedules": _schedules(s.schedule)})
        deployments.append({
            "name": f"{s.name}-reconcile", "entrypoint": ENTRYPOINTS["reconcile"],
            "tags": ["folio", f"site:{s.name}"],
            "parameters": {"config": config_path, "site": s.name},
            "work_pool": {"name": s.pool, "job_variables": dict(job)},
            "concurrency_limit": 1, "schedules": _schedules(s.reconcile_schedule)})
    central_job = {"image": image} if image else {}
    deployments.append({
        "name": "central", "entrypoint": ENTRYPOINTS["aggregate"],
        "description": "merge every site's claim set, compile, sign, publish the central index",
        "tags": ["folio", "central"], "parameters": {"config": config_path},
        "work_pool": {"name": CENTRAL_POOL, "job_variables": central_job},
        "concurrency_limit": 1, "schedules": _schedules(topo.central.schedule),
        "triggers": [{"type": "event", "enabled": True, "expect": [SHIPPED_EVENT],
                      "match": {"prefect.resource.id": site_resource("*")}}]})
    deployments.append({
        "name": "freshness", "entrypoint": ENTRYPOINTS["freshness"], "tags": ["folio", "central"],
        "parameters": {"config": config_path},
        "work_pool": {"name": CENTRAL_POOL, "job_variables": dict(central_job)},
        "schedules": _schedules(topo.central.freshness_schedule)})
    return {"name": "folio", "prefect-version": "3.8.8", "build": None, "push": None,
            "pull": [{"prefect.deployments.steps.set_working_directory": {"directory": code_dir}}],
            "deployments": deployments}


def deployment_name(site: str) -> str:
    """How the bridge addresses a site's compile: ``<flow name>/<deployment name>``."""
    return f"site-compile/{site}"
