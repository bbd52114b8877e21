"""Choosing the bus and the claim-check store from settings: Kafka when configured, else in-process."""

from __future__ import annotations

from compiler.settings import FolioSettings

from .bus.base import EventBus, Topics
from .bus.memory import InProcessBus
from .events import ClaimCheckStore, FolderClaimCheckStore


def make_bus(settings: FolioSettings, tenant: str) -> EventBus:
    ev = settings.events
    topics = Topics(ev.topic_prefix, tenant)
    if ev.kafka_bootstrap:
        from .bus.kafka import KafkaBus  # kafka-python is an optional extra

        return KafkaBus(ev, topics)
    return InProcessBus(topics, partitions=ev.partitions)


def claim_check_store(settings: FolioSettings) -> ClaimCheckStore | None:
    d = settings.events.claim_check_dir
    return FolderClaimCheckStore(d) if d else None
