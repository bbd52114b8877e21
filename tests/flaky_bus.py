"""An in-process bus whose n-th publish fails, as a broker outage would: for runner tests that
the cursor moves only after the bus acknowledged a page."""

from __future__ import annotations

from collections.abc import Sequence

from connectors.bus.base import PublishError, Topics
from connectors.bus.memory import InProcessBus
from connectors.events import WireMessage


class FlakyBus(InProcessBus):
    def __init__(self, fail_on: int) -> None:
        super().__init__(Topics("folio", "acme"), partitions=1)
        self.fail_on = fail_on
        self.calls = 0

    def publish(self, system: str, messages: Sequence[WireMessage]) -> None:
        self.calls += 1
        if self.calls == self.fail_on:
            raise PublishError(f"broker unavailable (publish #{self.calls})")
        super().publish(system, messages)
