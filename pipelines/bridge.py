"""The event bridge: change events on Kafka → a run of the site's compile deployment.

Prefect has no Kafka integration (and self-hosted Prefect no webhooks), so this small service
reads the site's topics in its own consumer group (``folio-bridge-<site>``: it sees every event
without taking any from the site's group, which does the actual consuming inside the flow),
waits for a quiet moment (debounce, so a storm becomes one run), and asks Prefect for a run
with an idempotency key derived from the batch's offsets: a bridge that crashes after
triggering and before committing re-sends the same key, and Prefect returns the same run.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from threading import Event
from typing import Any

from pydantic import BaseModel

from compiler.settings import FolioSettings
from connectors.bus.base import Delivery, Subscription
from connectors.bus.batching import collect_batch

from .deployments import deployment_name

log = logging.getLogger(__name__)

Trigger = Callable[[str, dict[str, Any], str], str]  # (deployment, parameters, key) → run id


class Triggered(BaseModel):
    site: str
    events: int
    idempotency_key: str
    flow_run_id: str


def batch_key(site: str, deliveries: list[Delivery]) -> str:
    """Same batch, same key: the offset range of each partition it covers."""
    ranges: dict[tuple[str, int], list[int]] = {}
    for d in deliveries:
        ranges.setdefault((d.topic, d.partition), []).append(d.offset)
    text = ";".join(f"{t}/{p}:{min(o)}-{max(o)}" for (t, p), o in sorted(ranges.items()))
    return f"folio-{site}-" + hashlib.sha256(text.encode()).hexdigest()[:32]


def prefect_trigger(deployment: str, parameters: dict[str, Any], key: str) -> str:
    from prefect.deployments import run_deployment

    # timeout=0: schedule and return; the site's worker picks the run up
    run = run_deployment(deployment, parameters=parameters, timeout=0, idempotency_key=key)
    return str(run.id)


class Bridge:
    def __init__(self, subscription: Subscription, site: str, config: str,
                 settings: FolioSettings | None = None, trigger: Trigger = prefect_trigger) -> None:
        self.sub, self.site, self.config = subscription, site, config
        self.settings = settings or FolioSettings()
        self.trigger = trigger

    def run_once(self, stop: Event | None = None, wait_s: float = 1.0) -> Triggered | None:
        deliveries = collect_batch(self.sub, self.settings.events, stop, wait_s, until_quiet=True)
        if not deliveries:
            return None
        key = batch_key(self.site, deliveries)
        run_id = self.trigger(deployment_name(self.site),
                              {"config": self.config, "site": self.site, "drain": True}, key)
        # committed only once Prefect holds the run: a crash before re-triggers the same key
        self.sub.commit(deliveries)
        log.info("site %s: %d events → flow run %s", self.site, len(deliveries), run_id)
        return Triggered(site=self.site, events=len(deliveries), idempotency_key=key,
                         flow_run_id=run_id)

    def run(self, stop: Event, on_round: Callable[[], None] | None = None) -> None:
        while not stop.is_set():
            self.run_once(stop)
            if on_round is not None:
                on_round()
