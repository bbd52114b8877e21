"""The in-process bus of the embedded default: same semantics as Kafka, inside one process.

Partitioned by key (per-key order), committed offsets per group, a dead-letter topic. Nothing
survives the process: the corpus folder and the wiki state are what make a rerun cheap.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections import defaultdict
from collections.abc import Sequence

from ..events import DEFAULT_MAX_BODY_BYTES, WireMessage
from .base import Delivery, Topics, dead_letter_message


class InProcessBus:
    def __init__(self, topics: Topics, partitions: int = 4) -> None:
        self.topics = topics
        self.partitions = partitions
        self._logs: dict[str, list[list[tuple[WireMessage, int]]]] = {}
        self._committed: dict[tuple[str, str, int], int] = defaultdict(int)
        self._cond = threading.Condition()

    def _log(self, topic: str) -> list[list[tuple[WireMessage, int]]]:
        if topic not in self._logs:
            self._logs[topic] = [[] for _ in range(self.partitions)]
        return self._logs[topic]

    def ensure_topics(self, systems: Sequence[str]) -> None:
        with self._cond:
            for s in systems:
                self._log(self.topics.history(s))
                self._log(self.topics.state(s))
            self._log(self.topics.dead_letter())

    def _append(self, topic: str, msg: WireMessage) -> None:
        log = self._log(topic)
        part = zlib.crc32(msg.key or b"") % len(log)
        log[part].append((msg, int(time.time() * 1000)))

    def publish(self, system: str, messages: Sequence[WireMessage]) -> None:
        with self._cond:
            for m in messages:
                if m.value is not None:
                    self._append(self.topics.history(system), m)
                self._append(self.topics.state(system), m)
            self._cond.notify_all()

    def messages(self, topic: str) -> list[WireMessage]:
        """Everything on a topic, partition by partition (tests, inspection)."""
        with self._cond:
            return [m for part in self._log(topic) for m, _ in part]

    def subscribe(self, site: str, systems: Sequence[str], group: str | None = None
                  ) -> "InProcessSubscription":
        self.ensure_topics(systems)
        return InProcessSubscription(self, group or f"folio-site-{site}", [self.topics.state(s) for s in systems])

    def close(self) -> None:
        pass


class InProcessSubscription:
    def __init__(self, bus: InProcessBus, group: str, topics: list[str]) -> None:
        self.bus = bus
        self.group = group
        self.topics = topics
        # position starts at the group's committed offset, like a Kafka consumer after a join
        self._pos = {(t, p): bus._committed[(group, t, p)]
                     for t in topics for p in range(len(bus._log(t)))}

    def _take(self, max_records: int) -> list[Delivery]:
        out: list[Delivery] = []
        for (topic, part), pos in self._pos.items():
            log = self.bus._logs[topic][part]
            while pos < len(log) and len(out) < max_records:
                msg, ts = log[pos]
                out.append(Delivery(topic, part, pos, msg, ts))
                pos += 1
            self._pos[(topic, part)] = pos
        return out

    def poll(self, timeout_s: float, max_records: int) -> list[Delivery]:
        deadline = time.monotonic() + timeout_s
        with self.bus._cond:
            while True:
                out = self._take(max_records)
                remaining = deadline - time.monotonic()
                if out or remaining <= 0:
                    return out
                self.bus._cond.wait(remaining)

    def commit(self, deliveries: Sequence[Delivery]) -> None:
        with self.bus._cond:
            for d in deliveries:
                k = (self.group, d.topic, d.partition)
                self.bus._committed[k] = max(self.bus._committed[k], d.offset + 1)

    def dead_letter(self, delivery: Delivery, reason: str) -> None:
        msg = dead_letter_message(delivery, reason, DEFAULT_MAX_BODY_BYTES)
        with self.bus._cond:
            self.bus._append(self.bus.topics.dead_letter(), msg)

    def ready(self) -> bool:
        return True

    def close(self) -> None:
        pass
