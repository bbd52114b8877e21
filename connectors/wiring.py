"""Choosing the bus and the claim-check store from settings: Kafka when configured, else in-process."""

from __future__ import annotations

from pathlib import Path

from compiler.settings import FolioSettings

from .bus.base import EventBus, Topics
from .bus.memory import InProcessBus
from .events import ClaimCheckStore, FolderClaimCheckStore, StoreClaimCheckStore


def make_bus(settings: FolioSettings, tenant: str) -> EventBus:
    ev = settings.events
    topics = Topics(ev.topic_prefix, tenant)
    if ev.kafka_bootstrap:
        from .bus.kafka import KafkaBus  # kafka-python is an optional extra

        return KafkaBus(ev, topics)
    return InProcessBus(topics, partitions=ev.partitions)


def claim_check_store(settings: FolioSettings) -> ClaimCheckStore | None:
    where = settings.events.claim_check_store
    if not where:
        return None
    if where.startswith("s3://"):
        from compiler.store import open_store

        return StoreClaimCheckStore(open_store(where, settings))
    return FolderClaimCheckStore(Path(where).expanduser())
