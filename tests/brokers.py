"""Test access to the local brokers (kept in the package so benchmarks can use them too)."""

from connectors.bus.local_broker import Broker, free_port, fresh

__all__ = ["Broker", "free_port", "fresh"]
