"""Kafka implementation of the event bus (kafka-python).

- Topics are created up front with their cleanup policy: history ``delete`` with retention,
  state ``compact`` (with ``delete.retention.ms`` so lagging consumers still see tombstones).
- The producer is idempotent with ``acks=all``; :meth:`KafkaBus.publish` returns only after
  every future of the batch resolved, which is what lets a connector advance its cursor.
- Consumers join the group ``folio-site-<site>`` with auto-commit off; the site consumer
  commits explicit offsets after the compiled wiki is durable (at-least-once).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import CommitFailedError, KafkaError, TopicAlreadyExistsError
from kafka.structs import OffsetAndMetadata

from compiler.event_settings import EventSettings
from ..events import WireMessage
from .base import (
    Delivery, PublishError, Topics, dead_letter_message, max_request_bytes,
)

log = logging.getLogger(__name__)


def client_config(s: EventSettings) -> dict[str, Any]:
    """Connection settings shared by admin, producer and consumer (SASL/SSL for production)."""
    if not s.kafka_bootstrap:
        raise ValueError("no Kafka bootstrap servers (set FOLIO_EVENTS_KAFKA_BOOTSTRAP)")
    cfg: dict[str, Any] = {
        "bootstrap_servers": [b.strip() for b in s.kafka_bootstrap.split(",") if b.strip()],
        "security_protocol": s.kafka_security_protocol,
        "client_id": "folio",
    }
    if s.kafka_sasl_mechanism:
        cfg["sasl_mechanism"] = s.kafka_sasl_mechanism
        cfg["sasl_plain_username"] = s.kafka_sasl_username
        if s.kafka_sasl_password is not None:
            cfg["sasl_plain_password"] = s.kafka_sasl_password.get_secret_value()
    for key, value in (("ssl_cafile", s.kafka_ssl_cafile), ("ssl_certfile", s.kafka_ssl_certfile),
                       ("ssl_keyfile", s.kafka_ssl_keyfile)):
        if value is not None:
            cfg[key] = str(value)
    return cfg


def _headers(msg: WireMessage) -> list[tuple[str, bytes]]:
    return list(msg.headers)


class KafkaBus:
    def __init__(self, settings: EventSettings, topics: Topics) -> None:
        self.settings = settings
        self.topics = topics
        self._cfg = client_config(settings)
        self._producer: KafkaProducer | None = None

    # -- topics ---------------------------------------------------------------------------

    def ensure_topics(self, systems: Sequence[str]) -> None:
        s = self.settings
        wanted = [self.topics.dead_letter()]
        configs: dict[str, dict[str, str]] = {
            self.topics.dead_letter(): {"cleanup.policy": "delete",
                                        "retention.ms": str(s.history_retention_ms)}}
        for system in systems:
            h, st = self.topics.history(system), self.topics.state(system)
            wanted += [h, st]
            configs[h] = {"cleanup.policy": "delete", "retention.ms": str(s.history_retention_ms)}
            configs[st] = {"cleanup.policy": "compact",
                           "delete.retention.ms": str(s.tombstone_retention_ms)}
        admin = KafkaAdminClient(**self._cfg)
        try:
            existing = set(admin.list_topics())
            new = [NewTopic(t, s.partitions, s.replication_factor, topic_configs=configs[t])
                   for t in wanted if t not in existing]
            if new:
                try:
                    admin.create_topics(new)
                except TopicAlreadyExistsError:
                    pass  # another connector or consumer created it first
        finally:
            admin.close()

    # -- producing ------------------------------------------------------------------------

    def _producer_(self) -> KafkaProducer:
        if self._producer is None:
            self._producer = KafkaProducer(
                # large batches: a poll publishes whole API pages at once, and kafka-python's
                # per-request overhead dominates with the 16 KiB default
                **self._cfg, acks="all", enable_idempotence=True, linger_ms=10, batch_size=512 * 1024,
                max_in_flight_requests_per_connection=5, retries=2**31 - 1,
                delivery_timeout_ms=60_000, request_timeout_ms=15_000,
                max_request_size=max_request_bytes(self.settings.max_body_bytes))
        return self._producer

    def _send_all(self, sends: list[tuple[str, WireMessage]], timeout_s: float) -> None:
        try:
            producer = self._producer_()
            futures = [producer.send(topic, key=m.key, value=m.value, headers=_headers(m))
                       for topic, m in sends]
            producer.flush(timeout=timeout_s)
            for f in futures:
                f.get(timeout=0)  # raises the delivery error, if any
        except KafkaError as exc:
            # the producer may hold half a batch; a fresh one avoids resending under a stale epoch
            self._reset_producer()
            raise PublishError(f"Kafka did not acknowledge the batch: {exc}") from exc

    def _reset_producer(self) -> None:
        if self._producer is not None:
            try:
                self._producer.close(timeout=1)
            except Exception:  # noqa: BLE001 - already failing; the original error matters
                pass
            self._producer = None

    def publish(self, system: str, messages: Sequence[WireMessage]) -> None:
        sends: list[tuple[str, WireMessage]] = []
        for m in messages:
            if m.value is not None:
                sends.append((self.topics.history(system), m))
            sends.append((self.topics.state(system), m))
        if sends:
            self._send_all(sends, timeout_s=90)

    # -- consuming ------------------------------------------------------------------------

    def subscribe(self, site: str, systems: Sequence[str], group: str | None = None
                  ) -> "KafkaSubscription":
        self.ensure_topics(systems)
        s = self.settings
        consumer = KafkaConsumer(
            **self._cfg, group_id=group or f"folio-site-{site}", enable_auto_commit=False,
            auto_offset_reset="earliest", session_timeout_ms=s.session_timeout_ms,
            heartbeat_interval_ms=max(300, s.session_timeout_ms // 6),
            max_poll_interval_ms=s.max_poll_interval_ms,
            max_partition_fetch_bytes=max(1024 * 1024, s.max_body_bytes * 2))
        consumer.subscribe([self.topics.state(x) for x in systems])
        return KafkaSubscription(self, consumer)

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(timeout=10)
            self._producer.close(timeout=10)
            self._producer = None


class KafkaSubscription:
    def __init__(self, bus: KafkaBus, consumer: KafkaConsumer) -> None:
        self.bus = bus
        self.consumer = consumer

    def poll(self, timeout_s: float, max_records: int) -> list[Delivery]:
        batches = self.consumer.poll(timeout_ms=int(timeout_s * 1000), max_records=max_records)
        out: list[Delivery] = []
        for tp, records in batches.items():
            for r in records:
                headers = tuple((k, v if v is not None else b"") for k, v in (r.headers or ()))
                out.append(Delivery(tp.topic, tp.partition, r.offset,
                                    WireMessage(r.key, r.value, headers), r.timestamp))
        return out

    def commit(self, deliveries: Sequence[Delivery]) -> None:
        offsets: dict[TopicPartition, int] = {}
        for d in deliveries:
            tp = TopicPartition(d.topic, d.partition)
            offsets[tp] = max(offsets.get(tp, 0), d.offset + 1)
        if not offsets:
            return
        try:
            self.consumer.commit({tp: OffsetAndMetadata(o, "", -1) for tp, o in offsets.items()})
        except CommitFailedError as exc:
            # partitions moved to another member during the batch: it redoes the batch, and
            # applying it twice changes nothing (content-addressed corpus, incremental compile)
            log.warning("offset commit refused after a rebalance; the batch will be redelivered: %s", exc)

    def dead_letter(self, delivery: Delivery, reason: str) -> None:
        msg = dead_letter_message(delivery, reason, self.bus.settings.max_body_bytes)
        self.bus._send_all([(self.bus.topics.dead_letter(), msg)], timeout_s=60)

    def ready(self) -> bool:
        return bool(self.consumer.assignment())

    def close(self) -> None:
        self.consumer.close(autocommit=False)
