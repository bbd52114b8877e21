"""The event bus: one interface, an in-process queue (embedded default) and Kafka.

Publishers hand over the messages of a batch and get control back only once the bus has
acknowledged all of them (so a connector can then advance its cursor). Subscribers poll
deliveries, commit them once their effect is durable, and park messages they cannot use on a
dead-letter topic, never blocking the partition behind them.
"""

from __future__ import annotations

from .base import (
    DLQ_REASON_HEADER,
    Delivery,
    EventBus,
    PublishError,
    Subscription,
    Topics,
)

__all__ = ["DLQ_REASON_HEADER", "Delivery", "EventBus", "PublishError", "Subscription", "Topics"]
