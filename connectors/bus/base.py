"""Bus interface and topic naming shared by every implementation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..events import WireMessage

DLQ_REASON_HEADER = "folio_dlq_reason"
DLQ_TOPIC_HEADER = "folio_dlq_topic"
DLQ_PARTITION_HEADER = "folio_dlq_partition"
DLQ_OFFSET_HEADER = "folio_dlq_offset"
DLQ_OMITTED_HEADER = "folio_dlq_value_omitted"  # the size of a value too large to copy
_TOPIC_PART = re.compile(r"[^A-Za-z0-9._-]")


class PublishError(RuntimeError):
    """The bus did not acknowledge every message of a batch; the caller must not advance."""


@dataclass(frozen=True, slots=True)
class Delivery:
    topic: str
    partition: int
    offset: int
    message: WireMessage
    timestamp_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Topics:
    """Topic names: per system a history topic (delete retention, every event kept for replay
    and audit) and a compacted state topic (the latest version of every live key, which is what
    a site consumer reads); one dead-letter topic per tenant."""

    prefix: str
    tenant: str

    def _base(self) -> str:
        return f"{_TOPIC_PART.sub('_', self.prefix)}.{_TOPIC_PART.sub('_', self.tenant)}"

    def history(self, system: str) -> str:
        return f"{self._base()}.{_TOPIC_PART.sub('_', system)}.history"

    def state(self, system: str) -> str:
        return f"{self._base()}.{_TOPIC_PART.sub('_', system)}.state"

    def dead_letter(self) -> str:
        return f"{self._base()}.deadletter"


class Subscription(Protocol):
    def poll(self, timeout_s: float, max_records: int) -> list[Delivery]:
        """Up to ``max_records`` deliveries, waiting at most ``timeout_s`` for the first."""
        ...

    def commit(self, deliveries: Sequence[Delivery]) -> None:
        """Mark these deliveries (and everything before them on their partitions) done."""
        ...

    def dead_letter(self, delivery: Delivery, reason: str) -> None:
        """Park a message with the reason in a header; returns once the bus has it."""
        ...

    def ready(self) -> bool:
        """True once the subscription holds partitions (a Kafka group join has finished)."""
        ...

    def close(self) -> None: ...


class EventBus(Protocol):
    topics: Topics

    def ensure_topics(self, systems: Sequence[str]) -> None: ...

    def publish(self, system: str, messages: Sequence[WireMessage]) -> None:
        """Returns once every message is acknowledged; raises :class:`PublishError` otherwise."""
        ...

    def subscribe(self, site: str, systems: Sequence[str], group: str | None = None
                  ) -> Subscription:
        """``group``: the consumer group (default ``folio-site-<site>``); each group sees every
        event once, so the event bridge reads the same topics as the site without stealing
        its events."""
        ...

    def close(self) -> None: ...


def dead_letter_headers(delivery: Delivery, reason: str) -> tuple[tuple[str, bytes], ...]:
    # the reason is one line: header values end up in log lines and UIs
    reason = " ".join(reason.split())[:1000]
    return (*delivery.message.headers,
            (DLQ_REASON_HEADER, reason.encode()),
            (DLQ_TOPIC_HEADER, delivery.topic.encode()),
            (DLQ_PARTITION_HEADER, str(delivery.partition).encode()),
            (DLQ_OFFSET_HEADER, str(delivery.offset).encode()))


def max_request_bytes(max_body_bytes: int) -> int:
    """The largest message a Folio producer sends: twice the event body limit (at least 1 MiB)."""
    return max(1024 * 1024, max_body_bytes * 2)


def dead_letter_message(delivery: Delivery, reason: str, max_body_bytes: int) -> WireMessage:
    """The dead-letter copy of a delivery. A value the producer could not send (above
    :func:`max_request_bytes`, less room for the headers) is not copied, or the consumer would
    stall on a message it can neither compile nor dead-letter: its size goes into a header, and
    the original stays at the topic, partition and offset the headers name."""
    value = delivery.message.value
    headers = dead_letter_headers(delivery, reason)
    if value is not None and len(value) > max_request_bytes(max_body_bytes) - 64 * 1024:
        headers = (*headers, (DLQ_OMITTED_HEADER, str(len(value)).encode()))
        value = b""
    return WireMessage(delivery.message.key, value, headers)
