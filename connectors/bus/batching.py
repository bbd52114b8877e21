"""Batching of change events from the bus: small and prompt at the live edge, large under a
backlog. What a consumer compiles one batch at a time (pipelines/consumer.py) and the event
bridge turns into one flow run (pipelines/bridge.py)."""

from __future__ import annotations

import time
from threading import Event

from compiler.event_settings import EventSettings

from .base import Delivery, Subscription

# at least this many events within _DRAIN_WINDOW_S (~1,300/s) means the bus holds a backlog
# (a burst, or what arrived during the last compile), not a live stream: keep draining it
# into the same batch, whose compile then costs less per event
BACKLOG_EVENTS = 64
_DRAIN_WINDOW_S = 0.05


def collect_batch(sub: Subscription, ev: EventSettings, stop: Event | None,
                  first_wait_s: float, *, until_quiet: bool = False) -> list[Delivery]:
    """One batch, adaptive: small and prompt at the live edge, large under a backlog.

    After its first event the batch stays open ``debounce_ms`` for more (a storm of edits to
    one record compiles once); after that it grows only while events keep coming faster than
    ``BACKLOG_EVENTS`` per ``_DRAIN_WINDOW_S``, up to ``max_batch`` events or
    ``max_batch_wait_ms``. A steady stream therefore waits ``debounce_ms`` at most instead of
    a quiet moment (which a steady stream never has), and a burst drains in few large batches.

    ``until_quiet`` (the event bridge, where each batch is a flow run): poll until the bus
    has been quiet for ``debounce_ms``, the batch is full, or it is ``max_batch_wait_ms`` old."""
    batch = sub.poll(first_wait_s, ev.max_batch)
    if not batch:
        return batch
    opened = time.monotonic()
    linger, max_wait = ev.debounce_ms / 1000, ev.max_batch_wait_ms / 1000
    arrivals: list[tuple[float, int]] = [(opened, len(batch))]  # (when, how many) per poll
    while len(batch) < ev.max_batch and not (stop and stop.is_set()):
        now = time.monotonic()
        age = now - opened
        left = max_wait - age
        if left <= 0:
            break
        if until_quiet:
            wait = linger
        elif age < linger:
            wait = linger - age
        else:
            recent = sum(n for t, n in arrivals if t >= now - _DRAIN_WINDOW_S)
            if recent < BACKLOG_EVENTS:
                break  # a live stream, past the linger: compile what there is
            wait = _DRAIN_WINDOW_S
        more = sub.poll(min(wait, left), ev.max_batch - len(batch))
        if not more:
            if until_quiet or age >= linger:
                break
            continue
        batch.extend(more)
        arrivals.append((time.monotonic(), len(more)))
    return batch
